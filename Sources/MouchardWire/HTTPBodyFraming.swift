/// How the body of an HTTP/1 message is delimited on the wire (RFC 9112 §6.3), decided from the
/// head alone — the same rules the parsers apply, public so a proxy can re-frame what it forwards.
public enum HTTPBodyFraming: Sendable, Hashable {
    /// No body (requests without Content-Length or Transfer-Encoding; HEAD, 1xx, 204 and 304 responses).
    case none
    /// Exactly this many bytes follow the head.
    case contentLength(Int)
    /// Chunked transfer coding; the body ends with the last chunk and optional trailers.
    case chunked
    /// The body runs until the connection closes (responses only).
    case untilClose
    /// The connection stops speaking HTTP/1 after the head (CONNECT, 101 Switching Protocols).
    case tunnel

    /// Framing of a request body.
    ///
    /// CONNECT requests are `tunnel`. Rejects Transfer-Encoding together with Content-Length,
    /// a final transfer coding other than chunked, and invalid or differing Content-Length values.
    /// Several identical Content-Length values (`5, 5` or two fields `5`) are accepted as one, as
    /// RFC 9110 §8.6 allows. `streamOffset` is the offset reported by an error.
    public init(request head: HTTPRequestHead, streamOffset: Int = 0) throws(HTTPParseError) {
        if head.method == "CONNECT" {
            self = .tunnel
            return
        }
        let declared = try DeclaredFraming(head.headers, at: streamOffset)
        if let chunkedLast = declared.transferChunkedLast {
            guard chunkedLast else { throw HTTPParseError(.transferEncodingNotChunked, at: streamOffset) }
            self = .chunked
        } else if let length = declared.contentLength {
            self = .contentLength(length)
        } else {
            self = .none
        }
    }

    /// Framing of a response body to a request made with `requestMethod`.
    ///
    /// HEAD responses and 1xx, 204 and 304 have no body; a 2xx answer to CONNECT and a 101 start a
    /// tunnel; otherwise Transfer-Encoding with chunked last is chunked, other transfer codings and
    /// messages with neither header run until the connection closes.
    public init(response head: HTTPResponseHead, requestMethod: String = "GET",
                streamOffset: Int = 0) throws(HTTPParseError) {
        if head.status == 101 || (requestMethod == "CONNECT" && (200..<300).contains(head.status)) {
            self = .tunnel
            return
        }
        if requestMethod == "HEAD" || head.status < 200 || head.status == 204 || head.status == 304 {
            self = .none
            return
        }
        let declared = try DeclaredFraming(head.headers, at: streamOffset)
        if let chunkedLast = declared.transferChunkedLast {
            self = chunkedLast ? .chunked : .untilClose
        } else if let length = declared.contentLength {
            self = .contentLength(length)
        } else {
            self = .untilClose
        }
    }
}

/// What the Transfer-Encoding and Content-Length fields of a head declare, validated.
struct DeclaredFraming {
    /// nil without Transfer-Encoding; otherwise whether its final coding is chunked.
    var transferChunkedLast: Bool?
    var contentLength: Int?

    init(_ headers: HTTPHeaders, at offset: Int) throws(HTTPParseError) {
        var codings = 0
        var chunkedSeen = false
        var lastIsChunked = false
        var sawTransferEncoding = false
        var length: Int?
        for field in headers.fields {
            let name = field.name.utf8
            if name.count == 17, fieldName(field.name, is: "transfer-encoding") {
                sawTransferEncoding = true
                for element in ListElements(field.valueBytes) {
                    // transfer-coding = token *( OWS ";" OWS transfer-parameter ): the token is what counts.
                    var end = element.lowerBound
                    while end < element.upperBound, HTTPByteClass.isToken(field.valueBytes[end]) { end += 1 }
                    if end == element.lowerBound { throw HTTPParseError(.invalidTransferEncoding, at: offset) }
                    if end < element.upperBound {
                        let b = field.valueBytes[end]
                        guard b == 0x3B || HTTPByteClass.isWhitespace(b) else {
                            throw HTTPParseError(.invalidTransferEncoding, at: offset)
                        }
                    }
                    let isChunked = field.valueBytes[element.lowerBound..<end].elementsEqualIgnoringCase("chunked")
                    // chunked may be applied only once.
                    if isChunked, chunkedSeen { throw HTTPParseError(.invalidTransferEncoding, at: offset) }
                    chunkedSeen = chunkedSeen || isChunked
                    lastIsChunked = isChunked
                    codings += 1
                }
            } else if name.count == 14, fieldName(field.name, is: "content-length") {
                var sawElement = false
                for element in ListElements(field.valueBytes, keepEmpty: true) {
                    sawElement = true
                    guard !element.isEmpty else { throw HTTPParseError(.invalidContentLength, at: offset) }
                    var value = 0
                    for i in element {
                        let b = field.valueBytes[i]
                        guard HTTPByteClass.isDigit(b) else { throw HTTPParseError(.invalidContentLength, at: offset) }
                        let (m, o1) = value.multipliedReportingOverflow(by: 10)
                        let (s, o2) = m.addingReportingOverflow(Int(b - 0x30))
                        if o1 || o2 { throw HTTPParseError(.invalidContentLength, at: offset) }
                        value = s
                    }
                    if let previous = length, previous != value {
                        throw HTTPParseError(.conflictingContentLength, at: offset)
                    }
                    length = value
                }
                if !sawElement { throw HTTPParseError(.invalidContentLength, at: offset) }
            }
        }
        if sawTransferEncoding {
            if codings == 0 { throw HTTPParseError(.invalidTransferEncoding, at: offset) }
            if length != nil { throw HTTPParseError(.contentLengthWithTransferEncoding, at: offset) }
            transferChunkedLast = lastIsChunked
        }
        contentLength = length
    }
}

/// The elements of a comma-separated header list (RFC 9110 §5.6.1) as index ranges with OWS trimmed.
/// Empty elements are skipped unless `keepEmpty` (Content-Length wants to reject them).
struct ListElements: Sequence, IteratorProtocol {
    let bytes: [UInt8]
    let keepEmpty: Bool
    var position = 0
    var done = false

    init(_ bytes: [UInt8], keepEmpty: Bool = false) {
        self.bytes = bytes
        self.keepEmpty = keepEmpty
    }

    mutating func next() -> Range<Int>? {
        while !done {
            var start = position
            var end = start
            while end < bytes.count, bytes[end] != 0x2C { end += 1 }
            if end >= bytes.count { done = true } else { position = end + 1 }
            let stop = end
            while start < stop, HTTPByteClass.isWhitespace(bytes[start]) { start += 1 }
            var last = stop
            while last > start, HTTPByteClass.isWhitespace(bytes[last - 1]) { last -= 1 }
            if start < last || keepEmpty { return start..<last }
        }
        return nil
    }
}

extension ArraySlice<UInt8> {
    /// ASCII case-insensitive comparison with a lower-case ASCII literal.
    func elementsEqualIgnoringCase(_ lowercase: String) -> Bool {
        let u = lowercase.utf8
        guard count == u.count else { return false }
        return zip(self, u).allSatisfy { HTTPByteClass.lower($0) == $1 }
    }
}

/// ASCII case-insensitive comparison of a field name with a lower-case literal, on the UTF-8 bytes.
@inline(__always)
func fieldName(_ name: String, is lowercase: StaticString) -> Bool {
    var name = name
    return name.withUTF8 { $0.equalsIgnoringCase(0..<$0.count, lowercase) }
}

/// Writes HTTP/1 heads and messages as bytes.
///
/// What round-trips byte for byte (parse, then serialize): the start line (the request line always;
/// a status line when it has a reason phrase, or an empty one written as `HTTP/1.1 204 \r\n`), and
/// every field written `Name: value` (one space after the colon, no trailing whitespace: the parser
/// keeps the value with optional whitespace trimmed, the serializer writes one space). Field value
/// bytes are written as received, so non-UTF-8 values round-trip. A target or reason phrase that is
/// not UTF-8 was decoded as Latin-1 and is written back as UTF-8 (it does not round-trip).
/// Bodies are re-framed: a chunked body is written as one chunk (when not empty) then the last chunk
/// and trailers, so a chunked message round-trips exactly only when it had a single chunk without
/// extensions (and uppercase or zero-padded sizes are written as lowercase minimal hex).
/// For a message exactly as received, whatever its spacing and framing, read it with
/// `HTTPMessageReader(keepsWireBytes: true)` and write it with `appendAsReceived`.
public enum HTTPSerializer {
    /// Appends `METHOD target HTTP/x.y\r\n`, the fields and the empty line.
    public static func appendHead(_ head: HTTPRequestHead, to out: inout [UInt8]) {
        out.append(contentsOf: head.method.utf8)
        out.append(0x20)
        out.append(contentsOf: head.target.utf8)
        out.append(0x20)
        appendVersion(head.version, to: &out)
        out.append(contentsOf: crlf)
        appendFields(head.headers, to: &out)
        out.append(contentsOf: crlf)
    }

    /// Appends `HTTP/x.y status reason\r\n`, the fields and the empty line.
    public static func appendHead(_ head: HTTPResponseHead, to out: inout [UInt8]) {
        appendVersion(head.version, to: &out)
        out.append(0x20)
        appendDecimal(head.status, to: &out)
        out.append(0x20)
        out.append(contentsOf: head.reason.utf8)
        out.append(contentsOf: crlf)
        appendFields(head.headers, to: &out)
        out.append(contentsOf: crlf)
    }

    /// Appends one `Name: value\r\n` line per field, in order.
    public static func appendFields(_ headers: HTTPHeaders, to out: inout [UInt8]) {
        for field in headers.fields {
            out.append(contentsOf: field.name.utf8)
            out.append(0x3A)
            out.append(0x20)
            out.append(contentsOf: field.valueBytes)
            out.append(contentsOf: crlf)
        }
    }

    /// Appends the message: interim heads, head, then the body framed as the head declares
    /// (chunked when its Transfer-Encoding ends with chunked, otherwise the bytes as they are).
    public static func appendMessage(_ message: HTTPParsedRequest, to out: inout [UInt8]) {
        appendHead(message.head, to: &out)
        appendBody(message.body, trailers: message.trailers, headers: message.head.headers, to: &out)
    }

    public static func appendMessage(_ message: HTTPParsedResponse, to out: inout [UInt8]) {
        for interim in message.informational { appendHead(interim, to: &out) }
        appendHead(message.head, to: &out)
        appendBody(message.body, trailers: message.trailers, headers: message.head.headers, to: &out)
    }

    /// Appends the message byte for byte as it arrived when it carries `wireBytes` (read by an
    /// `HTTPMessageReader(keepsWireBytes: true)`: original spacing, chunk sizes, extensions and
    /// trailers included); otherwise as `appendMessage` writes it.
    public static func appendAsReceived(_ message: HTTPParsedRequest, to out: inout [UInt8]) {
        if let wire = message.wireBytes { out.append(contentsOf: wire) } else { appendMessage(message, to: &out) }
    }

    public static func appendAsReceived(_ message: HTTPParsedResponse, to out: inout [UInt8]) {
        if let wire = message.wireBytes { out.append(contentsOf: wire) } else { appendMessage(message, to: &out) }
    }

    static func appendBody(_ body: [UInt8], trailers: HTTPHeaders, headers: HTTPHeaders, to out: inout [UInt8]) {
        let chunked = (try? DeclaredFraming(headers, at: 0))?.transferChunkedLast == true
        let encoder = HTTPBodyEncoder(framing: chunked ? .chunked : .untilClose)
        encoder.appendBody(body, to: &out)
        encoder.appendEnd(trailers: trailers, to: &out)
    }

    static let crlf: [UInt8] = [0x0D, 0x0A]

    static func appendVersion(_ v: HTTPVersion, to out: inout [UInt8]) {
        out.append(contentsOf: Array("HTTP/".utf8))
        appendDecimal(v.major, to: &out)
        out.append(0x2E)
        appendDecimal(v.minor, to: &out)
    }

    static func appendDecimal(_ value: Int, to out: inout [UInt8]) {
        out.append(contentsOf: String(value).utf8)
    }
}

extension HTTPRequestHead {
    /// The head as HTTP/1 bytes (see `HTTPSerializer` for what round-trips).
    public var serialized: [UInt8] {
        var out: [UInt8] = []
        HTTPSerializer.appendHead(self, to: &out)
        return out
    }
}

extension HTTPResponseHead {
    /// The head as HTTP/1 bytes (see `HTTPSerializer` for what round-trips).
    public var serialized: [UInt8] {
        var out: [UInt8] = []
        HTTPSerializer.appendHead(self, to: &out)
        return out
    }
}

import MouchardWire
import Testing

/// Framing ambiguities that let two parsers disagree on where a message ends (request smuggling):
/// every one must be a typed error, found the same way however the bytes are split.
@Suite struct HTTPSmugglingTests {
    func request(_ headers: String, body: String = "") -> [UInt8] {
        bytes("POST /x HTTP/1.1\r\nHost: h\r\n" + headers + "\r\n" + body)
    }

    func expectRejected(_ input: [UInt8], _ code: HTTPParseError.Code, sourceLocation: SourceLocation = #_sourceLocation) {
        let out = parseEverySplit(HTTPRequestParser(), input, sourceLocation: sourceLocation)
        #expect(out.error?.code == code, sourceLocation: sourceLocation)
        #expect(out.events.isEmpty, "no head may escape a rejected message", sourceLocation: sourceLocation)
    }

    @Test func contentLengthWithTransferEncoding() {
        expectRejected(request("Content-Length: 4\r\nTransfer-Encoding: chunked\r\n", body: "0\r\n\r\n"), .contentLengthWithTransferEncoding)
        expectRejected(request("Transfer-Encoding: chunked\r\nContent-Length: 0\r\n", body: "0\r\n\r\n"), .contentLengthWithTransferEncoding)
        let out = parseEverySplit(responseParser(), bytes("HTTP/1.1 200 OK\r\nContent-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\n"))
        #expect(out.error?.code == .contentLengthWithTransferEncoding)
    }

    @Test func duplicateContentLength() {
        expectRejected(request("Content-Length: 5\r\nContent-Length: 6\r\n", body: "hello!"), .conflictingContentLength)
        expectRejected(request("Content-Length: 5, 6\r\n", body: "hello!"), .conflictingContentLength)
        // Identical values are one value (RFC 9110 §8.6).
        for headers in ["Content-Length: 5\r\nContent-Length: 5\r\n", "Content-Length: 5, 5\r\n", "Content-Length: 5,5\r\n"] {
            let out = parseEverySplit(HTTPRequestParser(), request(headers, body: "hello"))
            #expect(out.error == nil)
            #expect(out.bodies == [bytes("hello")])
        }
    }

    @Test func invalidContentLengthValues() {
        for value in ["-1", "+5", "5a", "0x5", "", " ", "5,", ",5", "1 2", "5.0", "99999999999999999999", "9223372036854775808"] {
            expectRejected(request("Content-Length: \(value)\r\n"), .invalidContentLength)
        }
        // The largest value that fits is accepted (the body is then simply incomplete).
        let out = run(HTTPRequestParser(), [request("Content-Length: 9223372036854775807\r\n", body: "abc")[...]], finish: false)
        #expect(out.error == nil)
        #expect(out.bodies.isEmpty)
    }

    @Test func transferEncodingMustEndWithChunkedInRequests() {
        expectRejected(request("Transfer-Encoding: chunked, identity\r\n", body: "0\r\n\r\n"), .transferEncodingNotChunked)
        expectRejected(request("Transfer-Encoding: gzip\r\n"), .transferEncodingNotChunked)
        expectRejected(request("Transfer-Encoding: chunked\r\nTransfer-Encoding: identity\r\n"), .transferEncodingNotChunked)
        expectRejected(request("Transfer-Encoding: chunked, chunked\r\n"), .invalidTransferEncoding)
        expectRejected(request("Transfer-Encoding: \r\n"), .invalidTransferEncoding)
        expectRejected(request("Transfer-Encoding: chunk\u{e9}d\r\n"), .invalidTransferEncoding)
        expectRejected(request("Transfer-Encoding: \"chunked\"\r\n"), .invalidTransferEncoding)
        // Case and list whitespace do not matter; gzip then chunked is fine.
        for te in ["CHUNKED", "gzip, chunked", " chunked ", "gzip,chunked", "chunked,"] {
            let out = parseEverySplit(HTTPRequestParser(), request("Transfer-Encoding: \(te)\r\n", body: "1\r\nz\r\n0\r\n\r\n"))
            #expect(out.error == nil, "\(te)")
            #expect(out.bodies == [bytes("z")], "\(te)")
        }
    }

    @Test func severalHostFields() {
        expectRejected(bytes("GET / HTTP/1.1\r\nHost: a.example\r\nhost: b.example\r\n\r\n"), .multipleHostFields)
        let out = parseEverySplit(HTTPRequestParser(), bytes("GET / HTTP/1.1\r\nX-Host: a\r\nHost: b\r\nHosts: c\r\n\r\n"))
        #expect(out.error == nil)
    }

    @Test func whitespaceBeforeColonAndObsFold() {
        expectRejected(request("Content-Length : 5\r\n", body: "hello"), .whitespaceBeforeColon)
        expectRejected(request("Transfer-Encoding\t: chunked\r\n"), .whitespaceBeforeColon)
        expectRejected(request("X-A: 1\r\n folded\r\n"), .obsoleteLineFolding)
        expectRejected(request("X-A: 1\r\n\tfolded\r\n"), .obsoleteLineFolding)
        expectRejected(bytes("GET / HTTP/1.1\r\n Host: h\r\n\r\n"), .obsoleteLineFolding)
    }

    @Test func invalidFieldNamesAndValues() {
        expectRejected(request("X(A): 1\r\n"), .invalidFieldName)
        expectRejected(request(": 1\r\n"), .invalidFieldName)
        expectRejected(request("NoColon\r\n"), .invalidFieldName)
        expectRejected(request("X-\u{e9}: 1\r\n"), .invalidFieldName)
        expectRejected(request("X-A: a\u{0}b\r\n"), .invalidFieldValue)
        expectRejected(request("X-A: a\rb\r\n"), .invalidFieldValue)
        expectRejected(request("X-A: a\u{1b}b\r\n"), .invalidFieldValue)
        expectRejected(request("X-A: a\u{7f}\r\n"), .invalidFieldValue)
        expectRejected(bytes("GET / HTTP/1.1\r\nX-A: 1\r\r\n\r\n"), .invalidFieldValue)
    }

    @Test func invalidFieldValueOffsetPointsAtTheByte() {
        let input = bytes("GET / HTTP/1.1\r\nX-Long: 0123456789abcdef\u{0}\r\n\r\n")
        let out = parseEverySplit(HTTPRequestParser(), input)
        #expect(out.error == HTTPParseError(.invalidFieldValue, at: 16 + 24))
    }

    @Test func badChunkSizes() {
        for (size, code) in [
            ("-1", HTTPParseError.Code.invalidChunkSize), ("+1", .invalidChunkSize), ("0x1", .invalidChunkSize),
            (" 1", .invalidChunkSize), ("1 ", .invalidChunkSize), ("g", .invalidChunkSize), ("", .invalidChunkSize),
            ("1;a=\u{1}", .invalidChunkExtension),
            ("10000000000000000", .chunkSizeTooLarge), ("FFFFFFFFFFFFFFFFF", .chunkSizeTooLarge),
        ] {
            expectRejectedAfterHead(request("Transfer-Encoding: chunked\r\n", body: size + "\r\nx\r\n0\r\n\r\n"), code, "\(size)")
        }
        // Data longer than the announced size: the CRLF is missing.
        expectRejectedAfterHead(request("Transfer-Encoding: chunked\r\n", body: "2\r\nabc\r\n0\r\n\r\n"), .missingChunkTerminator, "long")
        expectRejectedAfterHead(request("Transfer-Encoding: chunked\r\n", body: "2\r\nab0\r\n\r\n"), .missingChunkTerminator, "missing")
    }

    func expectRejectedAfterHead(_ input: [UInt8], _ code: HTTPParseError.Code, _ label: String,
                                 sourceLocation: SourceLocation = #_sourceLocation) {
        let out = parseEverySplit(HTTPRequestParser(), input, sourceLocation: sourceLocation)
        #expect(out.error?.code == code, "\(label)", sourceLocation: sourceLocation)
        #expect(out.heads.count == 1, sourceLocation: sourceLocation)
        #expect(!out.events.contains(.end), sourceLocation: sourceLocation)
    }

    @Test func limits() {
        let limits = HTTPParserLimits(maxStartLineLength: 40, maxHeaderBytes: 64, maxHeaderCount: 3, maxChunkSizeLineLength: 8)
        func check(_ input: String, _ code: HTTPParseError.Code?, at offset: Int? = nil) {
            let out = parseEverySplit(HTTPRequestParser(limits: limits), bytes(input))
            #expect(out.error?.code == code, "\(input)")
            if let offset { #expect(out.error?.offset == offset, "\(input)") }
        }
        let target = String(repeating: "a", count: 26)
        check("GET /\(target) HTTP/1.1\r\n\r\n", nil)                   // 40 bytes exactly
        check("GET /\(target)a HTTP/1.1\r\n\r\n", .startLineTooLong, at: 40)
        check("GET /\(String(repeating: "a", count: 10_000)) HTTP/1.1\r\n\r\n", .startLineTooLong, at: 40)
        check("GET / HTTP/1.1\r\nA: 1\r\nB: 2\r\nC: 3\r\n\r\n", nil)
        check("GET / HTTP/1.1\r\nA: 1\r\nB: 2\r\nC: 3\r\nD: 4\r\n\r\n", .tooManyHeaders)
        let v = String(repeating: "v", count: 59)                      // "X: " + 59 + CRLF = 64 bytes
        check("GET / HTTP/1.1\r\nX: \(v)\r\n\r\n", nil)
        check("GET / HTTP/1.1\r\nX: \(v)v\r\n\r\n", .headersTooLarge)
        check("GET / HTTP/1.1\r\nX: \(String(repeating: "v", count: 100_000))\r\n\r\n", .headersTooLarge)
        check("POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n1;a=bcd\r\nx\r\n0\r\n\r\n", nil)
        check("POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n1;a=bcdef\r\nx\r\n0\r\n\r\n", .chunkSizeLineTooLong)
        // Trailers count against the header limits too.
        check("POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n0\r\nA: 1\r\nB: 2\r\nC: 3\r\nD: 4\r\n\r\n", .tooManyHeaders)
    }
}

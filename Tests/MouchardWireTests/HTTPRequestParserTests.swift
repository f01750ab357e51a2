import MouchardWire
import Testing

@Suite struct HTTPRequestParserTests {
    @Test func simpleGetKeepsHeaderOrderCaseAndDuplicates() {
        let input = bytes("GET /v2/forecast?lat=43.6&lon=1.44 HTTP/1.1\r\nHost: api.example\r\nX-Dup: a\r\nx-dup:  b \r\nCookie: c=1\r\n\r\n")
        let out = parseEverySplit(HTTPRequestParser(), input)
        #expect(out.error == nil)
        let head = HTTPRequestHead(method: "GET", target: "/v2/forecast?lat=43.6&lon=1.44", version: .http11,
                                   headers: [("Host", "api.example"), ("X-Dup", "a"), ("x-dup", "b"), ("Cookie", "c=1")])
        #expect(out.events == [.head(head), .end])
        #expect(out.heads.first?.headers.values(for: "X-DUP") == ["a", "b"])
    }

    @Test func contentLengthBody() {
        let input = bytes("POST /collect HTTP/1.1\r\nHost: t.example\r\nContent-Length: 13\r\n\r\n{\"idfa\":\"x\"}!")
        let out = parseEverySplit(HTTPRequestParser(), input)
        #expect(out.error == nil)
        #expect(out.bodies == [bytes("{\"idfa\":\"x\"}!")])
        #expect(out.events.last == .end)
    }

    @Test func chunkedBodyWithExtensionsAndTrailers() {
        let input = bytes("POST /up HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n"
            + "5;name=value\r\nhello\r\n6 ; x=\"q\"\r\n world\r\nA\r\n0123456789\r\n0\r\nX-Checksum: abc\r\nX-Other: 1\r\n\r\n")
        let out = parseEverySplit(HTTPRequestParser(), input)
        #expect(out.error == nil)
        #expect(out.bodies == [bytes("hello world0123456789")])
        #expect(out.events.contains(.trailers([("X-Checksum", "abc"), ("X-Other", "1")])))
        #expect(out.events.last == .end)
    }

    @Test func uppercaseAndZeroPaddedChunkSizes() {
        let input = bytes("POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n00B\r\nhello world\r\n000\r\n\r\n")
        let out = parseEverySplit(HTTPRequestParser(), input)
        #expect(out.error == nil)
        #expect(out.bodies == [bytes("hello world")])
    }

    @Test func pipelinedRequestsInOneBuffer() {
        let input = bytes("GET /a HTTP/1.1\r\nHost: h\r\n\r\n"
            + "POST /b HTTP/1.1\r\nHost: h\r\nContent-Length: 3\r\n\r\nabc"
            + "POST /c HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nxy\r\n0\r\n\r\n"
            + "\r\nDELETE /d HTTP/1.0\r\n\r\n")
        let out = parseEverySplit(HTTPRequestParser(), input)
        #expect(out.error == nil)
        #expect(out.heads.map(\.target) == ["/a", "/b", "/c", "/d"])
        #expect(out.heads.map(\.method) == ["GET", "POST", "POST", "DELETE"])
        #expect(out.heads.last?.version == .http10)
        #expect(out.bodies == [[], bytes("abc"), bytes("xy"), []])
    }

    @Test func requestTargetForms() {
        let input = bytes("GET http://api.example:8080/p?q=1 HTTP/1.1\r\n\r\nOPTIONS * HTTP/1.1\r\n\r\n"
            + "GET /x HTTP/1.1\r\n\r\nCONNECT api.example:443 HTTP/1.1\r\nHost: api.example:443\r\n\r\n")
        let out = parseEverySplit(HTTPRequestParser(), input)
        #expect(out.error == nil)
        #expect(out.heads.map(\.targetForm) == [.absolute, .asterisk, .origin, .authority])
        #expect(out.heads.map(\.target) == ["http://api.example:8080/p?q=1", "*", "/x", "api.example:443"])
    }

    @Test func connectSwitchesToTunnel() {
        let tls: [UInt8] = [0x16, 0x03, 0x01, 0x00, 0x05, 0x01, 0x00, 0x00, 0x01, 0x00]
        let input = bytes("CONNECT h.example:443 HTTP/1.1\r\nHost: h.example:443\r\n\r\n") + tls
        let out = parseEverySplit(HTTPRequestParser(), input)
        #expect(out.error == nil)
        #expect(out.events.count == 3)
        #expect(out.events.dropFirst().first == .end)
        #expect(out.events.last == .tunnel(tls))
    }

    @Test func badTargetsAreRejected() {
        for (line, code) in [
            ("CONNECT /path HTTP/1.1", HTTPParseError.Code.invalidRequestTarget),
            ("CONNECT host HTTP/1.1", .invalidRequestTarget),
            ("GET * HTTP/1.1", .invalidRequestTarget),
            ("GET a/b HTTP/1.1", .invalidRequestTarget),
            ("GET /a b HTTP/1.1", .invalidRequestTarget),
            ("GET  /a HTTP/1.1", .invalidRequestTarget),
            ("GET /a HTTP/1.1 ", .invalidRequestTarget),
            ("GET /a\u{7F} HTTP/1.1", .invalidRequestTarget),
            ("G(T /a HTTP/1.1", .invalidMethod),
            (" GET /a HTTP/1.1", .invalidMethod),
            ("GET /a HTTP/2.0", .unsupportedVersion),
            ("GET /a HTTP/1.10", .invalidVersion),
            ("GET /a http/1.1", .invalidVersion),
            ("GET", .invalidStartLine),
            ("GET /a", .invalidStartLine),
        ] {
            let out = parseEverySplit(HTTPRequestParser(), bytes(line + "\r\n\r\n"))
            #expect(out.error?.code == code, "\(line)")
            #expect(out.events.isEmpty, "\(line)")
        }
    }

    @Test func headerValuesKeepNonUTF8BytesAndTrimOWS() {
        let input: [UInt8] = bytes("GET / HTTP/1.1\r\nX-Name:\t ") + [0xE9, 0x74, 0xE9, 0x20, 0xFF] + bytes(" \t\r\n\r\n")
        let out = parseEverySplit(HTTPRequestParser(), input)
        #expect(out.error == nil)
        let field = out.heads.first?.headers.fields.first
        #expect(field?.valueBytes == [0xE9, 0x74, 0xE9, 0x20, 0xFF])
        #expect(field?.value == "été\u{20}\u{FF}")
    }

    @Test func nonASCIITargetsAndReasons() {
        let input = bytes("GET /caf\u{e9}?q=\u{1F600} HTTP/1.1\r\n\r\nGET /") + [0xE9, 0xFF] + bytes(" HTTP/1.1\r\n\r\n")
        let out = parseEverySplit(HTTPRequestParser(), input)
        #expect(out.heads.map(\.target) == ["/caf\u{e9}?q=\u{1F600}", "/\u{e9}\u{ff}"])
        let response = bytes("HTTP/1.1 200 D") + [0xE9, 0x6A, 0xE0] + bytes(" vu\r\nContent-Length: 0\r\n\r\n")
        #expect(parseEverySplit(HTTPResponseParser(), response).heads.map(\.reason) == ["D\u{e9}j\u{e0} vu"])
    }

    @Test func emptyHeaderValue() {
        let out = parseEverySplit(HTTPRequestParser(), bytes("GET / HTTP/1.1\r\nX-Empty:\r\nX-Space:   \r\n\r\n"))
        #expect(out.error == nil)
        #expect(out.heads.first?.headers.fields.map(\.valueBytes) == [[], []])
    }

    @Test func bareLineFeedIsRejectedByDefaultAndAcceptedOnRequest() {
        let input = bytes("GET / HTTP/1.1\nHost: h\n\nGET /2 HTTP/1.1\r\n\r\n")
        let strict = parseEverySplit(HTTPRequestParser(), input)
        #expect(strict.error == HTTPParseError(.bareLineFeed, at: 14))
        let lenient = parseEverySplit(HTTPRequestParser(lineEndings: .acceptBareLineFeed), input)
        #expect(lenient.error == nil)
        #expect(lenient.heads.map(\.target) == ["/", "/2"])
        #expect(lenient.heads.first?.headers["host"] == "h")
    }

    @Test func truncatedAtFinishKeepsEarlierMessages() {
        let input = bytes("GET /a HTTP/1.1\r\n\r\nPOST /b HTTP/1.1\r\nContent-Length: 10\r\n\r\nabc")
        let out = parseEverySplit(HTTPRequestParser(), input)
        #expect(out.error == HTTPParseError(.truncatedMessage, at: input.count))
        #expect(out.heads.map(\.target) == ["/a", "/b"])
        #expect(out.events.last == .body(bytes("abc")))

        var reader = HTTPMessageReader(parser: HTTPRequestParser())
        var messages: [HTTPParsedRequest] = []
        #expect(throws: HTTPParseError(.truncatedMessage, at: input.count)) {
            try reader.feed(input, into: &messages)
            try reader.finish(into: &messages)
        }
        #expect(messages.map(\.head.target) == ["/a"])
        #expect(reader.partial?.head.target == "/b")
        #expect(reader.partial?.body == bytes("abc"))
        #expect(reader.partial?.isComplete == false)
        #expect(reader.partial?.bodyTruncated == true)
    }

    @Test func truncatedInsideHeadAndChunked() {
        for input in ["GET / HTTP/1.1\r\nHost: h", "GET / HTT", "POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nab",
                      "POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n"] {
            let out = run(HTTPRequestParser(), [bytes(input)[...]])
            #expect(out.error?.code == .truncatedMessage, "\(input)")
        }
        // Nothing at all, or only blank lines between requests: a clean end.
        #expect(run(HTTPRequestParser(), [bytes("GET / HTTP/1.1\r\n\r\n\r\n")[...]]).error == nil)
        #expect(run(HTTPRequestParser(), []).error == nil)
    }

    @Test func errorIsStickyAndOffsetsCountFromStreamStart() throws {
        var p = HTTPRequestParser()
        var events: [HTTPRequestEvent] = []
        try p.feed(bytes("GET / HTTP/1.1\r\n\r\n"), into: &events)
        #expect(events.count == 2)
        #expect(p.bytesConsumed == 18)
        #expect(throws: HTTPParseError(.invalidFieldName, at: 34)) {
            try p.feed(bytes("GET / HTTP/1.1\r\n=bad\r\n\r\n"), into: &events)
        }
        #expect(throws: HTTPParseError(.invalidFieldName, at: 34)) {
            try p.feed(bytes("GET / HTTP/1.1\r\n\r\n"), into: &events)
        }
        #expect(throws: HTTPParseError(.invalidFieldName, at: 34)) { _ = try p.finish() }
    }

    @Test func dataAfterFinishIsAnError() throws {
        var p = HTTPRequestParser()
        _ = try p.finish()
        #expect(throws: HTTPParseError(.dataAfterEndOfStream, at: 0)) { _ = try p.feed(bytes("GET")) }
    }

    @Test func startTunnelAfterUpgrade() throws {
        var p = HTTPRequestParser()
        let events = try p.feed(bytes("GET /ws HTTP/1.1\r\nUpgrade: websocket\r\n\r\n") + [0x81])
        #expect(events.count == 2)
        #expect(p.startTunnel() == [0x81])
        #expect(try p.feed([1, 2, 3]) == [.tunnel([1, 2, 3])])
        #expect(try p.finish().isEmpty)
    }

    @Test func errorDescriptionIsOneLine() {
        let e = HTTPParseError(.conflictingContentLength, at: 42)
        #expect(e.description == "HTTP/1 conflicting-content-length at byte 42: several Content-Length values differ")
        for code in HTTPParseError.Code.allCases {
            #expect(!HTTPParseError(code, at: 0).description.contains("\n"))
        }
    }
}

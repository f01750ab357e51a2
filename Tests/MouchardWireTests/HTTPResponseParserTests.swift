import MouchardWire
import Testing

@Suite struct HTTPResponseParserTests {
    @Test func statusLineReasonAndBody() {
        let input = bytes("HTTP/1.1 404 Not Found\r\nContent-Length: 2\r\n\r\nnoHTTP/1.0 200 OK\r\nContent-Length: 0\r\n\r\n")
        let out = parseEverySplit(responseParser(expecting: ["GET", "GET"]), input)
        #expect(out.error == nil)
        #expect(out.heads.map(\.status) == [404, 200])
        #expect(out.heads.map(\.reason) == ["Not Found", "OK"])
        #expect(out.heads.map(\.version) == [.http11, .http10])
        #expect(out.bodies == [bytes("no"), []])
    }

    @Test func statusLineWithoutReason() {
        let out = parseEverySplit(responseParser(), bytes("HTTP/1.1 204\r\n\r\nHTTP/1.1 200 \r\nContent-Length: 1\r\n\r\nx"))
        #expect(out.error == nil)
        #expect(out.heads.map(\.status) == [204, 200])
        #expect(out.heads.map(\.reason) == ["", ""])
    }

    @Test func badStatusLines() {
        for (line, code) in [
            ("HTTP/1.1 20 OK", HTTPParseError.Code.invalidStatusCode),
            ("HTTP/1.1 099 Low", .invalidStatusCode),
            ("HTTP/1.1 2000 OK", .invalidStatusCode),
            ("HTTP/1.1 abc OK", .invalidStatusCode),
            ("HTTP/1.1  200 OK", .invalidStatusCode),
            ("HTTP/1.1\t200 OK", .invalidStartLine),
            ("HTTP/3.0 200 OK", .unsupportedVersion),
            ("HTTP/1.1 200 O\u{1}K", .invalidReasonPhrase),
            ("ICY 200 OK", .invalidVersion),
        ] {
            let out = parseEverySplit(responseParser(), bytes(line + "\r\n\r\n"))
            #expect(out.error?.code == code, "\(line)")
        }
    }

    @Test func headResponseHasNoBodyDespiteContentLength() {
        let input = bytes("HTTP/1.1 200 OK\r\nContent-Length: 1234\r\n\r\nHTTP/1.1 200 OK\r\nContent-Length: 3\r\n\r\nabc")
        let out = parseEverySplit(responseParser(expecting: ["HEAD", "GET"]), input)
        #expect(out.error == nil)
        #expect(out.bodies == [[], bytes("abc")])
        #expect(out.heads.first?.headers["Content-Length"] == "1234")
    }

    @Test func noBodyFor204And304() {
        let input = bytes("HTTP/1.1 204 No Content\r\nContent-Length: 5\r\n\r\n"
            + "HTTP/1.1 304 Not Modified\r\nTransfer-Encoding: chunked\r\n\r\n"
            + "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok")
        let out = parseEverySplit(responseParser(expecting: ["GET", "GET", "GET"]), input)
        #expect(out.error == nil)
        #expect(out.heads.map(\.status) == [204, 304, 200])
        #expect(out.bodies == [[], [], bytes("ok")])
    }

    @Test func interimResponsesBeforeFinal() throws {
        let input = bytes("HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 103 Early Hints\r\nLink: </s.css>; rel=preload\r\n\r\n"
            + "HTTP/1.1 201 Created\r\nContent-Length: 4\r\n\r\ndoneHTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n")
        let out = parseEverySplit(responseParser(expecting: ["POST", "HEAD"]), input)
        #expect(out.error == nil)
        guard out.events.count >= 2 else { Issue.record("too few events"); return }
        #expect(out.events[0] == .informational(HTTPResponseHead(status: 100, reason: "Continue")))
        #expect(out.events[1] == .informational(HTTPResponseHead(status: 103, reason: "Early Hints",
                                                                 headers: [("Link", "</s.css>; rel=preload")])))
        #expect(out.heads.map(\.status) == [201, 200])
        #expect(out.bodies == [bytes("done"), []])

        let messages = try HTTPMessageReader.messages(in: input, parser: responseParser(expecting: ["POST", "HEAD"]))
        #expect(messages.count == 2)
        #expect(messages.first?.informational.map(\.status) == [100, 103])
        #expect(messages.first?.body == bytes("done"))
    }

    @Test func untilCloseBodyEndsAtFinish() {
        let input = bytes("HTTP/1.0 200 OK\r\nContent-Type: text/plain\r\n\r\nall of this until the close\r\n\r\nHTTP/1.1 200 OK\r\n")
        let unfinished = parseEverySplit(responseParser(), input, finish: false)
        #expect(unfinished.error == nil)
        #expect(unfinished.events.last != .end)
        let out = parseEverySplit(responseParser(), input)
        #expect(out.error == nil)
        #expect(out.bodies == [bytes("all of this until the close\r\n\r\nHTTP/1.1 200 OK\r\n")])
    }

    @Test func nonChunkedTransferCodingMeansUntilClose() {
        let input = bytes("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked, identity\r\n\r\n3\r\nabc\r\n0\r\n\r\n")
        let out = parseEverySplit(responseParser(), input)
        #expect(out.error == nil)
        #expect(out.bodies == [bytes("3\r\nabc\r\n0\r\n\r\n")])
    }

    @Test func connectSuccessStartsTunnelFailureDoesNot() {
        let input = bytes("HTTP/1.1 407 Proxy Authentication Required\r\nContent-Length: 3\r\n\r\nno!"
            + "HTTP/1.1 200 Connection established\r\n\r\n") + [0x16, 0x03, 0x03]
        let out = parseEverySplit(responseParser(expecting: ["CONNECT", "CONNECT"]), input)
        #expect(out.error == nil)
        #expect(out.heads.map(\.status) == [407, 200])
        #expect(out.bodies == [bytes("no!"), []])
        #expect(out.events.last == .tunnel([0x16, 0x03, 0x03]))
    }

    @Test func switchingProtocolsStartsTunnel() {
        let input = bytes("HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\n\r\n") + [0x81, 0x00]
        let out = parseEverySplit(responseParser(expecting: ["GET"]), input)
        #expect(out.error == nil)
        #expect(out.heads.map(\.status) == [101])
        #expect(out.events.last == .tunnel([0x81, 0x00]))
    }

    @Test func pendingMethodQueue() throws {
        var p = responseParser(expecting: ["GET", "HEAD", "GET"])
        #expect(p.pendingRequestCount == 3)
        let events = try p.feed(bytes("HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200 OK\r\nContent-Length: 1\r\n\r\nx"
            + "HTTP/1.1 200 OK\r\nContent-Length: 9\r\n\r\n"))
        #expect(events.filter { $0 == .end }.count == 2)
        #expect(p.pendingRequestCount == 1)
    }

    @Test func chunkedResponseWithTrailersThroughReader() throws {
        let input = bytes("HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip, chunked\r\n\r\n4\r\nabcd\r\n0\r\nServer-Timing: db;dur=53\r\n\r\n")
        let messages = try HTTPMessageReader.messages(in: input, parser: responseParser())
        #expect(messages.count == 1)
        #expect(messages.first?.body == bytes("abcd"))
        #expect(messages.first?.trailers == [("Server-Timing", "db;dur=53")])
    }

    @Test func readerCapsBodyAndMarksTruncation() throws {
        let body = [UInt8](repeating: 0x61, count: 1000)
        let input = bytes("HTTP/1.1 200 OK\r\nContent-Length: 1000\r\n\r\n") + body
            + bytes("HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\n0123456789")
        var reader = HTTPMessageReader(parser: responseParser(), bodyLimit: 100)
        var messages: [HTTPParsedResponse] = []
        var i = 0
        while i < input.count {
            try reader.feed(input[i..<min(input.count, i + 7)], into: &messages)
            i += 7
        }
        try reader.finish(into: &messages)
        #expect(messages.count == 2)
        #expect(messages.first?.body == Array(body.prefix(100)))
        #expect(messages.first?.bodyLength == 1000)
        #expect(messages.first?.bodyTruncated == true)
        #expect(messages.last?.body == bytes("0123456789"))
        #expect(messages.last?.bodyTruncated == false)
    }
}

@Suite struct HTTPMessageReaderTests {
    @Test func faultMidBodyKeepsWhatWasDecoded() throws {
        let input = bytes("HTTP/1.1 200 OK\r\nContent-Length: 1\r\n\r\nx"
            + "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n4\r\nidfa\r\nzz\r\n")
        var reader = HTTPMessageReader(parser: responseParser())
        var messages: [HTTPParsedResponse] = []
        #expect(throws: HTTPParseError(.invalidChunkSize, at: input.count - 4)) { try reader.feed(input, into: &messages) }
        #expect(messages.map(\.body) == [bytes("x")])
        let partial = try #require(reader.partial)
        #expect(partial.body == bytes("idfa"))
        #expect(!partial.isComplete)
        #expect(partial.bodyTruncated)
    }
}

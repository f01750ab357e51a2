import MouchardWire
import Testing

@Suite struct HTTPSerializerTests {
    @Test func requestsRoundTripByteForByte() throws {
        let input = bytes("POST /api/v1/events?sdk=4.2&idfa=AB-CD HTTP/1.1\r\nHost: t.example\r\nUser-Agent: App/1.0 CFNetwork\r\n"
            + "Content-Type: application/json\r\nContent-Length: 17\r\nX-Empty: \r\ncookie: a=1; b=2\r\nCookie: c=3\r\n\r\n{\"lat\":43.604652}"
            + "GET http://h.example/x HTTP/1.0\r\n\r\n"
            + "PUT /c HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n0\r\nX-T: 1\r\n\r\n"
            + "CONNECT h.example:443 HTTP/1.1\r\nHost: h.example:443\r\n\r\n")
        let messages = try HTTPMessageReader.messages(in: input, parser: HTTPRequestParser())
        #expect(messages.count == 4)
        #expect(serialized(messages) == input)
    }

    @Test func responsesRoundTripIncludingInterimAndNonUTF8Values() throws {
        let input = bytes("HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200 OK\r\nSet-Cookie: id=")
            + [0xC0, 0xFF, 0x80] + bytes("; Path=/\r\nContent-Length: 2\r\n\r\nok"
            + "HTTP/1.1 204 \r\nServer: x\r\n\r\nHTTP/1.1 404 Not Found\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nnop\r\n0\r\n\r\n")
        let messages = try HTTPMessageReader.messages(in: input, parser: responseParser(expecting: ["POST", "GET", "GET"]))
        #expect(messages.count == 3)
        #expect(messages.first?.head.headers.fields.first?.valueBytes == [0x69, 0x64, 0x3D, 0xC0, 0xFF, 0x80, 0x3B, 0x20, 0x50, 0x61, 0x74, 0x68, 0x3D, 0x2F])
        #expect(serialized(messages) == input)
    }

    @Test func optionalWhitespaceIsNormalized() throws {
        let input = bytes("GET / HTTP/1.1\r\nHost:h\r\nX-A:  spaced  \r\n\r\n")
        let messages = try HTTPMessageReader.messages(in: input, parser: HTTPRequestParser())
        let head = try #require(messages.first?.head)
        #expect(head.serialized == bytes("GET / HTTP/1.1\r\nHost: h\r\nX-A: spaced\r\n\r\n"))
    }

    @Test func multiChunkBodyIsReframedAsOneChunk() throws {
        let input = bytes("POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n2;x=y\r\nab\r\n1\r\nc\r\n0\r\n\r\n")
        let messages = try HTTPMessageReader.messages(in: input, parser: HTTPRequestParser())
        #expect(serialized(messages) == bytes("POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n0\r\n\r\n"))
    }

    @Test func chunkedEncoderOutputParsesBack() throws {
        var body: [UInt8] = []
        for i in 0..<70_000 { body.append(UInt8(truncatingIfNeeded: i &* 31)) }
        let encoded = HTTPChunkedEncoder.encode(body, chunkSize: 4096, trailers: [("X-Sum", "42")])
        #expect(encoded.starts(with: bytes("1000\r\n")))
        #expect(Array(encoded.suffix(16)) == bytes("0\r\nX-Sum: 42\r\n\r\n"))
        let head = HTTPRequestHead(method: "POST", target: "/u", headers: [("Transfer-Encoding", "chunked")])
        let messages = try HTTPMessageReader.messages(in: head.serialized + encoded, parser: HTTPRequestParser())
        #expect(messages.first?.body == body)
        #expect(messages.first?.trailers == [("X-Sum", "42")])
        var single: [UInt8] = []
        HTTPChunkedEncoder.appendChunk(bytes("x"), to: &single)
        HTTPChunkedEncoder.appendChunk([], to: &single)
        HTTPChunkedEncoder.appendChunk([UInt8](repeating: 0, count: 255), to: &single)
        #expect(single.prefix(6) == bytes("1\r\nx\r\n")[...])
        #expect(single[6..<10] == bytes("ff\r\n")[...])
    }

    @Test func framingFromHeads() throws {
        #expect(try HTTPBodyFraming(request: HTTPRequestHead(method: "GET", target: "/")) == .none)
        #expect(try HTTPBodyFraming(request: HTTPRequestHead(method: "POST", target: "/", headers: [("Content-Length", "12")])) == .contentLength(12))
        #expect(try HTTPBodyFraming(request: HTTPRequestHead(method: "CONNECT", target: "h:443")) == .tunnel)
        #expect(try HTTPBodyFraming(response: HTTPResponseHead(status: 200)) == .untilClose)
        #expect(try HTTPBodyFraming(response: HTTPResponseHead(status: 200, headers: [("Content-Length", "3")]), requestMethod: "HEAD") == .none)
        #expect(throws: HTTPParseError(.conflictingContentLength, at: 7)) {
            try HTTPBodyFraming(request: HTTPRequestHead(method: "POST", target: "/", headers: [("Content-Length", "1"), ("content-length", "2")]), streamOffset: 7)
        }
    }
}

@Suite struct HTTPBodyEncoderTests {
    /// What a proxy does: parse a request as a stream, forward head and body pieces re-framed as the
    /// head declares, and get an equivalent request on the other side.
    @Test func streamingForwardOfChunkedAndLengthBodies() throws {
        let input = bytes("POST /a HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n2;x\r\nde\r\n0\r\nT: 1\r\n\r\n"
            + "POST /b HTTP/1.1\r\nContent-Length: 4\r\n\r\nwxyz")
        var parser = HTTPRequestParser()
        var forwarded: [UInt8] = []
        var encoder = HTTPBodyEncoder(framing: .none)
        var trailers = HTTPHeaders()
        for piece in stride(from: 0, to: input.count, by: 5).map({ input[$0..<min(input.count, $0 + 5)] }) {
            for event in try parser.feed(piece) {
                switch event {
                case .head(let head):
                    encoder = HTTPBodyEncoder(framing: try HTTPBodyFraming(request: head))
                    HTTPSerializer.appendHead(head, to: &forwarded)
                case .body(let b): encoder.appendBody(b, to: &forwarded)
                case .trailers(let t): trailers = t
                case .end:
                    encoder.appendEnd(trailers: trailers, to: &forwarded)
                    trailers = []
                default: break
                }
            }
        }
        let original = try HTTPMessageReader.messages(in: input, parser: HTTPRequestParser())
        let received = try HTTPMessageReader.messages(in: forwarded, parser: HTTPRequestParser())
        #expect(received == original)
        #expect(received.map(\.body) == [bytes("abcde"), bytes("wxyz")])
        #expect(received.first?.trailers == [("T", "1")])
    }
}

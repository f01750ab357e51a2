import MouchardTestSupport
import Testing
import MouchardWire

/// `HTTPMessageReader(keepsWireBytes: true)` gives each message its bytes exactly as they arrived,
/// and `HTTPSerializer.appendAsReceived` writes them back byte for byte, whatever the spacing,
/// chunk framing or trailers, and however the stream was split.
@Suite struct HTTPWireBytesTests {
    static let requests: [String] = [
        "GET /a?x=1 HTTP/1.1\r\nHost: t.example\r\nX-Spaced:    value with  inner  spaces   \r\nX-Dup: 1\r\nx-dup: 2\r\n\r\n",
        "POST /chunked HTTP/1.1\r\nHost: t.example\r\nTransfer-Encoding: chunked\r\n\r\n"
            + "5;ext=\"a b\"\r\nhello\r\n0000B\r\n, world ...\r\n0\r\nX-Trailer: t\r\n\r\n",
        "PUT /len HTTP/1.1\r\nHost: t.example\r\nContent-Length: 10\r\n\r\n0123456789",
        "POST /empty-chunked HTTP/1.1\r\nHost: t.example\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n",
    ]

    /// Reads `stream` fed in pieces cut at `cuts`, with wire bytes kept.
    func read<P: HTTPMessageParsing>(_ stream: [UInt8], parser: P, cuts: [Int], bodyLimit: Int = 1 << 20)
        throws -> (messages: [HTTPParsedMessage<P.Head>], reader: HTTPMessageReader<P>) {
        var reader = HTTPMessageReader(parser: parser, bodyLimit: bodyLimit, keepsWireBytes: true)
        var out: [HTTPParsedMessage<P.Head>] = []
        var start = 0
        for cut in (cuts + [stream.count]).sorted() where cut >= start && cut <= stream.count {
            try reader.feed(stream[start..<cut], into: &out)
            start = cut
        }
        try reader.finish(into: &out)
        return (out, reader)
    }

    @Test func pipelinedRequestsComeBackByteForByteWhateverTheSplit() throws {
        let pieces = Self.requests.map { Array($0.utf8) }
        // Blank lines before a request line are allowed and belong to no message.
        let stream = pieces[0] + Array("\r\n\r\n".utf8) + pieces[1] + pieces[2] + pieces[3]
        var rng = SplitMix64(seed: 7)
        for round in 0..<200 {
            let cuts = round == 0 ? [] : (0..<Int(rng.below(12))).map { _ in Int(rng.below(stream.count + 1)) }
            let (messages, reader) = try read(stream, parser: HTTPRequestParser(), cuts: cuts)
            #expect(messages.map(\.wireBytes) == pieces.map { Optional($0) }, "cuts \(cuts)")
            var written: [UInt8] = []
            for m in messages { HTTPSerializer.appendAsReceived(m, to: &written) }
            #expect(written == pieces.joined().map { $0 })
            #expect(reader.retainedWireByteCount == 0)
        }
        // The model-based serializer does not keep the spacing or the chunk framing: this is what
        // the wire bytes are for.
        let (messages, _) = try read(stream, parser: HTTPRequestParser(), cuts: [])
        var reframed: [UInt8] = []
        HTTPSerializer.appendMessage(messages[1], to: &reframed)
        #expect(reframed != pieces[1])
        #expect(messages[1].body == Array("hello, world ...".utf8))
    }

    @Test func responsesKeepInterimHeadsAndUntilCloseBodies() throws {
        var parser = HTTPResponseParser()
        parser.expectResponse(to: "POST")
        parser.expectResponse(to: "GET")
        let first = Array("HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok".utf8)
        let second = Array("HTTP/1.0 200 OK\r\nServer:  old \r\n\r\nuntil the end".utf8)
        let (messages, _) = try read(first + second, parser: parser, cuts: [3, 30, 60])
        #expect(messages.count == 2)
        #expect(messages[0].informational.count == 1)
        #expect(messages[0].wireBytes == first)
        #expect(messages[1].wireBytes == second)
    }

    @Test func aTunnelIsNotKeptAndABigBodyIsBounded() throws {
        let connect = Array("CONNECT t.example:443 HTTP/1.1\r\nHost: t.example:443\r\n\r\n".utf8)
        let tunnel = [UInt8](repeating: 0x16, count: 300_000)
        let (messages, reader) = try read(connect + tunnel, parser: HTTPRequestParser(), cuts: [10, connect.count + 5, 100_000])
        #expect(messages.first?.wireBytes == connect)
        #expect(reader.retainedWireByteCount == 0)

        // A 3 MB body over a 1,000-byte body limit: the message has no wire bytes and the reader
        // never held much more than the limit plus its slack for heads.
        let head = Array("POST /up HTTP/1.1\r\nHost: t.example\r\nContent-Length: 3000000\r\n\r\n".utf8)
        var reader2 = HTTPMessageReader(parser: HTTPRequestParser(), bodyLimit: 1000, keepsWireBytes: true)
        var out: [HTTPParsedRequest] = []
        try reader2.feed(head, into: &out)
        var peak = 0
        let chunk = [UInt8](repeating: 0x61, count: 64 * 1024)
        var sent = 0
        while sent < 3_000_000 {
            let n = min(chunk.count, 3_000_000 - sent)
            try reader2.feed(chunk[0..<n], into: &out)
            sent += n
            peak = max(peak, reader2.retainedWireByteCount)
        }
        #expect(out.count == 1)
        #expect(out[0].bodyTruncated)
        #expect(out[0].wireBytes == nil)
        #expect(peak <= 1000 + (1 << 20))
    }

    @Test func afterAGapOnlyTheNextWholeMessageIsKept() throws {
        var reader = HTTPMessageReader(parser: HTTPRequestParser(), keepsWireBytes: true)
        var out: [HTTPParsedRequest] = []
        try reader.feed(Array("POST /lost HTTP/1.1\r\nContent-Length: 100\r\n\r\nabc".utf8), into: &out)
        let lost = reader.resynchronize()
        #expect(lost?.wireBytes == nil)
        let next = Array("GET /next HTTP/1.1\r\nHost: t.example\r\n\r\n".utf8)
        try reader.feed(Array("tail of something\r\n".utf8) + next, into: &out)
        #expect(out.map(\.wireBytes) == [next])
    }
}

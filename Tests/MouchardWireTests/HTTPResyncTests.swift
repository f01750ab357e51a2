import MouchardWire
import Testing

/// Finding the next message in a stream that starts mid-connection or has a gap (the sniffer).
@Suite struct HTTPResyncTests {
    func resyncing<P: HTTPMessageParsing>(_ parser: P, _ resync: (inout P) -> Void) -> P {
        var p = parser
        resync(&p)
        return p
    }

    @Test func responseStreamStartingMidBody() {
        let input = bytes("dy of a response we missed\r\n{\"a\":1}HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok"
            + "HTTP/1.1 204 No Content\r\n\r\n")
        let out = parseEverySplit(resyncing(HTTPResponseParser()) { $0.resynchronize() }, input)
        #expect(out.error == nil)
        #expect(out.heads.map(\.status) == [200, 204])
        #expect(out.bodies == [bytes("ok"), []])
    }

    @Test func requestStreamStartingMidLineAndMidBody() {
        let input = bytes("ost: lost.example\r\n\r\nname=x&b=2POST /next HTTP/1.1\r\nHost: h\r\nContent-Length: 3\r\n\r\nabc"
            + "GET /after HTTP/1.1\r\n\r\n")
        let out = parseEverySplit(resyncing(HTTPRequestParser()) { $0.resynchronize() }, input)
        #expect(out.error == nil)
        #expect(out.heads.map(\.target) == ["/next", "/after"])
        #expect(out.bodies == [bytes("abc"), []])
    }

    @Test func longGarbageLinesAreSkippedNotBuffered() {
        let limits = HTTPParserLimits(maxStartLineLength: 64)
        let input = [UInt8](repeating: 0x7A, count: 5000) + bytes("\r\n") + [UInt8](repeating: 0x0A, count: 3)
            + bytes("GET /x HTTP/1.1\r\n\r\n")
        let out = parseEverySplit(resyncing(HTTPRequestParser(limits: limits)) { $0.resynchronize() }, input)
        #expect(out.error == nil)
        #expect(out.heads.map(\.target) == ["/x"])
    }

    @Test func endOfStreamWhileSearchingIsClean() throws {
        var p = HTTPRequestParser()
        p.resynchronize()
        #expect(try p.feed(bytes("garbage without a message\r\npartial line")).isEmpty)
        #expect(try p.finish().isEmpty)
    }

    @Test func bytesFedWhileFailedStillCount() throws {
        var p = HTTPResponseParser()
        #expect(throws: HTTPParseError(.invalidVersion, at: 0)) { try p.feed(bytes("NOPE\r\n")) }
        #expect(throws: HTTPParseError(.invalidVersion, at: 0)) { try p.feed(bytes("more")) }
        p.resynchronize()
        var events: [HTTPResponseEvent] = []
        // Start lines that do not parse are skipped; the first that does starts a message.
        #expect(throws: HTTPParseError(.whitespaceBeforeColon, at: 10 + 18 + 18 + 3)) {
            try p.feed(bytes("HTTP/1.1 2000 OK\r\nxHTTP/1.1 200 OK\r\nBad Header\r\n\r\n"), into: &events)
        }
        #expect(events.isEmpty)
    }

    @Test func afterAFaultOrAGapParsingResumes() throws {
        var reader = HTTPMessageReader(parser: HTTPResponseParser())
        var messages: [HTTPParsedResponse] = []
        let first = bytes("HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\n01234")
        try reader.feed(first, into: &messages)
        // A gap: the rest of that body was never captured.
        let interrupted = reader.resynchronize()
        #expect(interrupted?.body == bytes("01234"))
        #expect(interrupted?.bodyLength == 5)
        #expect(interrupted?.isComplete == false)
        #expect(reader.partial == nil)
        let second = bytes("HTTP/1.1 404 Not Found\r\nContent-Length: 1\r\n\r\nx")
        try reader.feed(second, into: &messages)
        #expect(messages.map(\.head.status) == [404])
        // A fault, then resync: offsets still count every byte fed.
        #expect(throws: HTTPParseError(.invalidStatusCode, at: first.count + second.count + 9)) {
            try reader.feed(bytes("HTTP/1.1 2x0 ??\r\n\r\n"), into: &messages)
        }
        #expect(reader.resynchronize() == nil)
        try reader.feed(bytes("HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n"), into: &messages)
        #expect(reader.parser.bytesConsumed == first.count + second.count + 19 + 38)
        #expect(messages.map(\.head.status) == [404, 200])
    }
}

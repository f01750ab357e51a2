import Foundation
import MouchardTestSupport
import MouchardWire
import Testing

/// Everything a parser said about a stream, data pieces merged so that different splits compare equal.
struct WebSocketOutcome: Equatable {
    var events: [WebSocketStreamParser.Event] = []
    var error: WebSocketProtocolError?

    mutating func append(_ new: [WebSocketStreamParser.Event]) {
        for e in new {
            if case .messageData(let b) = e, case .messageData(let a)? = events.last {
                events[events.count - 1] = .messageData(a + b)
            } else {
                events.append(e)
            }
        }
    }

    /// Feeds `stream` in pieces cut at `cuts`.
    static func parse(_ stream: [UInt8], sender: WebSocketStreamParser.Sender, deflate: Bool = false,
                      maxFrameLength: UInt64 = WebSocketStreamParser.defaultMaxFrameLength, cuts: [Int] = []) -> WebSocketOutcome {
        var parser = WebSocketStreamParser(sender: sender, allowsCompression: deflate, maxFrameLength: maxFrameLength)
        var out = WebSocketOutcome()
        var start = 0
        for end in (cuts.filter { $0 > 0 && $0 < stream.count }.sorted() + [stream.count]) where end >= start {
            out.append(parser.feed(stream[start..<end]))
            if let e = parser.failure {
                out.error = e
                return out
            }
            start = end
        }
        return out
    }
}

let testMask: (UInt8, UInt8, UInt8, UInt8) = (0x37, 0xFA, 0x21, 0x3D)

@Suite struct WebSocketStreamParserTests {
    @Test func maskedClientTextIsUnmasked() throws {
        let frame = WebSocketFrameWriter.frame(opcode: .text, payload: Array("{\"lat\":48.85}".utf8), mask: testMask)
        #expect(frame[1] & 0x80 != 0)
        let out = WebSocketOutcome.parse(frame, sender: .client)
        #expect(out.error == nil)
        #expect(out.events == [.messageStart(.text, compressed: false), .messageData(Array("{\"lat\":48.85}".utf8)), .messageEnd])
    }

    @Test func fragmentedMessageWithInterleavedPingAndEveryLengthForm() throws {
        // 7-bit, 16-bit and 64-bit lengths in one fragmented binary message, a ping between fragments.
        let a = [UInt8](repeating: 0x41, count: 100), b = [UInt8](repeating: 0x42, count: 300), c = [UInt8](repeating: 0x43, count: 70_000)
        var stream = WebSocketFrameWriter.frame(opcode: .binary, payload: a, fin: false)
        stream += WebSocketFrameWriter.frame(opcode: .ping, payload: Array("hi".utf8))
        stream += WebSocketFrameWriter.frame(opcode: .continuation, payload: b, fin: false)
        stream += WebSocketFrameWriter.frame(opcode: .continuation, payload: c, fin: true)
        stream += WebSocketFrameWriter.close(code: 1000, reason: "bye")
        let whole = WebSocketOutcome.parse(stream, sender: .server)
        #expect(whole.error == nil)
        #expect(whole.events == [
            .messageStart(.binary, compressed: false), .messageData(a), .control(.ping, Array("hi".utf8)), .messageData(b + c), .messageEnd,
            .control(.close, [0x03, 0xE8] + Array("bye".utf8)),
        ])
        // Byte by byte, and at random cuts, the parser says the same.
        #expect(WebSocketOutcome.parse(stream, sender: .server, cuts: Array(0..<400)) == whole)
        var rng = SplitMix64(seed: 7)
        for _ in 0..<20 {
            let cuts = (0..<5).map { _ in rng.below(stream.count) }
            #expect(WebSocketOutcome.parse(stream, sender: .server, cuts: cuts) == whole)
        }
    }

    @Test func lengthOf2To63IsAProtocolError() throws {
        // A text frame claiming 2^63 bytes: its top length bit is set, which RFC 6455 forbids.
        var frame: [UInt8] = [0x81, 0xFF, 0x80, 0, 0, 0, 0, 0, 0, 0] + [1, 2, 3, 4]
        frame += [0x41, 0x42]
        let ok = WebSocketFrameWriter.frame(opcode: .text, payload: Array("first".utf8), mask: testMask)
        let out = WebSocketOutcome.parse(ok + frame, sender: .client)
        #expect(out.events == [.messageStart(.text, compressed: false), .messageData(Array("first".utf8)), .messageEnd])
        let error = try #require(out.error)
        #expect(error.closeCode == WebSocketCloseCode.protocolError)
        #expect(error.offset == UInt64(ok.count))
        #expect(error.reason.contains("most significant bit"))
    }

    @Test func frameOverTheLimitIsTooBig() throws {
        // 2^40 bytes claimed: valid framing, over the limit → 1009, before any payload is held.
        let frame: [UInt8] = [0x82, 0x7F, 0, 0, 0x01, 0, 0, 0, 0, 0, 9, 9]
        let out = WebSocketOutcome.parse(frame, sender: .server)
        #expect(out.error?.closeCode == WebSocketCloseCode.messageTooBig)
        #expect(out.error?.offset == 0)
        #expect(out.events.isEmpty)
        let small = WebSocketOutcome.parse(WebSocketFrameWriter.frame(opcode: .binary, payload: [UInt8](repeating: 1, count: 200)),
                                           sender: .server, maxFrameLength: 100)
        #expect(small.error?.closeCode == WebSocketCloseCode.messageTooBig)
    }

    @Test(arguments: [
        ("client frame without mask", WebSocketFrameWriter.frame(opcode: .text, payload: [0x61]), WebSocketStreamParser.Sender.client),
        ("server frame with mask", WebSocketFrameWriter.frame(opcode: .text, payload: [0x61], mask: testMask), .server),
        ("reserved opcode", [0x83, 0x00], .server),
        ("reserved control opcode", [0x8B, 0x00], .server),
        ("RSV1 without permessage-deflate", [0xC1, 0x01, 0x61], .server),
        ("RSV2", [0xA1, 0x01, 0x61], .server),
        ("fragmented ping", [0x09, 0x00], .server),
        ("control frame of 126 bytes", [0x89, 0x7E, 0x00, 0x7E] + [UInt8](repeating: 0, count: 126), .server),
        ("continuation without a message", [0x80, 0x00], .server),
        ("new message inside a fragmented one", [0x01, 0x01, 0x61, 0x81, 0x01, 0x62], .server),
        ("close with one byte", [0x88, 0x01, 0x03], .server),
    ] as [(String, [UInt8], WebSocketStreamParser.Sender)])
    func brokenRulesAreProtocolErrors(_ what: String, _ stream: [UInt8], _ sender: WebSocketStreamParser.Sender) throws {
        let out = WebSocketOutcome.parse(stream, sender: sender)
        let error = try #require(out.error, "\(what)")
        #expect(error.closeCode == WebSocketCloseCode.protocolError, "\(what)")
        #expect(error.offset <= UInt64(stream.count))
    }

    @Test func compressedBitIsReadWhenNegotiated() {
        let out = WebSocketOutcome.parse([0xC1, 0x02, 0x01, 0x02], sender: .server, deflate: true)
        #expect(out.error == nil)
        #expect(out.events.first == .messageStart(.text, compressed: true))
        // Never on a continuation or a control frame.
        #expect(WebSocketOutcome.parse([0x41, 0x01, 0x01, 0xC0, 0x01, 0x02], sender: .server, deflate: true).error != nil)
        #expect(WebSocketOutcome.parse([0xC9, 0x00], sender: .server, deflate: true).error != nil)
    }

    @Test func bytesAfterCloseAreCountedNotParsed() throws {
        var parser = WebSocketStreamParser(sender: .server)
        let events = parser.feed((WebSocketFrameWriter.close(code: 1001, reason: "") + [0xFF, 0xFF, 0xFF])[...])
        #expect(events == [.control(.close, [0x03, 0xE9])])
        #expect(parser.isClosed)
        #expect(parser.bytesAfterClose == 3)
        #expect(WebSocketClose(payload: [0x03, 0xE9, 0x68, 0x69]) == WebSocketClose(code: 1001, reason: "hi"))
    }

    @Test func anErrorSticks() throws {
        var parser = WebSocketStreamParser(sender: .client)
        #expect(parser.feed([0x81, 0x01, 0x61][...]).isEmpty)
        let failure = try #require(parser.failure)
        #expect(parser.feed(WebSocketFrameWriter.frame(opcode: .text, payload: [1], mask: testMask)[...]).isEmpty)
        #expect(parser.failure == failure)
    }
}

/// Hostile-input proof for the WebSocket parser: whatever the bytes, it never traps, an error's
/// offset lies within what was fed, and it never hands out more payload than it was given.
/// `MOUCHARD_FUZZ_ITERATIONS=N` runs N mutations instead of the small CI default.
@Suite struct WebSocketMutationTests {
    static let iterations = ByteMutator.iterations(default: 600, environment: ProcessInfo.processInfo.environment)

    static let samples: [(WebSocketStreamParser.Sender, [UInt8])] = [
        (.client, WebSocketFrameWriter.frame(opcode: .text, payload: Array("{\"lat\":48.8566,\"lon\":2.3522}".utf8), mask: testMask)
            + WebSocketFrameWriter.frame(opcode: .ping, payload: [], mask: testMask)
            + WebSocketFrameWriter.frame(opcode: .binary, payload: [UInt8](repeating: 7, count: 300), fin: false, mask: testMask)
            + WebSocketFrameWriter.frame(opcode: .continuation, payload: [1, 2, 3], mask: testMask)),
        (.server, WebSocketFrameWriter.frame(opcode: .text, payload: [UInt8](repeating: 0x61, count: 70_000))
            + WebSocketFrameWriter.close(code: 1000, reason: "done")),
        (.server, [0xC1, 0x05, 0xF2, 0x48, 0xCD, 0xC9, 0xC9]),
    ]

    @Test func mutatedStreamsNeverTrap() {
        var mutator = ByteMutator(seed: 0x5753_4F43)
        let donors = Self.samples.map(\.1)
        for i in 0..<Self.iterations {
            let (sender, sample) = Self.samples[i % Self.samples.count]
            let stream = mutator.mutate(sample, donors: donors)
            let cuts = (0..<3).map { _ in mutator.below(stream.count + 1) }
            let out = WebSocketOutcome.parse(stream, sender: sender, deflate: i % 2 == 0, cuts: cuts)
            let payload = out.events.reduce(0) { n, e in
                switch e {
                case .messageData(let d): n + d.count
                case .control(_, let d): n + d.count
                default: n
                }
            }
            #expect(payload <= stream.count, "seed \(mutator.seed) iteration \(i)")
            if let e = out.error { #expect(e.offset <= UInt64(stream.count), "seed \(mutator.seed) iteration \(i)") }
        }
    }
}

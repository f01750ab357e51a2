import Foundation
import MouchardTestSupport
import MouchardWire
import Testing

/// One gRPC length-prefixed frame.
func grpcFrame(_ payload: [UInt8], flags: UInt8 = 0) -> [UInt8] {
    let n = UInt32(payload.count)
    return [flags, UInt8(n >> 24), UInt8((n >> 16) & 0xFF), UInt8((n >> 8) & 0xFF), UInt8(n & 0xFF)] + payload
}

@Suite struct GRPCFramesTests {
    @Test func splitsMessagesThatCrossDataFrameBoundaries() {
        // An h2 body is DATA frames back to back; message boundaries fall anywhere in them. The
        // splitter reads the reassembled body: the same messages whatever the DATA frame sizes were.
        let messages: [[UInt8]] = [[0x0A, 0x03, 0x61, 0x62, 0x63], [], [UInt8](repeating: 0x08, count: 40_000), [0x10, 0x01]]
        let body = messages.flatMap { grpcFrame($0) }
        var dataFrames: [[UInt8]] = []
        var rng = SplitMix64(seed: 3)
        var i = 0
        while i < body.count {
            let n = min(body.count - i, 1 + rng.below(16_384))
            dataFrames.append(Array(body[i..<(i + n)]))
            i += n
        }
        let split = GRPCFrames.split(dataFrames.flatMap { $0 }[...])
        #expect(split.frames.map { Array($0.payload) } == messages)
        #expect(split.frames.map(\.offset) == [0, 10, 15, 40_020])
        #expect(split.incomplete == nil)
    }

    @Test func compressedFlagAndWebTrailers() {
        let body = grpcFrame([1, 2, 3], flags: 1) + grpcFrame(Array("grpc-status: 0\r\ngrpc-message: all good\r\n".utf8), flags: 0x80)
        let split = GRPCFrames.split(body[...])
        #expect(split.frames.count == 2)
        #expect(split.frames[0].isCompressed && !split.frames[0].isTrailers)
        #expect(split.frames[1].isTrailers)
        let fields = GRPCFrames.trailerFields(split.frames[1].payload)
        #expect(fields.map(\.name) == ["grpc-status", "grpc-message"])
        #expect(fields.map(\.value) == ["0", "all good"])
    }

    @Test func aCutBodyIsReportedNotReadPast() throws {
        let body = grpcFrame([9, 9]) + Array(grpcFrame([UInt8](repeating: 1, count: 100)).prefix(50))
        let split = GRPCFrames.split(body[...])
        #expect(split.frames.count == 1)
        let cut = try #require(split.incomplete)
        #expect(cut.offset == 7 && cut.declared == 100 && cut.available == 45)
        // A length of 4 GiB - 1 in a 9-byte body.
        let huge = GRPCFrames.split([0, 0xFF, 0xFF, 0xFF, 0xFF, 1, 2, 3, 4][...])
        #expect(huge.frames.isEmpty && huge.incomplete?.declared == UInt32.max)
        #expect(GRPCFrames.split([0, 0, 0][...]).incomplete?.available == 3)
        #expect(GRPCFrames.split([UInt8](repeating: 0, count: 50)[...], maxFrames: 3).stoppedAtLimit)
    }

    @Test func webTextWithPaddingInTheMiddle() throws {
        // grpc-web-text: each chunk base64 on its own, so `=` ends a chunk mid-stream.
        let first = grpcFrame([0x0A, 0x01, 0x78]), trailers = grpcFrame(Array("grpc-status: 0\r\n".utf8), flags: 0x80)
        let text = Data(first).base64EncodedString() + Data(trailers).base64EncodedString()
        #expect(text.dropLast().contains("="))
        let decoded = try #require(GRPCFrames.decodeWebText(Array(text.utf8)[...]))
        #expect(decoded == first + trailers)
        #expect(GRPCFrames.decodeWebText(Array("AAA*".utf8)[...]) == nil)
        #expect(GRPCFrames.decodeWebText(Array("A=BC".utf8)[...]) == nil)
        #expect(GRPCFrames.decodeWebText(Array("QUJD\nREVG".utf8)[...]) == Array("ABCDEF".utf8))
    }

    @Test func mutatedBodiesNeverTrap() {
        let iterations = ByteMutator.iterations(default: 400, environment: ProcessInfo.processInfo.environment)
        var mutator = ByteMutator(seed: 0x4752_5043)
        let sample = grpcFrame([0x0A, 0x03, 0x61, 0x62, 0x63], flags: 1) + grpcFrame(Array("grpc-status: 5\r\n".utf8), flags: 0x80)
        let text = Array(Data(sample).base64EncodedString().utf8)
        for i in 0..<iterations {
            let body = mutator.mutate(sample)
            let split = GRPCFrames.split(body[...])
            let covered = split.frames.reduce(0) { $0 + 5 + $1.payload.count }
            #expect(covered <= body.count, "seed \(mutator.seed) iteration \(i)")
            for f in split.frames where f.isTrailers { _ = GRPCFrames.trailerFields(f.payload) }
            let mutatedText = mutator.mutate(text)
            if let decoded = GRPCFrames.decodeWebText(mutatedText[...]) { #expect(decoded.count <= mutatedText.count) }
        }
    }
}

@Suite struct ServerSentEventsTests {
    @Test func eventsAreSplitAsABrowserDoes() {
        let body = "\u{FEFF}: comment\r\nevent: position\r\ndata: {\"lat\": 48.8566,\r\ndata:\"lon\": 2.3522}\r\nid: 7\r\n\r\n"
            + "data: second\n\nretry: 10\n\n" + "data\rdata: x\r\r" + "event: cut\ndata: last"
        let split = ServerSentEvents.split(Array(body.utf8)[...])
        #expect(split.events.map { String(decoding: $0.data, as: UTF8.self) } == ["{\"lat\": 48.8566,\n\"lon\": 2.3522}", "second", "\nx", "last"])
        #expect(split.events.map(\.type) == ["position", nil, nil, "cut"])
        #expect(split.events[0].id == "7")
        #expect(split.events.map(\.isComplete) == [true, true, true, false])
        // The id carries over to later events, as the last event id does in a browser.
        #expect(split.events[1].id == "7")
    }

    @Test func limitsAndHostileBodies() {
        let many = Array(String(repeating: "data: x\n\n", count: 50).utf8)
        let limited = ServerSentEvents.split(many[...], maxEvents: 10)
        #expect(limited.events.count == 10 && limited.stoppedAtLimit)
        let iterations = ByteMutator.iterations(default: 300, environment: ProcessInfo.processInfo.environment)
        var mutator = ByteMutator(seed: 0x5353_4500)
        let sample = Array("event: a\ndata: {\"x\":1}\n\ndata: two\r\ndata: lines\r\n\r\n: c\n".utf8)
        for i in 0..<iterations {
            let body = mutator.mutate(sample)
            let split = ServerSentEvents.split(body[...])
            #expect(split.events.reduce(0) { $0 + $1.data.count } <= body.count, "seed \(mutator.seed) iteration \(i)")
        }
    }
}

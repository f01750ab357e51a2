import Foundation
import MouchardTestSupport
import Testing

@testable import MouchardWire

/// QPACK (RFC 9204) and the QUIC wire pieces HTTP/3 decryption reads: the Huffman code against
/// RFC 7541's examples, field sections with static and dynamic references (relative and
/// post-base), encoder instructions split anywhere, the Required Insert Count, varints, packet
/// headers and packet numbers (RFC 9000 §A.3); hostile input never crashes.
struct QPACKTests {
    static func hex(_ s: String) -> [UInt8] {
        let digits = Array(s.filter { !$0.isWhitespace })
        return stride(from: 0, to: digits.count, by: 2).map { UInt8(String(digits[$0...$0 + 1]), radix: 16)! }
    }

    @Test func huffmanDecodesTheRFCExamples() {
        #expect(QPACKHuffman.decode(Self.hex("f1e3 c2e5 f23a 6ba0 ab90 f4ff")[...]) == Array("www.example.com".utf8))
        #expect(QPACKHuffman.decode(Self.hex("a8eb 1064 9cbf")[...]) == Array("no-cache".utf8))
        #expect(QPACKHuffman.decode(Self.hex("25a8 49e9 5bb8 e8b4 bf")[...]) == Array("custom-value".utf8))
        // Padding longer than 7 bits, or not all ones, is an error.
        #expect(QPACKHuffman.decode(Self.hex("a8eb 1064 9cbf ff")[...]) == nil)
        #expect(QPACKHuffman.decode(Self.hex("a8eb 1064 9cbe")[...]) == nil)
        #expect(QPACKHuffman.decode([]) == [])
    }

    /// A literal string: 7-bit length prefix (H bit above it).
    static func literal(_ s: String, huffmanFlag: UInt8 = 0x80, prefixBits: Int = 7, flags: UInt8 = 0) -> [UInt8] {
        let bytes = Array(s.utf8)
        precondition(bytes.count < (1 << prefixBits) - 1)
        return [flags | UInt8(bytes.count)] + bytes
    }

    @Test func staticReferencesAndLiterals() throws {
        let decoder = QPACKDecoder(maxTableCapacity: 0)
        // Prefix 0,0; :method GET (static 17), :path literal with static name 1, x-idfa literal name.
        var section: [UInt8] = [0x00, 0x00, 0xC0 | 17, 0x50 | 1] + Self.literal("/v1/open?id=1")
        section += [0x20 | 6] + Array("x-idfa".utf8) + Self.literal("abc")
        #expect(decoder.decode(fieldSection: section[...]) == .fields([
            .init(name: ":method", value: Array("GET".utf8)), .init(name: ":path", value: Array("/v1/open?id=1".utf8)),
            .init(name: "x-idfa", value: Array("abc".utf8)),
        ]))
        // A Huffman value: "no-cache" for cache-control (static name 36).
        let huffman: [UInt8] = [0x00, 0x00, 0x50 | 0x0F, 36 - 15, 0x86] + Self.hex("a8eb 1064 9cbf")
        #expect(decoder.decode(fieldSection: huffman[...]) == .fields([.init(name: "cache-control", value: Array("no-cache".utf8))]))
        // A static index past the table, a section cut short.
        if case .fields = decoder.decode(fieldSection: [0x00, 0x00, 0xFF, 0x30][...]) { Issue.record("static index 147 accepted") }
        if case .fields = decoder.decode(fieldSection: [0x00, 0x00, 0x50 | 1, 0x05, 0x41][...]) { Issue.record("cut value accepted") }
    }

    @Test func dynamicTableFromTheEncoderStream() throws {
        var decoder = QPACKDecoder(maxTableCapacity: 4096)
        // Set capacity 150; insert x-idfa: abc (literal name); insert :authority=example.test (static name 0); duplicate entry 0.
        var stream: [UInt8] = [0x3F, 150 - 31]
        stream += [0x40 | 6] + Array("x-idfa".utf8) + Self.literal("abc")
        stream += [0xC0 | 0] + Self.literal("example.test")
        stream += [0x00 | 1]
        // Fed one byte at a time: instructions cut anywhere wait for their end.
        for b in stream { decoder.encoderStream([b][...]) }
        #expect(decoder.failure == nil && decoder.insertCount == 3)
        // Required Insert Count 3 (encoded 3 % (2 * 128) + 1 = 4), Base 3 (delta 0): relative 0 = entry 2 (the duplicate of
        // x-idfa), relative 1 = :authority; literal with dynamic name reference (relative 2 = x-idfa).
        let section: [UInt8] = [0x04, 0x00, 0x80 | 0, 0x80 | 1, 0x40 | 2] + Self.literal("xyz")
        #expect(decoder.decode(fieldSection: section[...]) == .fields([
            .init(name: "x-idfa", value: Array("abc".utf8)), .init(name: ":authority", value: Array("example.test".utf8)),
            .init(name: "x-idfa", value: Array("xyz".utf8)),
        ]))
        // Post-base: Base 1 (sign bit, delta 1 from 3), post-base index 1 = entry 2.
        let postBase: [UInt8] = [0x04, 0x80 | 1, 0x10 | 1]
        #expect(decoder.decode(fieldSection: postBase[...]) == .fields([.init(name: "x-idfa", value: Array("abc".utf8))]))
        // A section needing an insert not received yet waits.
        #expect(decoder.decode(fieldSection: [0x05, 0x00, 0x80][...]) == .blocked(requiredInsertCount: 4))
        // Eviction: the table holds 150 bytes (136 used); a fourth entry of 80 bytes evicts the two oldest.
        decoder.encoderStream(([0x40 | 6] + Array("x-more".utf8) + Self.literal(String(repeating: "m", count: 42)))[...])
        #expect(decoder.failure == nil && decoder.insertCount == 4)
        if case .fields = decoder.decode(fieldSection: [0x05, 0x00, 0x80 | 3][...]) { Issue.record("an evicted entry was read") }
        #expect(decoder.decode(fieldSection: [0x05, 0x00, 0x80 | 1][...]) == .fields([.init(name: "x-idfa", value: Array("abc".utf8))]))
    }

    @Test func encoderStreamErrorsAreSaid() {
        var decoder = QPACKDecoder(maxTableCapacity: 100)
        decoder.encoderStream([0x3F, 0xE1, 0x07][...])  // capacity 1024 > 100
        #expect(decoder.failure?.contains("capacity") == true)
        var tooBig = QPACKDecoder(maxTableCapacity: 4096)
        tooBig.encoderStream(([0x3F, 1, 0x40 | 6] + Array("x-idfa".utf8) + Self.literal("abc"))[...])  // entry larger than capacity 32
        #expect(tooBig.failure?.contains("entry of") == true)
    }

    @Test func varintsHeadersAndPacketNumbers() {
        var o = 0
        #expect(QUICVarint.read(Self.hex("c2197c5eff14e88c")[...], at: &o) == 151_288_809_941_952_652 && o == 8)
        o = 0
        #expect(QUICVarint.read(Self.hex("9d7f3e7d")[...], at: &o) == 494_878_333)
        o = 0
        #expect(QUICVarint.read(Self.hex("7bbd")[...], at: &o) == 15_293)
        o = 0
        #expect(QUICVarint.read(Self.hex("25")[...], at: &o) == 37)
        o = 0
        #expect(QUICVarint.read(Self.hex("c2197c")[...], at: &o) == nil)
        // RFC 9000 §A.3: largest 0xa82f30ea, 16-bit truncated 0x9b32.
        #expect(QUICPacketHeader.packetNumber(truncated: 0x9B32, length: 2, largest: 0xA82F_30EA) == 0xA82F_9B32)
        #expect(QUICPacketHeader.packetNumber(truncated: 0, length: 1, largest: nil) == 0)
        #expect(QUICPacketHeader.packetNumber(truncated: 0x01, length: 1, largest: 0xFF) == 0x101)
        // A client Initial (long header, token, length) followed by a short header.
        let initial: [UInt8] = [0xC3, 0, 0, 0, 1, 4, 1, 2, 3, 4, 2, 9, 9, 0, 0x05, 0, 0, 0, 0, 0] + [0x40, 1, 2, 3, 4, 5]
        let h = QUICPacketHeader.parse(initial[...], at: 0, shortHeaderConnectionIDLength: 2)
        #expect(h?.kind == .initial && h?.destinationConnectionID == [1, 2, 3, 4] && h?.sourceConnectionID == [9, 9])
        #expect(h?.packetNumberOffset == 15 && h?.end == 20)
        let short = QUICPacketHeader.parse(initial[...], at: 20, shortHeaderConnectionIDLength: 2)
        #expect(short?.kind == .oneRTT && short?.destinationConnectionID == [1, 2] && short?.packetNumberOffset == 23)
        #expect(QUICPacketHeader.parse(Array(initial.prefix(17))[...], at: 0, shortHeaderConnectionIDLength: 0) == nil)
    }

    @Test func framesAreWalked() {
        // PING, CRYPTO(offset 0, "ab"), STREAM with offset, length and FIN (id 4, offset 3, "xyz"), PADDING.
        let payload: [UInt8] = [0x01, 0x06, 0x00, 0x02, 0x61, 0x62, 0x0F, 0x04, 0x03, 0x03, 0x78, 0x79, 0x7A, 0x00, 0x00]
        let parsed = QUICFrame.frames(in: payload[...])
        #expect(!parsed.malformed)
        #expect(parsed.frames == [.crypto(offset: 0, data: [0x61, 0x62][...]), .stream(id: 4, offset: 3, data: [0x78, 0x79, 0x7A][...], fin: true)])
        #expect(QUICFrame.frames(in: [0x40, 0x21][...]).malformed)  // unknown frame type 0x21
    }
}

/// Seeded mutations of QPACK field sections, encoder streams and QUIC payloads: never a crash.
/// `MOUCHARD_FUZZ_ITERATIONS=N` runs N mutations per seed instead of the CI default.
struct QPACKMutationTests {
    static let iterations = ByteMutator.iterations(default: 2000, environment: ProcessInfo.processInfo.environment)

    @Test(arguments: [0x5150_0001, 0x5150_0002] as [UInt64])
    func mutatedInputNeverCrashes(seed: UInt64) {
        var mutator = ByteMutator(seed: seed)
        let stream: [UInt8] = [0x3F, 0xBD, 0x01] + [0x46] + Array("x-idfa".utf8) + [0x83, 0x61, 0x62, 0x63] + [0xC0, 0x83, 0x61, 0x62, 0x63, 0x01]
        let sections: [[UInt8]] = [
            [0x00, 0x00, 0xD1, 0x51, 0x83, 0x2F, 0x61, 0x62, 0x26, 0x78, 0x2D, 0x69, 0x64, 0x66, 0x61, 0x83, 0x61, 0x62, 0x63],
            [0x04, 0x00, 0x80, 0x81, 0x42, 0x83, 0x78, 0x79, 0x7A],
            [0x04, 0x81, 0x11],
            [0x00, 0x00, 0x5F, 0x15, 0x86] + QPACKTests.hex("a8eb 1064 9cbf"),
        ]
        let payloads: [[UInt8]] = [
            [0x01, 0x06, 0x00, 0x02, 0x61, 0x62, 0x0F, 0x04, 0x03, 0x03, 0x78, 0x79, 0x7A, 0x02, 0x05, 0x00, 0x00, 0x02, 0x01, 0x01, 0x01],
            [0x18, 0x01, 0x00, 0x08] + [UInt8](repeating: 7, count: 24) + [0x1C, 0x00, 0x00, 0x02, 0x61, 0x62],
        ]
        for _ in 0..<Self.iterations {
            var decoder = QPACKDecoder(maxTableCapacity: 4096)
            decoder.encoderStream(mutator.mutate(stream, maxMutations: 3)[...])
            #expect(decoder.insertCount <= 16, "seed \(seed)")
            let section = mutator.mutate(sections[mutator.below(sections.count)], maxMutations: 4, donors: sections)
            if case .fields(let fields) = decoder.decode(fieldSection: section[...]) {
                #expect(fields.count <= section.count, "seed \(seed)")
            }
            _ = QPACKHuffman.decode(mutator.mutate(QPACKTests.hex("f1e3 c2e5 f23a 6ba0 ab90 f4ff"), maxMutations: 3)[...])
            let payload = mutator.mutate(payloads[mutator.below(payloads.count)], maxMutations: 4, donors: payloads)
            for frame in QUICFrame.frames(in: payload[...]).frames {
                if case .stream(_, _, let data, _) = frame { #expect(data.count <= payload.count, "seed \(seed)") }
            }
            _ = QUICPacketHeader.parse(payload[...], at: 0, shortHeaderConnectionIDLength: mutator.below(21))
        }
    }
}

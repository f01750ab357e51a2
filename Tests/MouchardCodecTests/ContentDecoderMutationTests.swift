import Foundation
import MouchardCodec
import MouchardTestSupport
import MouchardWire
import Testing

/// Hostile-input proof for `ContentDecoder`, driven by `ByteMutator` (seeded): corrupt, truncated
/// and spliced gzip/deflate/br streams and decompression bombs end in bytes within the limit or in a
/// `ContentDecodingError` (with an offset inside the input for corrupt data) — never a crash or a hang.
///
/// `MOUCHARD_FUZZ_ITERATIONS=N` runs N mutations per coding instead of the small CI default.
@Suite struct ContentDecoderMutationTests {
    static let iterations = ByteMutator.iterations(default: 300, environment: ProcessInfo.processInfo.environment)
    static let limit = 1 << 20

    static let text = Array(("mouchard decodes what apps compress: " + String(repeating: "idfa=AEBE52E7;", count: 40)).utf8)

    /// `text` compressed by the reference brotli encoder (quality 11).
    static let brotliText = hex("1b5402702c8fb791f12b46e62c85cb46698f7e844ade45323b6d1324282dc9c2e0b2e646287bc6eaaaecad75c2cce0c0061cb00718cd138d00a742475b72388df52f94c813d3dbbb7eb9b194490b")

    /// 64 MiB of zeros compressed by the reference brotli encoder: 106 bytes.
    static let brotliBomb = hex("cbffff3ff82700e2b14020f7fe8fffff7ff04f00c4611180eefd1fffffffe09f0088c30200ddfb3ffeffffc13f0110870500baf77ffcffff837f02200e0b0074effff8ffff07ff04401c1600e8defff1ffff0ffe0980382c00d0bdffe3ffff1ffc1300715800a07bff37")

    static func hex(_ s: String) -> [UInt8] {
        var out: [UInt8] = []
        var chars = s.utf8.makeIterator()
        while let a = chars.next(), let b = chars.next() {
            out.append(UInt8(String(decoding: [a, b], as: UTF8.self), radix: 16) ?? 0)
        }
        return out
    }

    /// The streams of each coding, as `decode(_:contentEncoding:)` names them.
    static func samples() -> [(coding: String, bytes: [UInt8])] {
        let gzip = gzipCompress(text)
        let zlibWrapped = [0x78, 0x9C] + Array(gzip[10..<(gzip.count - 8)]) + adler32(text)
        return [
            ("gzip", gzip),
            ("gzip", gzip + gzipCompress(Array("second member".utf8))),
            ("deflate", zlibWrapped),
            ("deflate", Array(gzip[10..<(gzip.count - 8)])),
            ("br", brotliText),
        ]
    }

    static func adler32(_ bytes: [UInt8]) -> [UInt8] {
        var a: UInt32 = 1, b: UInt32 = 0
        for x in bytes { a = (a + UInt32(x)) % 65521; b = (b + a) % 65521 }
        let v = b << 16 | a
        return [UInt8(v >> 24), UInt8(v >> 16 & 0xFF), UInt8(v >> 8 & 0xFF), UInt8(v & 0xFF)]
    }

    /// Decodes and checks the outcome's contract.
    @discardableResult
    func decode(_ input: [UInt8], _ coding: String, limit: Int = limit, _ what: @autoclosure () -> String,
                sourceLocation: SourceLocation = #_sourceLocation) -> [UInt8]? {
        do {
            let out = try ContentDecoder(limit: limit).decode(input, contentEncoding: coding)
            #expect(out.count <= max(limit, input.count), "\(what()): \(out.count) bytes past the limit", sourceLocation: sourceLocation)
            return out
        } catch {
            if case .corrupt(_, _, let offset) = error {
                #expect((0...input.count).contains(offset), "\(what()): \(error) outside \(input.count) bytes",
                        sourceLocation: sourceLocation)
            }
            #expect(!error.description.isEmpty)
            return nil
        }
    }

    @Test func samplesDecode() throws {
        for (coding, bytes) in Self.samples() {
            let out = try ContentDecoder().decode(bytes, contentEncoding: coding)
            #expect(out.starts(with: Self.text), "\(coding)")
        }
    }

    @Test(arguments: [0xC0DEC_001, 0xC0DEC_002] as [UInt64])
    func mutatedStreams(seed: UInt64) {
        var mutator = ByteMutator(seed: seed)
        let samples = Self.samples()
        for k in 0..<Self.iterations {
            let (coding, bytes) = samples[k % samples.count]
            let input = mutator.mutate(bytes, maxMutations: 4, donors: samples.map(\.bytes))
            decode(input, coding, "seed \(seed) iteration \(k) \(coding), input size \(input.count)")
        }
    }

    @Test func truncationAtEveryLength() {
        for (coding, bytes) in Self.samples() {
            for length in 0..<bytes.count {
                // A cut stream is truncated or corrupt, never silently accepted as complete.
                let out = decode(Array(bytes.prefix(length)), coding, "\(coding) cut at \(length)")
                if let out { #expect(out != Self.text || coding == "gzip", "\(coding) cut at \(length) decoded fully") }
            }
        }
    }

    /// Bombs stop at the limit: gzip, zlib and raw deflate of 64 MiB of zeros, brotli of 64 MiB,
    /// and bombs inside bombs (`gzip, gzip`).
    @Test func bombsStopAtTheLimit() {
        let zeros = [UInt8](repeating: 0, count: 8 << 20)
        let gzip = gzipCompress(zeros, level: 9)
        let raw = Array(gzip[10..<(gzip.count - 8)])
        for (coding, bomb) in [("gzip", gzip), ("deflate", raw), ("deflate", [0x78, 0xDA] + raw + Self.adler32(zeros)),
                               ("br", Self.brotliBomb), ("gzip, gzip", gzipCompress(gzip))] {
            #expect(throws: ContentDecodingError.tooLarge(limit: Self.limit), "\(coding)") {
                try ContentDecoder(limit: Self.limit).decode(bomb, contentEncoding: coding)
            }
        }
        // Limits of zero or less refuse any output rather than misbehave.
        for limit in [0, -1, Int.min] {
            decode(gzip, "gzip", limit: limit, "limit \(limit)")
            decode(Self.brotliBomb, "br", limit: limit, "limit \(limit)")
        }
    }

    /// Content-Encoding values that are lists, odd cases, unknown codings or garbage.
    @Test func hostileContentEncodingValues() {
        let gzip = gzipCompress(Self.text)
        var mutator = ByteMutator(seed: 0xE1C)
        for k in 0..<Self.iterations {
            let value = String(decoding: mutator.mutate(Array("gzip, identity".utf8), maxMutations: 3), as: UTF8.self)
            decode(gzip, value, "Content-Encoding \(value.debugDescription) iteration \(k)")
        }
        #expect(decode(gzip, " GZIP ,identity,, ", "mixed case") == Self.text)
        #expect(decode(Self.text, String(repeating: ",", count: 10_000), "commas") == Self.text)
    }

    /// Many tiny gzip members, and members separated by junk.
    @Test func concatenatedMembersAndJunk() {
        let member = gzipCompress(Array("a".utf8))
        let many = Array(repeating: member, count: 5_000).flatMap { $0 }
        #expect(decode(many, "gzip", "5000 members")?.count == 5_000)
        decode(member + [0, 0, 0, 0], "gzip", "trailing zeros")
        decode(member + Array("junk".utf8) + member, "gzip", "junk between members")
    }
}

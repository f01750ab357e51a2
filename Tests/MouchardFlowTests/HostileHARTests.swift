import Foundation
import Testing
@testable import MouchardFlow

/// The HAR reader and its JSON parser on hostile bytes: exact escapes, and no crash on damage.
@Suite struct HostileHARTests {
    @Test func stringEscapes() throws {
        let v = try JSONParser.parse(Array(#"["\ud83d\ude00", "\ud800x", "a\u00e9\n\t\"\\\/", "\uDC00"]"#.utf8))
        #expect(v == .array([.string("😀"), .string("\u{FFFD}x"), .string("aé\n\t\"\\/"), .string("\u{FFFD}")]))
        // Invalid UTF-8 inside a string becomes U+FFFD rather than failing the file.
        let bad = try JSONParser.parse([0x22, 0x61, 0xFF, 0x62, 0x22])
        #expect(bad == .string("a\u{FFFD}b"))
        // A UTF-8 byte order mark is skipped.
        #expect(try JSONParser.parse([0xEF, 0xBB, 0xBF] + Array("[1]".utf8)) == .array([.number("1")]))
        #expect(throws: JSONSyntaxError(offset: 3, message: "control character in a string")) {
            try JSONParser.parse([0x5B, 0x22, 0x61, 0x0A, 0x22, 0x5D])
        }
        #expect(throws: JSONSyntaxError(offset: 3, message: "invalid escape '\\x' in a string")) {
            try JSONParser.parse(Array(#""a\x""#.utf8))
        }
        #expect(throws: JSONSyntaxError(offset: 1, message: "expected a digit")) { try JSONParser.parse(Array("-".utf8)) }
        #expect(throws: JSONSyntaxError(offset: 1, message: "unexpected data after the JSON document")) {
            try JSONParser.parse(Array("01".utf8))
        }
    }

    @Test func serializerRoundTripsEveryCharacter() throws {
        var text = ""
        for u in 0..<0x80 { text.unicodeScalars.append(Unicode.Scalar(UInt8(u))) }
        text += "é😀\u{2028}"
        let value = JSONValue.object([("k\"ey", .array([.string(text), .number("-1.5e3"), .bool(true), .null, .object([])]))])
        for pretty in [true, false] {
            #expect(try JSONParser.parse(JSONSerializer.serialize(value, pretty: pretty)) == value)
        }
    }

    /// Truncations and byte flips of a real HAR end in a `HARError` or in flows, never in a crash.
    @Test func damagedCorpusNeverCrashes() throws {
        let bytes = [UInt8](try Data(contentsOf: CorpusFiles.devHAR("android")))
        var errors = 0
        var generator = SplitMix(seed: 42)
        for k in 0..<150 {
            var damaged = bytes
            if k % 2 == 0 {
                damaged.removeLast(Int(generator.next() % UInt64(bytes.count)))
            } else {
                for _ in 0..<8 {
                    damaged[Int(generator.next() % UInt64(bytes.count))] = UInt8(truncatingIfNeeded: generator.next())
                }
            }
            do {
                let flows = try HARReader.read(bytes: damaged)
                #expect(flows.count <= 182)
            } catch {
                errors += 1
                #expect(!error.description.isEmpty)
            }
        }
        #expect(errors >= 75, "every truncation is an error")
    }
}

/// A small deterministic random generator for reproducible damage.
struct SplitMix {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

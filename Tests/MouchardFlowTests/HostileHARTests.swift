import Foundation
import MouchardTestSupport
import MouchardWire
import Testing
@testable import MouchardFlow

/// The HAR reader and its JSON parser on hostile bytes: exact escapes, and no crash on damage.
@Suite struct HostileHARTests {
    /// The HAR settings of the shared JSON parser (`JSONParser.har`): escapes, byte order mark, errors.
    @Test func stringEscapes() throws {
        let v = try JSONParser.har.parse(Array(#"["\ud83d\ude00", "\ud800x", "a\u00e9\n\t\"\\\/", "\uDC00"]"#.utf8))
        #expect(v.elements?.map(\.stringValue) == ["😀", "\u{FFFD}x", "aé\n\t\"\\/", "\u{FFFD}"])
        // Invalid UTF-8 inside a string becomes U+FFFD rather than failing the file.
        let bad = try JSONParser.har.parse([0x22, 0x61, 0xFF, 0x62, 0x22])
        #expect(bad.stringValue == "a\u{FFFD}b")
        // A UTF-8 byte order mark is skipped.
        let bom = try JSONParser.har.parse([0xEF, 0xBB, 0xBF] + Array("[1]".utf8))
        #expect(bom.offset == 3 && bom.elements?.map(\.kind) == [.number(Array("1".utf8))])
        #expect(throws: JSONParseError(offset: 3, message: "control character in string")) {
            try JSONParser.har.parse([0x5B, 0x22, 0x61, 0x0A, 0x22, 0x5D])
        }
        #expect(throws: JSONParseError(offset: 2, message: "invalid escape")) {
            try JSONParser.har.parse(Array(#""a\x""#.utf8))
        }
        #expect(throws: JSONParseError(offset: 0, message: "invalid number")) { try JSONParser.har.parse(Array("-".utf8)) }
        #expect(throws: JSONParseError(offset: 2, message: "unexpected text after the JSON value")) {
            try JSONParser.har.parse(Array("1 2".utf8))
        }
    }

    @Test func serializerRoundTripsEveryCharacter() throws {
        var text = ""
        for u in 0..<0x80 { text.unicodeScalars.append(Unicode.Scalar(UInt8(u))) }
        text += "é😀\u{2028}"
        let value = JSONValue.object([("k\"ey", .array([.string(text), .number("-1.5e3"), .bool(true), .null, .object([])]))])
        for pretty in [true, false] {
            let written = JSONWriter.serialize(value, pretty: pretty)
            let parsed = try JSONParser.har.parse(written)
            #expect(parsed.members?.first?.key == "k\"ey")
            #expect(parsed.members?.first?.value.elements?.first?.stringValue == text)
            #expect(JSONWriter.serialize(parsed, pretty: pretty) == written)
        }
    }

    /// Truncations and byte flips of a real HAR end in a `HARError` or in flows, never in a crash.
    static func checkDamagedHARNeverCrashes(_ url: URL) throws {
        let bytes = [UInt8](try Data(contentsOf: url))
        let entries = try HARReader.read(bytes: bytes).count
        var errors = 0
        var generator = SplitMix64(seed: 42)
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
                #expect(flows.count <= entries)
            } catch {
                errors += 1
                #expect(!error.description.isEmpty)
            }
        }
        #expect(errors >= 75, "every truncation is an error")
    }

    @Test func damagedFixtureNeverCrashes() throws { try Self.checkDamagedHARNeverCrashes(TestFiles.fixture("android", "traffic.har")) }

    @Test(.requires(.dev)) func damagedCorpusNeverCrashes() throws {
        try Self.checkDamagedHARNeverCrashes(OutsideCorpus.dev.file("android/traffic.har"))
    }
}

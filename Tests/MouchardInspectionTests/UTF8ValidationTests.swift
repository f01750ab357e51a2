import Testing
@testable import MouchardInspection

/// `UTF8Validation.isValid` must answer exactly as the standard library's validation
/// (`String(validating:as:)`), which it replaces in the decode checks: the same on every one- and
/// two-byte sequence, on three- and four-byte sequences around each boundary of the lead and
/// continuation bytes, and on random sequences.
@Suite struct UTF8ValidationTests {
    func reference(_ bytes: [UInt8]) -> Bool { String(validating: bytes, as: UTF8.self) != nil }
    func ours(_ bytes: [UInt8]) -> Bool { bytes.withUnsafeBufferPointer { UTF8Validation.isValid($0) } }

    @Test func knownCases() {
        #expect(ours([]))
        #expect(ours(Array("plain ASCII".utf8)))
        #expect(ours(Array("é, €, 𝄞, 日本".utf8)))
        #expect(!ours([0xC0, 0x80]))             // overlong NUL
        #expect(!ours([0xE0, 0x80, 0x80]))       // overlong three-byte form
        #expect(!ours([0xF0, 0x80, 0x80, 0x80])) // overlong four-byte form
        #expect(!ours([0xED, 0xA0, 0x80]))       // a surrogate
        #expect(!ours([0xF4, 0x90, 0x80, 0x80])) // past U+10FFFF
        #expect(!ours([0xE2, 0x82]))             // truncated at the end
        #expect(!ours([0x80]))                   // a lone continuation byte
        #expect(!ours([0xFF]))
    }

    @Test func everyOneAndTwoByteSequence() {
        var mismatches = 0
        for a in 0...255 {
            if ours([UInt8(a)]) != reference([UInt8(a)]) { mismatches += 1 }
            for b in 0...255 where ours([UInt8(a), UInt8(b)]) != reference([UInt8(a), UInt8(b)]) { mismatches += 1 }
        }
        #expect(mismatches == 0)
    }

    @Test func longerSequencesAroundEveryBoundary() {
        // Each continuation position takes the values on both sides of each limit.
        let edges: [UInt8] = [0x00, 0x41, 0x7F, 0x80, 0x81, 0x8F, 0x90, 0x9F, 0xA0, 0xBF, 0xC0, 0xC2, 0xE0, 0xF0, 0xFF]
        var mismatches = 0
        var checked = 0
        for lead in 0xC0...0xFF {
            for b1 in edges { for b2 in edges {
                let three = [UInt8(lead), b1, b2]
                if ours(three) != reference(three) { mismatches += 1 }
                for b3 in edges {
                    let four = three + [b3]
                    if ours(four) != reference(four) { mismatches += 1 }
                    checked += 1
                }
            } }
        }
        #expect(checked == 64 * 15 * 15 * 15)
        #expect(mismatches == 0)
    }

    @Test func randomSequences() {
        var state: UInt64 = 0x0C0F_FEE0
        func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
        // Mostly valid text with a few bytes replaced, so that both answers occur often.
        let sample = Array("Grüße, 東京, 🙂 and ASCII".utf8)
        var valid = 0, mismatches = 0
        for _ in 0..<20_000 {
            var bytes = Array(sample[Int(next() % UInt64(sample.count))...])
            for _ in 0..<Int(next() % 3) where !bytes.isEmpty {
                bytes[Int(next() % UInt64(bytes.count))] = UInt8(truncatingIfNeeded: next())
            }
            if reference(bytes) { valid += 1 }
            if ours(bytes) != reference(bytes) { mismatches += 1 }
        }
        #expect(mismatches == 0)
        #expect(valid > 2_000 && valid < 18_000)
    }
}

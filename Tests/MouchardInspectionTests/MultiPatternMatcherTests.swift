import Testing
@testable import MouchardInspection

/// The matcher's confirmed matches are those of a plain search: patterns longer than the
/// automaton's prefix, in any ASCII case or exactly, with and without word boundaries.
@Suite struct MultiPatternMatcherTests {
    func plainMatches(_ patterns: [MultiPatternMatcher.Pattern], _ h: [UInt8]) -> Set<MultiPatternMatcher.Match> {
        var out: Set<MultiPatternMatcher.Match> = []
        for (pi, p) in patterns.enumerated() where !p.bytes.isEmpty && p.bytes.count <= h.count {
            for start in 0...(h.count - p.bytes.count) {
                let same = (0..<p.bytes.count).allSatisfy { k in
                    p.caseSensitive ? h[start + k] == p.bytes[k] : foldASCII(h[start + k]) == foldASCII(p.bytes[k])
                }
                guard same else { continue }
                let end = start + p.bytes.count
                if p.wordBoundary {
                    if isASCIIAlnum(p.bytes[0]), start > 0, isASCIIAlnum(h[start - 1]) { continue }
                    if isASCIIAlnum(p.bytes[p.bytes.count - 1]), end < h.count, isASCIIAlnum(h[end]) { continue }
                }
                out.insert(.init(pattern: pi, start: start, end: end))
            }
        }
        return out
    }

    @Test func longPatternsInAnyCaseAreFoundAsByAPlainSearch() {
        let patterns: [MultiPatternMatcher.Pattern] = [
            .init(bytes: Array("Lucas.Bernard@Example.net".utf8)),
            .init(bytes: Array("lucas.bernard@example.NET".utf8), caseSensitive: true, wordBoundary: false),
            .init(bytes: Array("9F556435-F8AA-4567-BC63".utf8), wordBoundary: false),
            .init(bytes: Array("abcdefghijklm".utf8)),
        ]
        let matcher = MultiPatternMatcher(patterns: patterns)
        var rng = SplitMix(seed: 0x3a7c)
        let pieces = ["Lucas.Bernard@Example.net", "LUCAS.BERNARD@EXAMPLE.NET", "lucas.bernard@example.NET", "9f556435-f8aa-4567-bc63",
                      "ABCDEFGHIJKLM", "abcdefghijklmn", "x", "1", " ", "@", "lucas.bernard@example.nex"]
        for _ in 0..<2_000 {
            var h: [UInt8] = []
            for _ in 0..<Int(1 + rng.next() % 5) { h += Array(pieces[Int(rng.next() % UInt64(pieces.count))].utf8) }
            #expect(Set(matcher.matches(in: h)) == plainMatches(patterns, h), "\(String(decoding: h, as: UTF8.self))")
        }
    }

    /// A matcher restricted to the first patterns of a larger one (the profile's matcher sharing
    /// the span scan's automaton) reports exactly what a matcher of those patterns alone reports,
    /// in the same order, and has the same patterns.
    @Test func aRestrictedMatcherFindsWhatItsPatternsAloneFindInTheSameOrder() {
        let variants: [MultiPatternMatcher.Pattern] = [
            .init(bytes: Array("anna.berg@example.net".utf8)),
            .init(bytes: Array("berg".utf8), wordBoundary: false),
            .init(bytes: Array("nnab".utf8), caseSensitive: true, wordBoundary: false),
            .init(bytes: Array("9f556435f8aa4567bc63".utf8)),
            .init(bytes: Array("erg".utf8), wordBoundary: false),
        ]
        // Added after the variants: prefixes and suffixes of theirs, as name parts are.
        let extra: [MultiPatternMatcher.Pattern] = [
            .init(bytes: Array("anna".utf8), wordBoundary: false, nameWord: true),
            .init(bytes: Array("berg".utf8), wordBoundary: false, nameWord: true),
            .init(bytes: Array("nna".utf8), wordBoundary: false),
            .init(bytes: Array("9f55".utf8), wordBoundary: false),
            .init(bytes: Array("rg@ex".utf8), wordBoundary: false),
        ]
        let alone = MultiPatternMatcher(patterns: variants)
        let restricted = MultiPatternMatcher(patterns: variants + extra).restricted(toFirst: variants.count)
        #expect(restricted.patterns.map(\.bytes) == variants.map(\.bytes))
        var rng = SplitMix(seed: 0x51ce)
        let pieces = ["anna.berg@example.net", "Anna", "BERG", "nnab", "NNAB", "9F556435F8AA4567BC63", "9f55", "erg", "rg@ex",
                      "-", "'", " ", "x", "1", "@"]
        for _ in 0..<2_000 {
            var h: [UInt8] = []
            for _ in 0..<Int(1 + rng.next() % 6) { h += Array(pieces[Int(rng.next() % UInt64(pieces.count))].utf8) }
            #expect(restricted.matches(in: h) == alone.matches(in: h), "\(String(decoding: h, as: UTF8.self))")
        }
    }

    /// The automaton's transitions are 16 bits wide when every state fits, 32 bits past that
    /// (`Tables`): both widths find the same matches in the same order, and an automaton too large
    /// for 16 bits is read with 32.
    @Test func bothWidthsOfTransitionsFindTheSameMatches() {
        var rng = SplitMix(seed: 0x16b1)
        let alphabet = Array("0123456789abcdefghijklmnopqrstuvwxyz@.-".utf8)
        func word(_ n: Int) -> [UInt8] { (0..<n).map { _ in alphabet[Int(rng.next() % UInt64(alphabet.count))] } }
        // Random patterns of 13 bytes: about 10 new states each, 30,000 in all, past what 16 bits hold.
        let patterns = (0..<3_000).map { k in MultiPatternMatcher.Pattern(bytes: word(13), caseSensitive: k % 3 == 0, wordBoundary: k % 2 == 0) }
        let large = MultiPatternMatcher(patterns: patterns)
        #expect(large.stateCount > 25_000)
        let largeIsNarrow = large.isNarrow
        #expect(!largeIsNarrow)
        let small = Array(patterns.prefix(300))
        let narrow = MultiPatternMatcher(patterns: small), wide = MultiPatternMatcher(patterns: small, narrow: false)
        let widths = (narrow.isNarrow, wide.isNarrow)
        #expect(widths == (true, false))
        let rest = MultiPatternMatcher(patterns: Array(patterns.dropFirst(300)))
        for round in 0..<300 {
            var h: [UInt8] = []
            for _ in 0..<Int(1 + rng.next() % 8) {
                let p = patterns[Int(rng.next() % UInt64(round % 2 == 0 ? 300 : patterns.count))].bytes
                // Some in upper case (only the patterns compared ignoring case match then).
                h += rng.next() % 4 == 0 ? word(Int(rng.next() % 6)) : rng.next() % 2 == 0 ? p : p.map { $0 >= 0x61 ? $0 - 0x20 : $0 }
            }
            #expect(narrow.matches(in: h) == wide.matches(in: h))
            // The large automaton's matches, as sets, are those of the first patterns plus those of the others.
            let parts = Set(narrow.matches(in: h)).union(rest.matches(in: h).map { .init(pattern: $0.pattern + 300, start: $0.start, end: $0.end) })
            #expect(Set(large.matches(in: h)) == parts)
        }
    }

    /// The 8-byte fold used to confirm long patterns is `foldASCII` of each byte, for every byte
    /// value in every position and random words.
    @Test func foldingEightBytesAtOnceIsFoldingEachByte() {
        func reference(_ x: UInt64) -> UInt64 {
            (0..<8).reduce(UInt64(0)) { word, k in word | UInt64(foldASCII(UInt8(truncatingIfNeeded: x >> (8 * UInt64(k))))) << (8 * UInt64(k)) }
        }
        for b in 0..<256 {
            for k: UInt64 in 0..<8 {
                let x = UInt64(b) << (8 * k) | 0x5A41_7B40_5B60_7F80 & ~(0xFF << (8 * k))
                #expect(foldedASCII(x) == reference(x), "byte \(b) at \(k)")
            }
        }
        var rng = SplitMix(seed: 0xf01d)
        for _ in 0..<20_000 {
            let x = rng.next()
            #expect(foldedASCII(x) == reference(x))
        }
    }
}

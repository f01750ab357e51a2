import Testing
@testable import MouchardInspection

/// `Automaton.forEachAccepting`, which reads a long value as two halves at once, passes on the
/// same accepting states at the same indices, in the same order, as one plain run of the automaton.
@Suite struct AutomatonRunTests {
    /// Every (state, index) a plain byte-by-byte run reaches at or past `firstAccepting`.
    func plainEvents(_ a: MultiPatternMatcher.Automaton, _ h: UnsafeBufferPointer<UInt8>) -> [[Int]] {
        var out: [[Int]] = []
        var s = a.start
        for i in 0..<h.count {
            s = a.narrow ? a.step(s, h[i], UInt16.self) : a.step(s, h[i], Int32.self)
            if s >= a.firstAccepting { out.append([s, i]) }
        }
        return out
    }

    @Test func twoHalvesPassOnThePlainRunsEventsInOrder() {
        let pieces = ["Lucas.Bernard@Example.net", "9F556435-F8AA-4567-BC63-A1B2C3D4E5F6", "bHVjYXMuYmVy", "abc", "x", "1", " ", "@",
                      "lucas.bern", "9f556435", "0612345678"]
        let patterns: [MultiPatternMatcher.Pattern] = [
            .init(bytes: Array("Lucas.Bernard@Example.net".utf8)),
            .init(bytes: Array("9F556435-F8AA-4567-BC63-A1B2C3D4E5F6".utf8), wordBoundary: false),
            .init(bytes: Array("bHVjYXMuYmVy".utf8), caseSensitive: true, wordBoundary: false),
            .init(bytes: Array("abcab".utf8)),
            .init(bytes: Array("0612345678".utf8)),
        ]
        // Both transition widths.
        for narrow in [true, false] {
            let matcher = MultiPatternMatcher(patterns: patterns, narrow: narrow)
            #expect(matcher.isNarrow == narrow)
            let automaton = matcher.automaton
            var rng = SplitMix(seed: 0x51d7)
            for round in 0..<3_000 {
                var h: [UInt8] = []
                // Long values (both halves read at once) and short ones, events near the middle too.
                for _ in 0..<Int(1 + rng.next() % (round % 3 == 0 ? 4 : 24)) { h += Array(pieces[Int(rng.next() % UInt64(pieces.count))].utf8) }
                h.withUnsafeBufferPointer { buf in
                    guard let base = buf.baseAddress else { return }
                    var events: [[Int]] = []
                    automaton.forEachAccepting(in: base, count: buf.count, depth: matcher.prefixLength) { events.append([$0, $1]) }
                    #expect(events == plainEvents(automaton, buf), "\(String(decoding: h, as: UTF8.self))")
                }
            }
        }
    }
}

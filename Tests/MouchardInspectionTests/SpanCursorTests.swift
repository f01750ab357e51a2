import Testing
@testable import MouchardInspection

/// `SpanCursor` answers as `touches` does for ranges asked in the order a walk asks them (lower
/// bounds never decreasing), with spans that overlap, nest, are empty or sit side by side.
struct SpanCursorTests {
    @Test func answersAsTouchesForRangesInByteOrder() {
        var rng = SystemRandomNumberGenerator()
        for _ in 0..<2_000 {
            var spans: [Range<Int>] = []
            var at = Int.random(in: 0...4, using: &rng)
            for _ in 0..<Int.random(in: 0...6, using: &rng) {
                let start = at + Int.random(in: 0...3, using: &rng)
                spans.append(start..<(start + Int.random(in: 0...8, using: &rng)))
                at = start
            }
            var cursor = SpanCursor(spans)
            var lower = 0
            for _ in 0..<Int.random(in: 1...12, using: &rng) {
                lower += Int.random(in: 0...3, using: &rng)
                let range = lower..<(lower + Int.random(in: 1...6, using: &rng))
                #expect(cursor.touches(range) == touches(spans, range), "\(spans) \(range)")
            }
        }
    }
}

import Testing
@testable import MouchardInspection

/// `CoordinateText.pair` writes each number exactly as `Double.description` does, whatever the
/// decimals it is told (they are a hint: a wrong one falls back to `description`).
@Suite struct CoordinateTextTests {
    func expectSameAsDescription(_ a: Double, _ da: Int, _ b: Double, _ db: Int) {
        #expect(CoordinateText.pair(a, decimals: da, b, decimals: db) == "\(a.description),\(b.description)", "\(a) \(da) \(b) \(db)")
    }

    @Test func writesWhatDescriptionWrites() {
        // The same numbers on every run.
        var rng = SplitMix(seed: 0xc0_0d)
        func next() -> UInt64 { rng.next() }
        for _ in 0..<20_000 {
            // A number as a request writes it: up to 7 integer digits, 1 to 15 decimals, some zeros at the end.
            let integer = Int(next() % 4 == 0 ? next() % 10_000_000 : next() % 200)
            let decimals = Int(next() % 15) + 1
            var fraction = ""
            for _ in 0..<decimals { fraction.append(Character(String(next() % 10))) }
            if next() % 4 == 0 { fraction = String(fraction.dropLast(min(3, decimals - 1))) + String(repeating: "0", count: min(3, decimals - 1)) }
            let text = (next() % 2 == 0 ? "-" : "") + "\(integer).\(fraction)"
            // Read as the walk reads it, and as `Double` does (the two may differ in the last bit).
            if let read = parseDecimal(Array(text.utf8)) { expectSameAsDescription(read.value, read.decimals, read.value, read.decimals) }
            let exact = Double(text) ?? 0
            // Told the right decimals, too few, too many.
            expectSameAsDescription(exact, decimals, exact, max(1, decimals - 1))
            expectSameAsDescription(exact, min(15, decimals + 1), exact, decimals)
        }
    }

    @Test func edges() {
        for (v, d) in [(0.001, 3), (0.0009, 4), (0.0001, 4), (9_999_999.9, 1), (10_000_000.0, 1), (47.0, 1), (47.0, 4), (0.5, 1),
                       (-2.5, 1), (0.0, 1), (-0.0, 2), (1e16, 1), (.nan, 2), (.infinity, 2), (47.0864, 0), (47.0864, 16),
                       (0.1 + 0.2, 1), (0.1 + 0.2, 15), (123.456, 3)] as [(Double, Int)] {
            expectSameAsDescription(v, d, 2.3913, 4)
        }
        // The common numbers are written without `description`.
        #expect(CoordinateText.Digits(47.0864, decimals: 4) != nil)
        #expect(CoordinateText.Digits(-1.441, decimals: 3) != nil)
    }
}

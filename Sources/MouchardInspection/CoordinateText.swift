/// A coordinate pair as a detection's evidence (`47.0864,2.3913`): each number as
/// `Double.description` writes it, made without `description` for the numbers a request holds
/// (a few decimals, decimal notation). `description` runs the general shortest-digits algorithm and
/// makes a string per number, some 550 instructions each; these are read back from the decimals
/// the number was written with.
enum CoordinateText {
    /// `"\(a),\(b)"`, each number as `description` writes it.
    static func pair(_ a: Double, decimals da: Int, _ b: Double, decimals db: Int) -> String {
        guard let x = Digits(a, decimals: da), let y = Digits(b, decimals: db) else {
            let first = a.description, second = b.description
            return String(utf8Count: first.utf8.count + 1 + second.utf8.count) { w in
                w.write(first)
                w.write(UInt8(ascii: ","))
                w.write(second)
            }
        }
        return String(utf8Count: x.count + 1 + y.count) { w in
            x.write(into: &w)
            w.write(UInt8(ascii: ","))
            y.write(into: &w)
        }
    }

    /// A number as `description` writes it, `-` when negative, then `units` with a decimal point
    /// `places` digits from its right (`0.5`, `47.0`): the shortest decimal that reads back as the
    /// number, when it has at most 15 significant digits and the number lies in [0.001, 10^7).
    struct Digits {
        var negative: Bool
        var units: UInt64
        var places: Int

        /// Exact powers of ten, 10^0 through 10^15.
        private static let powers: [Double] = (0...15).map { k in (0..<k).reduce(1.0) { p, _ in p * 10 } }

        /// `v`'s digits read with `decimals` places, nil when they are not exactly `description`'s.
        ///
        /// `units / 10^decimals`, both exact doubles, divided once, is the double nearest that
        /// decimal: when it is `v`, the decimal reads back as `v`. A decimal of at most 15
        /// significant digits is then the only one of at most 15 digits that does (two such
        /// decimals never read as one double), so the shortest, which `description` writes, has
        /// its digits. In [0.001, 10^7) `description` writes no exponent.
        init?(_ v: Double, decimals: Int) {
            guard decimals >= 1, decimals <= 15, v.isFinite else { return nil }
            let magnitude = v.magnitude
            guard magnitude >= 0.001, magnitude < 10_000_000 else { return nil }
            let scale = Self.powers[decimals]
            let scaled = (magnitude * scale).rounded()
            guard scaled >= 1, scaled < 9_007_199_254_740_992 else { return nil }
            var units = UInt64(scaled)
            guard Double(units) / scale == magnitude else { return nil }
            var places = decimals
            // Trailing zeros dropped, one decimal kept (`47.0`).
            while places > 1, units % 10 == 0 {
                units /= 10
                places -= 1
            }
            guard units < 1_000_000_000_000_000 else { return nil }
            self.negative = v < 0
            self.units = units
            self.places = places
        }

        /// Digits before the point (at least one: `0.5`).
        private var integerDigits: Int {
            var n = units
            for _ in 0..<places { n /= 10 }
            var count = 1
            while n >= 10 { n /= 10; count += 1 }
            return count
        }

        /// Bytes written.
        var count: Int { (negative ? 1 : 0) + integerDigits + 1 + places }

        func write(into w: inout UTF8Writer) {
            // At most 1 + 16 + 1 digits and point: written right to left, then copied.
            withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 24) { buf in
                var at = buf.count
                var n = units
                for _ in 0..<places {
                    at -= 1
                    buf[at] = UInt8(truncatingIfNeeded: 0x30 + n % 10)
                    n /= 10
                }
                at -= 1
                buf[at] = UInt8(ascii: ".")
                repeat {
                    at -= 1
                    buf[at] = UInt8(truncatingIfNeeded: 0x30 + n % 10)
                    n /= 10
                } while n > 0
                if negative {
                    at -= 1
                    buf[at] = UInt8(ascii: "-")
                }
                w.write(UnsafeBufferPointer(rebasing: buf[at...]))
            }
        }
    }
}

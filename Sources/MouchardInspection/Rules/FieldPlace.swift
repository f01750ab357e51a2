/// A field's place (`url`, `query`, `header`...: its location up to the first `:`) as one bit, so
/// that a rule's `where` is checked against a field with an AND instead of a string made and
/// looked up per field and rule. A place no rule file can name (`ws`, `grpc`) has no bit.
enum FieldPlace {
    /// The bit of each of `RuleFileLoader.places`, in that order.
    static let names: [[UInt8]] = RuleFileLoader.places.map { Array($0.utf8) }

    /// The bits of a rule's places (0 for none: the rule looks everywhere).
    static func bits(of places: Set<String>) -> UInt8 {
        var bits: UInt8 = 0
        for (i, name) in RuleFileLoader.places.enumerated() where places.contains(name) { bits |= 1 << UInt8(i) }
        return bits
    }

    /// The bit of `location`'s place, 0 when it is none of the rule files' places. The places'
    /// names start with different bytes: the first byte names the only place it can be, and the
    /// rest is compared while the location's UTF-8 is read (a generic `starts(with:)` per place
    /// cost some 650 instructions a field, 5% of pattern mode: bench/NOTES.md).
    static func bit(of location: String) -> UInt8 {
        var bytes = location.utf8.makeIterator()
        guard let first = bytes.next() else { return 0 }
        let index = byFirstByte[Int(first)]
        guard index >= 0 else { return index == ambiguous ? slowBit(of: location) : 0 }
        let name = names[Int(index)]
        var length = 1
        while let b = bytes.next(), b != UInt8(ascii: ":") {
            guard length < name.count, b == name[length] else { return 0 }
            length += 1
        }
        return length == name.count ? 1 << UInt8(index) : 0
    }

    /// `bit(of:)` comparing every name, for a first byte that two places' names share.
    private static func slowBit(of location: String) -> UInt8 {
        let place = location.utf8.prefix { $0 != UInt8(ascii: ":") }
        for (i, name) in names.enumerated() where place.elementsEqual(name) { return 1 << UInt8(i) }
        return 0
    }

    /// By first byte: the index of the one place whose name starts with it, -1 for none,
    /// `ambiguous` for several.
    private static let byFirstByte: [Int8] = {
        var table = [Int8](repeating: -1, count: 256)
        for (i, name) in names.enumerated() {
            let k = Int(name[0])
            table[k] = table[k] == -1 ? Int8(i) : ambiguous
        }
        return table
    }()
    private static let ambiguous: Int8 = -2
}

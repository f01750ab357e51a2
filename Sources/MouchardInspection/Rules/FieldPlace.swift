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

    /// The bit of `location`'s place, 0 when it is none of the rule files' places.
    static func bit(of location: String) -> UInt8 {
        let bytes = location.utf8
        // The place's length: up to the first `:`, longer than any place's name is none.
        var length = 0
        for b in bytes {
            if b == UInt8(ascii: ":") { break }
            length += 1
            if length > longest { return 0 }
        }
        for (i, name) in names.enumerated() where name.count == length && bytes.starts(with: name) { return 1 << UInt8(i) }
        return 0
    }

    private static let longest = names.map(\.count).max() ?? 0
}

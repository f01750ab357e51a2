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

    /// The bit of `location`'s place, 0 when it is none of the rule files' places. Read from the
    /// string's UTF-8 storage in place: a generic `starts(with:)` over the UTF-8 view cost some 650
    /// instructions a field, 5% of pattern mode (bench/NOTES.md).
    static func bit(of location: String) -> UInt8 {
        location.utf8.withContiguousStorageIfAvailable(bit(ofBytes:)) ?? Array(location.utf8).withUnsafeBufferPointer(bit(ofBytes:))
    }

    /// `bit(of:)` over the location's bytes.
    private static func bit(ofBytes bytes: UnsafeBufferPointer<UInt8>) -> UInt8 {
        // The place's length: up to the first `:`, longer than any place's name is none.
        var length = 0
        while length < bytes.count, bytes[length] != UInt8(ascii: ":") {
            length += 1
            if length > longest { return 0 }
        }
        for (i, name) in names.enumerated() where name.count == length {
            var same = true
            for k in 0..<length where bytes[k] != name[k] {
                same = false
                break
            }
            if same { return 1 << UInt8(i) }
        }
        return 0
    }

    private static let longest = names.map(\.count).max() ?? 0
}

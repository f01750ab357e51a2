/// An identifier glued to a short prefix: Flurry's Android agent writes `AND` + the Android ID,
/// CleverTap `__g` + the advertising id without dashes. The matchers want an identifier between
/// word boundaries; this finds the hex run behind the prefix.
enum PrefixedIdentifier {
    /// Hex lengths of device identifiers: Android ID (16), a UUID without dashes (32), a UDID (40).
    static let lengths = [16, 32, 40]
    /// Longest prefix read (`AND`, `__g`, `ID_`).
    static let maxPrefix = 4

    /// The identifier-long hex run that ends `value` after a prefix of 1 to `maxPrefix` letters or
    /// `_` (a letter that is a hex digit may be the last of the prefix: `AND` + 16 hex); nil when
    /// `value` is not such a pair.
    static func tail(_ value: ArraySlice<UInt8>) -> ArraySlice<UInt8>? {
        let n = value.count
        guard n >= 17, n <= 40 + maxPrefix else { return nil }
        var hexRun = 0
        var k = value.endIndex - 1
        while k >= value.startIndex, isHexDigit(value[k]) { hexRun += 1; k -= 1 }
        for length in lengths where length <= hexRun {
            let prefixLength = n - length
            guard prefixLength >= 1, prefixLength <= maxPrefix else { continue }
            let prefix = value[value.startIndex..<(value.startIndex + prefixLength)]
            guard prefix.allSatisfy({ ($0 | 0x20) >= 0x61 && ($0 | 0x20) <= 0x7A || $0 == 0x5F }) else { continue }
            let tail = value[(value.startIndex + prefixLength)...]
            // A run of one repeated digit (a placeholder) or without any digit (a word) is no identifier.
            guard tail.contains(where: { $0 >= 0x30 && $0 <= 0x39 }), Set(tail).count > 2 else { continue }
            return tail
        }
        return nil
    }

    private static func isHexDigit(_ b: UInt8) -> Bool {
        (b >= 0x30 && b <= 0x39) || ((b | 0x20) >= 0x61 && (b | 0x20) <= 0x66)
    }
}

/// Host name normalization shared by tracker lookup and first-party decisions.
///
/// Accepts what sources hand us (`Host` header values, SNI, DNS names, URL authorities) and returns the bare
/// lower-case name: surrounding whitespace and the port are stripped (`api.example.com:8443`), a single
/// trailing dot is removed (absolute DNS names), IPv6 literals lose their brackets (`[::1]:80` → `::1`).
/// Returns nil for an empty name. Works on UTF-8 bytes (no Character-level scanning): it runs once per
/// request.
public enum HostName {
    public static func normalized(_ host: some StringProtocol) -> String? {
        normalizedUTF8(host).map { String(decoding: $0, as: UTF8.self) }
    }

    /// `normalized` as UTF-8 bytes.
    public static func normalizedUTF8(_ host: some StringProtocol) -> [UInt8]? {
        var bytes = Array(host.utf8)
        var start = 0
        var end = bytes.count
        while start < end, isASCIIWhitespace(bytes[start]) { start += 1 }
        while end > start, isASCIIWhitespace(bytes[end - 1]) { end -= 1 }
        guard start < end else { return nil }
        if bytes[start] == UInt8(ascii: "[") {
            // [v6]:port or [v6]
            guard let close = bytes[start..<end].firstIndex(of: UInt8(ascii: "]")), close > start + 1 else { return nil }
            return lowercased(bytes[(start + 1)..<close])
        }
        var colons = 0
        var firstColon = end
        for index in start..<end where bytes[index] == UInt8(ascii: ":") {
            if colons == 0 { firstColon = index }
            colons += 1
        }
        if colons == 1 { end = firstColon } // host:port; more colons: a bare IPv6 literal, kept whole
        if colons <= 1, end > start, bytes[end - 1] == UInt8(ascii: ".") { end -= 1 }
        guard start < end else { return nil }
        if start != 0 || end != bytes.count { bytes = Array(bytes[start..<end]) }
        return lowercased(bytes[...])
    }

    /// True for IPv4 dotted quads and IPv6 literals (after `normalized`), which have no registrable domain.
    public static func isIPAddress(_ name: some StringProtocol) -> Bool {
        isIPAddress(utf8: Array(name.utf8))
    }

    /// `isIPAddress` on normalized UTF-8 bytes.
    public static func isIPAddress(utf8 name: [UInt8]) -> Bool {
        if name.contains(UInt8(ascii: ":")) { return true }
        var parts = 0
        var value = 0
        var digits = 0
        for byte in name {
            if byte == UInt8(ascii: ".") {
                guard digits > 0 else { return false }
                parts += 1
                value = 0
                digits = 0
            } else if byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") {
                value = value * 10 + Int(byte - UInt8(ascii: "0"))
                digits += 1
                guard digits <= 3, value <= 255 else { return false }
            } else {
                return false
            }
        }
        return digits > 0 && parts == 3
    }

    /// True when `name` is `domain` or one of its subdomains (label boundary: `notappsflyer.com` is not under
    /// `appsflyer.com`). Both must already be normalized.
    public static func name(_ name: String, isWithin domain: String) -> Bool {
        let nameBytes = name.utf8
        let domainBytes = domain.utf8
        guard nameBytes.count >= domainBytes.count, nameBytes.reversed().starts(with: domainBytes.reversed()) else {
            return false
        }
        if nameBytes.count == domainBytes.count { return true }
        let boundary = nameBytes.index(nameBytes.endIndex, offsetBy: -(domainBytes.count + 1))
        return nameBytes[boundary] == UInt8(ascii: ".")
    }

    private static func isASCIIWhitespace(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D
    }

    /// ASCII letters lowered in place; a name with non-ASCII bytes is lowered by the standard library.
    private static func lowercased(_ bytes: ArraySlice<UInt8>) -> [UInt8] {
        if bytes.contains(where: { $0 >= 0x80 }) {
            return Array(String(decoding: bytes, as: UTF8.self).lowercased().utf8)
        }
        var result = Array(bytes)
        for index in result.indices where result[index] >= UInt8(ascii: "A") && result[index] <= UInt8(ascii: "Z") {
            result[index] += 0x20
        }
        return result
    }
}

/// Host name normalization shared by tracker lookup and first-party decisions.
///
/// Accepts what sources hand us (`Host` header values, SNI, DNS names, URL authorities) and returns the bare
/// lower-case name: the port is stripped (`api.example.com:8443`), a single trailing dot is removed (absolute
/// DNS names), IPv6 literals lose their brackets (`[::1]:80` → `::1`). Returns nil for an empty name.
public enum HostName {
    public static func normalized(_ host: some StringProtocol) -> String? {
        var name = Substring(host).trimmingASCIIWhitespace()
        if name.hasPrefix("[") {
            // [v6]:port or [v6]
            guard let close = name.firstIndex(of: "]") else { return nil }
            name = name[name.index(after: name.startIndex)..<close]
            return name.isEmpty ? nil : name.lowercased()
        }
        let colons = name.reduce(0) { $0 + ($1 == ":" ? 1 : 0) }
        if colons > 1 { return name.lowercased() } // bare IPv6 literal
        if colons == 1, let colon = name.firstIndex(of: ":") { name = name[..<colon] }
        if name.hasSuffix(".") { name = name.dropLast() }
        guard !name.isEmpty else { return nil }
        return name.lowercased()
    }

    /// True for IPv4 dotted quads and IPv6 literals (after `normalized`), which have no registrable domain.
    public static func isIPAddress(_ name: some StringProtocol) -> Bool {
        if name.contains(":") { return true }
        let parts = name.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 4 else { return false }
        return parts.allSatisfy { part in
            !part.isEmpty && part.count <= 3 && part.allSatisfy(\.isASCIIDigit) && (Int(part) ?? 256) <= 255
        }
    }

    /// True when `name` is `domain` or one of its subdomains (label boundary: `notappsflyer.com` is not under
    /// `appsflyer.com`). Both must already be normalized.
    public static func name(_ name: String, isWithin domain: String) -> Bool {
        guard name.hasSuffix(domain) else { return false }
        if name.utf8.count == domain.utf8.count { return true }
        let boundary = name.utf8.index(name.utf8.endIndex, offsetBy: -(domain.utf8.count + 1))
        return name.utf8[boundary] == UInt8(ascii: ".")
    }
}

extension Substring {
    fileprivate func trimmingASCIIWhitespace() -> Substring {
        var result = self
        while let first = result.first, first == " " || first == "\t" || first == "\r" || first == "\n" {
            result = result.dropFirst()
        }
        while let last = result.last, last == " " || last == "\t" || last == "\r" || last == "\n" {
            result = result.dropLast()
        }
        return result
    }
}

extension Character {
    fileprivate var isASCIIDigit: Bool { isASCII && isNumber }
}

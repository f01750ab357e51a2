import Foundation

/// IPv4/IPv6 text ↔ bytes, for iPAddress entries in certificates (pure, no lookups).
enum IPAddressText {
    /// The 4 or 16 bytes of an IP literal (`192.0.2.1`, `2001:db8::1`, `[::1]`), or nil.
    static func parse(_ text: String) -> [UInt8]? {
        var literal = text
        if literal.hasPrefix("["), literal.hasSuffix("]") { literal = String(literal.dropFirst().dropLast()) }
        if literal.contains(":") {
            var address = in6_addr()
            guard inet_pton(AF_INET6, literal, &address) == 1 else { return nil }
            return withUnsafeBytes(of: &address) { Array($0) }
        }
        var address = in_addr()
        guard literal.allSatisfy({ $0.isASCII && ($0.isNumber || $0 == ".") }),
              inet_pton(AF_INET, literal, &address) == 1 else { return nil }
        return withUnsafeBytes(of: &address) { Array($0) }
    }

    /// Text form of 4 or 16 address bytes.
    static func format(_ bytes: [UInt8]) -> String? {
        let family: Int32
        switch bytes.count {
        case 4: family = AF_INET
        case 16: family = AF_INET6
        default: return nil
        }
        var buffer = [CChar](repeating: 0, count: 64)
        let ok = bytes.withUnsafeBytes { inet_ntop(family, $0.baseAddress, &buffer, 64) } != nil
        return ok ? cString(buffer) : nil
    }
}

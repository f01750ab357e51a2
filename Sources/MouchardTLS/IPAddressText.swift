import Foundation

/// IPv4/IPv6 text ↔ bytes, for iPAddress entries in certificates (pure, no lookups).
enum IPAddressText {
    /// The 4 or 16 bytes of an IP literal (`192.0.2.1`, `2001:db8::1`, `[::1]`), or nil.
    static func parse(_ text: String) -> [UInt8]? {
        var bytes = Array(text.utf8)
        if bytes.first == UInt8(ascii: "["), bytes.last == UInt8(ascii: "]") { bytes = Array(bytes.dropFirst().dropLast()) }
        // Cheap byte checks first: most names are DNS names and never reach inet_pton.
        guard !bytes.isEmpty, bytes.count <= 45 else { return nil }
        let isV6 = bytes.contains(UInt8(ascii: ":"))
        guard bytes.allSatisfy({ isAddressByte($0, v6: isV6) }) else { return nil }
        bytes.append(0)
        return bytes.withUnsafeBufferPointer { literal -> [UInt8]? in
            guard let base = literal.baseAddress else { return nil }
            return base.withMemoryRebound(to: CChar.self, capacity: literal.count) { cString -> [UInt8]? in
                if isV6 {
                    var address = in6_addr()
                    guard inet_pton(AF_INET6, cString, &address) == 1 else { return nil }
                    return withUnsafeBytes(of: &address) { Array($0) }
                }
                var address = in_addr()
                guard inet_pton(AF_INET, cString, &address) == 1 else { return nil }
                return withUnsafeBytes(of: &address) { Array($0) }
            }
        }
    }

    private static func isAddressByte(_ byte: UInt8, v6: Bool) -> Bool {
        if byte >= 0x30 && byte <= 0x39 || byte == 0x2E { return true }
        guard v6 else { return false }
        let lower = byte | 0x20
        return byte == 0x3A || (lower >= 0x61 && lower <= 0x66)
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

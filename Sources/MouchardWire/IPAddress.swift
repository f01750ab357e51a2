/// An IPv4 or IPv6 address held in 128 bits (IPv4 in the low 32 bits with `isIPv4` set), cheap
/// to hash and compare so that connection tables can key on it.
public struct IPAddress: Sendable, Hashable, Comparable, CustomStringConvertible {
    public var high: UInt64
    public var low: UInt64
    public var isIPv4: Bool

    public init(ipv4: UInt32) {
        high = 0
        low = UInt64(ipv4)
        isIPv4 = true
    }

    public init(ipv6High: UInt64, low: UInt64) {
        high = ipv6High
        self.low = low
        isIPv4 = false
    }

    /// Reads 4 (IPv4) or 16 (IPv6) bytes at `offset` of `bytes`.
    static func read(_ bytes: ArraySlice<UInt8>, at offset: Int, ipv6: Bool) -> IPAddress? {
        if !ipv6 { return bytes.be32(at: offset).map { IPAddress(ipv4: $0) } }
        guard let a = bytes.be32(at: offset), let b = bytes.be32(at: offset + 4), let c = bytes.be32(at: offset + 8),
              let d = bytes.be32(at: offset + 12) else { return nil }
        return IPAddress(ipv6High: UInt64(a) << 32 | UInt64(b), low: UInt64(c) << 32 | UInt64(d))
    }

    public static func < (a: IPAddress, b: IPAddress) -> Bool {
        if a.isIPv4 != b.isIPv4 { return a.isIPv4 }
        return (a.high, a.low) < (b.high, b.low)
    }

    /// Dotted quad for IPv4; RFC 5952 text (lower-case, longest zero run as `::`) for IPv6.
    public var description: String {
        if isIPv4 {
            let v = UInt32(truncatingIfNeeded: low)
            return "\(v >> 24).\((v >> 16) & 0xFF).\((v >> 8) & 0xFF).\(v & 0xFF)"
        }
        var groups = [UInt16]()
        for i in stride(from: 48, through: 0, by: -16) { groups.append(UInt16(truncatingIfNeeded: high >> UInt64(i))) }
        for i in stride(from: 48, through: 0, by: -16) { groups.append(UInt16(truncatingIfNeeded: low >> UInt64(i))) }
        // Longest run (>= 2) of zero groups becomes "::".
        var bestStart = -1, bestLen = 0, i = 0
        while i < 8 {
            if groups[i] == 0 {
                var j = i
                while j < 8 && groups[j] == 0 { j += 1 }
                if j - i > bestLen { bestStart = i; bestLen = j - i }
                i = j
            } else {
                i += 1
            }
        }
        if bestLen < 2 { bestStart = -1; bestLen = 0 }
        func hex(_ g: UInt16) -> String { String(g, radix: 16) }
        if bestStart < 0 { return groups.map(hex).joined(separator: ":") }
        let left = groups[0..<bestStart].map(hex).joined(separator: ":")
        let right = groups[(bestStart + bestLen)...].map(hex).joined(separator: ":")
        return left + "::" + right
    }
}

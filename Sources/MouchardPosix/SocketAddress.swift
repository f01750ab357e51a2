#if canImport(Glibc)
import Glibc
#endif
import CMouchardShims

/// An IPv4 or IPv6 socket address (address + port) as the kernel takes it.
public struct SocketAddress: Sendable, Hashable, CustomStringConvertible {
    var storage: sockaddr_storage
    var length: socklen_t

    init(storage: sockaddr_storage, length: socklen_t) {
        self.storage = storage
        self.length = length
    }

    /// Parses a numeric IPv4 (`127.0.0.1`) or IPv6 (`::1`, `[::1]`) literal; nil for anything else.
    public init?(ip: String, port: Int) {
        guard (0...65535).contains(port) else { return nil }
        var ip = ip
        if ip.hasPrefix("["), ip.hasSuffix("]") { ip = String(ip.dropFirst().dropLast()) }
        var storage = sockaddr_storage()
        var ok = false
        var len: socklen_t = 0
        if !ip.contains(":") {
            withUnsafeMutableBytes(of: &storage) { raw in
                let sin = raw.baseAddress!.assumingMemoryBound(to: sockaddr_in.self)
                sin.pointee.sin_family = sa_family_t(AF_INET)
                sin.pointee.sin_port = in_port_t(UInt16(port).bigEndian)
                ok = inet_pton(AF_INET, ip, &sin.pointee.sin_addr) == 1
            }
            len = socklen_t(MemoryLayout<sockaddr_in>.size)
        } else {
            withUnsafeMutableBytes(of: &storage) { raw in
                let sin6 = raw.baseAddress!.assumingMemoryBound(to: sockaddr_in6.self)
                sin6.pointee.sin6_family = sa_family_t(AF_INET6)
                sin6.pointee.sin6_port = in_port_t(UInt16(port).bigEndian)
                ok = inet_pton(AF_INET6, ip, &sin6.pointee.sin6_addr) == 1
            }
            len = socklen_t(MemoryLayout<sockaddr_in6>.size)
        }
        guard ok else { return nil }
        self.storage = storage
        self.length = len
    }

    /// Parses `host:port`, `[v6]:port` with a numeric host; nil otherwise.
    public init?(parsing text: String) {
        let host: Substring
        let portText: Substring
        if text.hasPrefix("[") {
            guard let close = text.firstIndex(of: "]") else { return nil }
            host = text[text.index(after: text.startIndex)..<close]
            let rest = text[text.index(after: close)...]
            guard rest.hasPrefix(":") else { return nil }
            portText = rest.dropFirst()
        } else {
            guard let colon = text.lastIndex(of: ":") else { return nil }
            host = text[..<colon]
            portText = text[text.index(after: colon)...]
        }
        guard let port = Int(portText) else { return nil }
        self.init(ip: String(host), port: port)
    }

    public var family: Int32 { Int32(storage.ss_family) }
    public var isIPv6: Bool { family == AF_INET6 }

    public var port: Int {
        withUnsafeBytes(of: storage) { raw -> Int in
            if family == AF_INET6 {
                return Int(UInt16(bigEndian: raw.load(as: sockaddr_in6.self).sin6_port))
            }
            return Int(UInt16(bigEndian: raw.load(as: sockaddr_in.self).sin_port))
        }
    }

    /// The numeric address without port or brackets: `127.0.0.1`, `::1`.
    public var ip: String {
        var buffer = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN) + 1)
        withUnsafeBytes(of: storage) { raw in
            if family == AF_INET6 {
                var a = raw.load(as: sockaddr_in6.self).sin6_addr
                _ = inet_ntop(AF_INET6, &a, &buffer, socklen_t(buffer.count))
            } else {
                var a = raw.load(as: sockaddr_in.self).sin_addr
                _ = inet_ntop(AF_INET, &a, &buffer, socklen_t(buffer.count))
            }
        }
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// The address in network order: 4 bytes for IPv4, 16 for IPv6.
    public var addressBytes: [UInt8] {
        withUnsafeBytes(of: storage) { raw -> [UInt8] in
            if family == AF_INET6 {
                return withUnsafeBytes(of: raw.load(as: sockaddr_in6.self).sin6_addr) { Array($0) }
            }
            return withUnsafeBytes(of: raw.load(as: sockaddr_in.self).sin_addr) { Array($0) }
        }
    }

    /// True for 127.0.0.0/8 and ::1 (and v4-mapped 127/8).
    public var isLoopback: Bool {
        let text = ip
        return text == "::1" || text.hasPrefix("127.") || text.hasPrefix("::ffff:127.")
    }

    /// True for an IPv4 client seen through an IPv6 socket (`::ffff:a.b.c.d`).
    public var isV4Mapped: Bool { isIPv6 && ip.lowercased().hasPrefix("::ffff:") && ip.contains(".") }

    /// The same address with a v4-mapped IPv6 address turned into plain IPv4 (else unchanged).
    public var unmapped: SocketAddress {
        guard isV4Mapped else { return self }
        return SocketAddress(ip: String(ip.dropFirst("::ffff:".count)), port: port) ?? self
    }

    /// True for the unspecified address (0.0.0.0 or ::).
    public var isUnspecified: Bool { ip == "0.0.0.0" || ip == "::" }

    public var description: String { isIPv6 ? "[\(ip)]:\(port)" : "\(ip):\(port)" }

    public static func == (a: SocketAddress, b: SocketAddress) -> Bool {
        a.length == b.length && a.description == b.description
    }

    public func hash(into hasher: inout Hasher) { hasher.combine(description) }
}

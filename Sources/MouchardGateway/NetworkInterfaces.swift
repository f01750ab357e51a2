import Foundation

/// The box's interfaces as the gateway needs them: whether one exists, its addresses and
/// networks, and which one carries the default route.
public enum NetworkInterfaces {
    public struct Address: Sendable, Hashable {
        public var interface: String
        public var address: String
        public var prefixLength: Int
        public var isIPv6: Bool { address.contains(":") }
        /// fe80::/10: not a network to masquerade or an address to hand out.
        public var isLinkLocal: Bool { address.lowercased().hasPrefix("fe80") }
    }

    public static func exists(_ name: String) -> Bool {
        !name.isEmpty && !name.contains("/") && FileManager.default.fileExists(atPath: "/sys/class/net/\(name)")
    }

    public static func all() -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: "/sys/class/net")) ?? []).sorted()
    }

    /// Every address of `interface` (getifaddrs).
    public static func addresses(of interface: String) -> [Address] {
        var list: UnsafeMutablePointer<ifaddrs>?
        guard getifaddrs(&list) == 0, let first = list else { return [] }
        defer { freeifaddrs(list) }
        var out: [Address] = []
        var cursor: UnsafeMutablePointer<ifaddrs>? = first
        while let entry = cursor {
            defer { cursor = entry.pointee.ifa_next }
            guard String(cString: entry.pointee.ifa_name) == interface, let addr = entry.pointee.ifa_addr else { continue }
            let family = Int32(addr.pointee.sa_family)
            guard family == AF_INET || family == AF_INET6 else { continue }
            guard let text = numeric(addr), let mask = entry.pointee.ifa_netmask else { continue }
            out.append(Address(interface: interface, address: text, prefixLength: prefixLength(mask, family: family)))
        }
        return out
    }

    /// The networks of `interface` (host bits cleared), link-local ones left out.
    public static func networks(of interface: String) -> [IPNetwork] {
        var seen = Set<IPNetwork>()
        return addresses(of: interface).filter { !$0.isLinkLocal }.compactMap { a -> IPNetwork? in
            guard let n = network(a.address, prefixLength: a.prefixLength), seen.insert(n).inserted else { return nil }
            return n
        }
    }

    /// The interface of the IPv4 default route (`/proc/net/route`), else of the IPv6 one.
    public static func defaultRouteInterface() -> String? {
        if let text = try? String(contentsOfFile: "/proc/net/route", encoding: .utf8) {
            for line in text.split(separator: "\n").dropFirst() {
                let f = line.split(whereSeparator: { $0 == " " || $0 == "\t" })
                if f.count > 2, f[1] == "00000000", f[7] == "00000000" { return String(f[0]) }
            }
        }
        if let text = try? String(contentsOfFile: "/proc/net/ipv6_route", encoding: .utf8) {
            for line in text.split(separator: "\n") {
                let f = line.split(separator: " ")
                if f.count >= 10, f[0] == String(repeating: "0", count: 32), f[1] == "00", f[9] != "lo" { return String(f[9]) }
            }
        }
        return nil
    }

    /// `address/prefix` with the host bits cleared (pure).
    public static func network(_ address: String, prefixLength: Int) -> IPNetwork? {
        let v6 = address.contains(":")
        var bytes = [UInt8](repeating: 0, count: v6 ? 16 : 4)
        guard inet_pton(v6 ? AF_INET6 : AF_INET, address, &bytes) == 1 else { return nil }
        for i in 0..<bytes.count {
            let bits = max(0, min(8, prefixLength - i * 8))
            bytes[i] &= bits == 0 ? 0 : UInt8(truncatingIfNeeded: 0xFF << (8 - bits))
        }
        var buffer = [CChar](repeating: 0, count: 64)
        guard inet_ntop(v6 ? AF_INET6 : AF_INET, bytes, &buffer, socklen_t(buffer.count)) != nil else { return nil }
        return IPNetwork(address: Self.text(buffer), prefixLength: prefixLength)
    }

    /// A NUL-terminated C buffer as text.
    private static func text(_ buffer: [CChar]) -> String {
        String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    private static func numeric(_ addr: UnsafeMutablePointer<sockaddr>) -> String? {
        var host = [CChar](repeating: 0, count: Int(NI_MAXHOST))
        let length = socklen_t(addr.pointee.sa_family == sa_family_t(AF_INET6) ? MemoryLayout<sockaddr_in6>.size
                                                                                 : MemoryLayout<sockaddr_in>.size)
        guard getnameinfo(addr, length, &host, socklen_t(host.count), nil, 0, NI_NUMERICHOST) == 0 else { return nil }
        let text = Self.text(host)
        return text.split(separator: "%").first.map(String.init)  // drop a link-local zone
    }

    private static func prefixLength(_ mask: UnsafeMutablePointer<sockaddr>, family: Int32) -> Int {
        var count = 0
        if family == AF_INET6 {
            mask.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { p in
                withUnsafeBytes(of: p.pointee.sin6_addr) { for b in $0 { count += b.nonzeroBitCount } }
            }
        } else {
            mask.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { p in
                count = p.pointee.sin_addr.s_addr.nonzeroBitCount
            }
        }
        return count
    }
}

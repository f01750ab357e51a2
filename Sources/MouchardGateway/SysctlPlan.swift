/// The kernel settings the gateway needs, decided from the current values (pure). Each change is
/// saved before it is made and restored exactly on exit or by `--cleanup`.
public enum SysctlPlan {
    public struct Change: Sendable, Hashable, Codable {
        /// The sysctl key, dotted (`net.ipv4.ip_forward`).
        public var key: String
        public var previous: String
        public var wanted: String
        public init(key: String, previous: String, wanted: String) {
            self.key = key
            self.previous = previous
            self.wanted = wanted
        }
    }

    /// What to change, given a reader of the current values (nil = the key does not exist).
    /// - IPv4 and IPv6 forwarding on;
    /// - ICMP redirects off (on `all` and the phone side), or the box tells a phone on the same LAN
    ///   to bypass it;
    /// - when IPv6 forwarding is turned on, the uplink keeps accepting router advertisements
    ///   (`accept_ra=2`), or it loses its IPv6 default route.
    public static func changes(for plan: GatewayPlan, current: (String) -> String?) -> [Change] {
        var wanted: [(String, String)] = [
            ("net.ipv4.ip_forward", "1"),
            ("net.ipv4.conf.all.send_redirects", "0"),
            ("net.ipv4.conf.\(plan.phoneSide).send_redirects", "0"),
            ("net.ipv6.conf.all.forwarding", "1"),
        ]
        if current("net.ipv6.conf.\(plan.uplink).accept_ra") == "1" {
            wanted.append(("net.ipv6.conf.\(plan.uplink).accept_ra", "2"))
        }
        return wanted.compactMap { key, value in
            guard let now = current(key), now != value else { return nil }
            return Change(key: key, previous: now, wanted: value)
        }
    }

    /// `/proc/sys/...` path of a dotted key (interface names may hold dots: only the first
    /// four separators are path separators for `net.ipvX.conf.IFACE.name`).
    public static func path(of key: String) -> String {
        let parts = key.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        if parts.count > 5, parts[0] == "net", parts[2] == "conf" {
            let iface = parts[3..<(parts.count - 1)].joined(separator: ".")
            return "/proc/sys/" + [parts[0], parts[1], parts[2], iface, parts[parts.count - 1]].joined(separator: "/")
        }
        return "/proc/sys/" + parts.joined(separator: "/")
    }
}

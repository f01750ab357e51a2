/// What `mouchard gateway` sets up on the box, decided before anything changes: the phone-side
/// interface and its networks, the uplink, the TCP ports redirected to the transparent listener,
/// and whether QUIC is let through. Pure data, built by the CLI from the interfaces it found.
public struct GatewayPlan: Sendable, Hashable, Codable {
    /// The interface the phone is on (Wi-Fi hotspot, USB adapter, second NIC).
    public var phoneSide: String
    /// Where the phone's traffic leaves (the default route's interface by default).
    public var uplink: String
    /// The phone-side networks (`10.42.0.0/24`, `fd42::/64`): masqueraded to the uplink, and the
    /// conntrack entries flushed on setup and teardown.
    public var phoneNetworks: [IPNetwork]
    /// TCP destination ports redirected to the transparent listener.
    public var ports: [Int]
    /// The transparent listener's port (on the phone-side addresses).
    public var listenPort: Int
    /// UDP/443 is forwarded instead of rejected (QUIC then stays opaque: only its SNI is recorded).
    public var allowQUIC: Bool

    /// The default redirected ports: HTTP, HTTPS and their usual alternates.
    public static let defaultPorts = [80, 443, 8080, 8443]

    public init(phoneSide: String, uplink: String, phoneNetworks: [IPNetwork], ports: [Int] = GatewayPlan.defaultPorts,
                listenPort: Int, allowQUIC: Bool = false) {
        self.phoneSide = phoneSide
        self.uplink = uplink
        self.phoneNetworks = phoneNetworks
        self.ports = ports
        self.listenPort = listenPort
        self.allowQUIC = allowQUIC
    }

    public var ipv4Networks: [IPNetwork] { phoneNetworks.filter { !$0.isIPv6 } }
    public var ipv6Networks: [IPNetwork] { phoneNetworks.filter { $0.isIPv6 } }
}

/// An address prefix: `10.42.0.0/24`, `fd42::/64`.
public struct IPNetwork: Sendable, Hashable, Codable, CustomStringConvertible {
    /// The network address (host bits cleared) as text.
    public var address: String
    public var prefixLength: Int

    public init(address: String, prefixLength: Int) {
        self.address = address
        self.prefixLength = prefixLength
    }

    public var isIPv6: Bool { address.contains(":") }
    public var description: String { "\(address)/\(prefixLength)" }
}

/// One place the device talked to, as a capture shows it: named by the HTTP Host, the TLS SNI,
/// or the DNS answer that gave its address (else the address itself), with how it was reached.
public struct CaptureDestination: Sendable, Hashable, Codable {
    public var host: String
    /// Server addresses seen for this host, plus the addresses DNS gave for it.
    public var addresses: [String]
    /// Sorted subset of `http`, `tls`, `quic`, `other`; `dns` alone means resolved but no traffic seen.
    public var transports: [String]
    /// HTTP exchanges + TLS handshakes + QUIC and other conversations.
    public var flows: Int
    /// Transport payload bytes, both directions.
    public var bytes: Int
    /// QUIC Initial packets sent by clients to this host.
    public var quicInitials: Int

    public init(host: String, addresses: [String] = [], transports: [String] = [], flows: Int = 0, bytes: Int = 0,
                quicInitials: Int = 0) {
        self.host = host
        self.addresses = addresses
        self.transports = transports
        self.flows = flows
        self.bytes = bytes
        self.quicInitials = quicInitials
    }

    enum CodingKeys: String, CodingKey {
        case host, addresses, transports, flows, bytes
        case quicInitials = "quic_initials"
    }
}

/// Accumulates destinations while a capture is read; `summary` sorts them by bytes.
struct DestinationTable {
    private var byHost: [String: CaptureDestination] = [:]

    mutating func record(host: String, address: String?, transport: String?, flows: Int = 0, bytes: Int = 0,
                         quicInitials: Int = 0) {
        guard !host.isEmpty else { return }
        var d = byHost[host] ?? CaptureDestination(host: host)
        if let address, !d.addresses.contains(address) { d.addresses.append(address) }
        if let transport, !d.transports.contains(transport) {
            d.transports.append(transport)
            d.transports.sort()
        }
        d.flows += flows
        d.bytes += bytes
        d.quicInitials += quicInitials
        byHost[host] = d
    }

    /// Every destination (addresses sorted); names only resolved by DNS are marked `dns`.
    func summary() -> [CaptureDestination] {
        byHost.values.map { d -> CaptureDestination in
            var d = d
            if d.transports.count > 1 { d.transports.removeAll { $0 == "dns" } }
            d.addresses.sort()
            return d
        }.sorted { ($0.bytes, $1.host) > ($1.bytes, $0.host) }
    }
}

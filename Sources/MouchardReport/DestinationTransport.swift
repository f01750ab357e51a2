import MouchardFlow

/// How traffic to a destination travelled, as the destinations table shows it.
public enum DestinationTransport: String, Sendable, Hashable, Codable, CaseIterable, Comparable {
    /// Cleartext HTTP: anyone on the network path could read it.
    case cleartext
    /// TLS that Mouchard (or the HAR's proxy) decrypted: content inspected.
    case interceptedTLS = "intercepted-tls"
    /// TLS that stayed encrypted (certificate pinning, or not intercepted): only names seen.
    case tlsNotDecrypted = "tls-not-decrypted"
    /// QUIC / HTTP/3 over UDP: encrypted, only names seen.
    case quic

    /// Words for a reader.
    public var label: String {
        switch self {
        case .cleartext: "cleartext HTTP"
        case .interceptedTLS: "intercepted TLS"
        case .tlsNotDecrypted: "TLS not decrypted (pinned or ignored)"
        case .quic: "QUIC"
        }
    }

    /// The class of one flow: its transport, with QUIC told apart by an `h3` ALPN or a `quic` marker.
    public init(flow: Flow) {
        switch flow.transport {
        case .http: self = .cleartext
        case .https: self = .interceptedTLS
        case .tlsMetadata:
            let alpnQUIC = flow.tls?.alpn.contains { $0.lowercased().hasPrefix("h3") } ?? false
            let marked = flow.extras["_transport"]?.lowercased().contains("quic") ?? false
            self = alpnQUIC || marked ? .quic : .tlsNotDecrypted
        }
    }

    /// The class of a finding's `transport` field (`http`, `https`, `tls-metadata`).
    public init(findingTransport: String) {
        switch findingTransport {
        case "http": self = .cleartext
        case "https": self = .interceptedTLS
        case "quic": self = .quic
        default: self = .tlsNotDecrypted
        }
    }

    /// Rank from most exposed (cleartext) to least inspected.
    var rank: Int {
        switch self {
        case .cleartext: 0
        case .interceptedTLS: 1
        case .tlsNotDecrypted: 2
        case .quic: 3
        }
    }

    public static func < (a: Self, b: Self) -> Bool { a.rank < b.rank }
}

/// Where the proxy sends a request: host (name or IP literal, no brackets), port, and whether
/// the upstream connection speaks TLS. Also the key of the upstream connection pool.
public struct UpstreamTarget: Sendable, Hashable, CustomStringConvertible {
    public var host: String
    public var port: Int
    public var tls: Bool

    public init(host: String, port: Int, tls: Bool) {
        self.host = host
        self.port = port
        self.tls = tls
    }

    /// `host:port` with IPv6 brackets.
    public var authority: String { host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)" }
    public var description: String { (tls ? "https://" : "http://") + authority }
}

/// Why the proxy could not get a response from upstream; decides 502 vs 504 and the body text.
public enum UpstreamFailure: Sendable, Hashable, CustomStringConvertible {
    case dnsFailed(String)
    case refused(String)
    case reset(String)
    case unreachable(String)
    case timedOut(String)
    case tlsFailed(String)
    case closedEarly
    case badResponse(String)

    /// 504 for a timeout, 502 for everything else.
    public var status: Int {
        if case .timedOut = self { return 504 }
        return 502
    }

    public var description: String {
        switch self {
        case .dnsFailed(let d): return "DNS lookup failed: \(d)"
        case .refused(let d): return "connection refused: \(d)"
        case .reset(let d): return "connection reset: \(d)"
        case .unreachable(let d): return "unreachable: \(d)"
        case .timedOut(let d): return "timed out: \(d)"
        case .tlsFailed(let d): return "TLS handshake failed: \(d)"
        case .closedEarly: return "upstream closed the connection before responding"
        case .badResponse(let d): return "invalid response from upstream: \(d)"
        }
    }
}

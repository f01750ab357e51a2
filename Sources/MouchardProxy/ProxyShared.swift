import Foundation
import MouchardFlow
import MouchardPosix
import MouchardWire
import Synchronization

/// What every loop of one proxy shares (immutable or thread-safe): configuration, DNS resolver,
/// flow sink, ignore-host patterns, counters, and the local responder (onboarding page).
final class ProxyShared: Sendable {
    let configuration: ProxyConfiguration
    let resolver: Resolver
    let sink: any FlowSink
    let ignorePatterns: [IgnoreHostPattern]
    let localResponder: @Sendable (HTTPRequestHead) -> LocalResponse?
    let statistics = ProxyStatistics()
    let boundPort: Int
    let interceptor: TLSInterceptor?

    init(configuration: ProxyConfiguration, resolver: Resolver, sink: any FlowSink, ignorePatterns: [IgnoreHostPattern],
         localResponder: @escaping @Sendable (HTTPRequestHead) -> LocalResponse?, boundPort: Int,
         interceptor: TLSInterceptor?) {
        self.configuration = configuration
        self.resolver = resolver
        self.sink = sink
        self.ignorePatterns = ignorePatterns
        self.localResponder = localResponder
        self.boundPort = boundPort
        self.interceptor = interceptor
    }

    /// True when `host:port` is this proxy (listening on `listenIP:boundPort`).
    static func isSelf(host: String, port: Int, boundPort: Int, listenIP: String) -> Bool {
        guard port == boundPort else { return false }
        let h = host.lowercased()
        if h == "localhost" || h == "localhost." { return true }
        guard let a = SocketAddress(ip: h, port: port) else { return false }
        return a.isLoopback || a.isUnspecified || a.ip == listenIP
    }

    /// Whether an intercepted connection may become HTTP/2 (see `ProxyConfiguration.http2`).
    var offersHTTP2: Bool { configuration.http2 && configuration.replay == nil }

    func isIgnored(_ host: String) -> Bool {
        ignorePatterns.contains { $0.matches(host) }
    }

    func machineConfiguration(scheme: String, tunnelTarget: UpstreamTarget?) -> ForwardProxyMachine.Configuration {
        let port = boundPort
        let listenIP = configuration.listen.ip
        var c = ForwardProxyMachine.Configuration(
            scheme: scheme, tunnelTarget: tunnelTarget, bodyCaptureLimit: configuration.bodyCaptureLimit,
            isSelf: { host, p in ProxyShared.isSelf(host: host, port: p, boundPort: port, listenIP: listenIP) },
            localResponder: localResponder, replay: configuration.replay)
        if configuration.access.credentials != nil {
            let access = configuration.access
            let statistics = self.statistics
            c.authorize = { headers in
                let ok = access.authorizes(headers)
                if !ok { statistics.unauthorized.wrappingAdd(1, ordering: .relaxed) }
                return ok
            }
        }
        return c
    }

    /// Counts a connection refused for its address and logs the first refusal of each address.
    func refuse(_ address: SocketAddress) {
        statistics.refused.wrappingAdd(1, ordering: .relaxed)
        let first = refusedAddresses.withLock { seen in
            seen.count < Self.refusedAddressesLogged && seen.insert(address.ip).inserted
        }
        if first {
            configuration.log("mouchard: refused a connection from \(address.ip): not in the allowed client networks " +
                              "(\(configuration.access.networks.map(\.description).joined(separator: ", "))); see --allow-client")
        }
    }

    /// Addresses whose refusal was logged (each once, at most `refusedAddressesLogged` of them).
    private let refusedAddresses = Mutex<Set<String>>([])
    static let refusedAddressesLogged = 64
}

/// A `--ignore-host` regular expression, matched against the whole host name (case-insensitive).
public struct IgnoreHostPattern: Sendable {
    public let pattern: String
    private let regex: NSRegularExpressionBox

    public init(_ pattern: String) throws {
        self.pattern = pattern
        self.regex = NSRegularExpressionBox(try NSRegularExpression(pattern: pattern, options: [.caseInsensitive]))
    }

    public func matches(_ host: String) -> Bool {
        let range = NSRange(host.startIndex..., in: host)
        return regex.value.firstMatch(in: host, options: [], range: range) != nil
    }
}

/// NSRegularExpression is thread-safe for matching but not marked Sendable on Linux.
struct NSRegularExpressionBox: @unchecked Sendable {
    let value: NSRegularExpression
    init(_ value: NSRegularExpression) { self.value = value }
}

/// Counters for the shutdown summary and benchmarks.
public final class ProxyStatistics: Sendable {
    let accepted = Atomic<Int>(0)
    let exchanges = Atomic<Int>(0)
    let failures = Atomic<Int>(0)
    let tunnels = Atomic<Int>(0)
    let intercepted = Atomic<Int>(0)
    let rejectedCertificates = Atomic<Int>(0)
    /// Connections refused: a client outside the allowed networks, or (transparent) no NAT entry
    /// or aimed at the listener itself.
    let refused = Atomic<Int>(0)
    /// Requests answered 407 (missing or wrong proxy credentials).
    let unauthorized = Atomic<Int>(0)
    /// Body bytes of the exchanges recorded and bytes through tunnels, both ways.
    let bytes = Atomic<Int>(0)
    /// Intercepted connections carried as HTTP/2, and those closed for breaking a limit or the protocol.
    let http2Connections = Atomic<Int>(0)
    let http2Refused = Atomic<Int>(0)
    /// The most body bytes an h2 connection ever held for one side (bounded by the windows).
    let http2PeakBufferedBodyBytes = Atomic<Int>(0)

    public struct Snapshot: Sendable, Hashable {
        public var acceptedConnections: Int
        public var exchanges: Int
        public var failedExchanges: Int
        public var tunnels: Int
        public var interceptedTunnels: Int
        public var rejectedCertificates: Int
        public var refusedConnections: Int
        public var unauthorizedRequests: Int
        public var bytes: Int
        public var http2Connections: Int
        public var http2Refused: Int
        public var http2PeakBufferedBodyBytes: Int
    }

    public var snapshot: Snapshot {
        Snapshot(acceptedConnections: accepted.load(ordering: .relaxed), exchanges: exchanges.load(ordering: .relaxed),
                 failedExchanges: failures.load(ordering: .relaxed), tunnels: tunnels.load(ordering: .relaxed),
                 interceptedTunnels: intercepted.load(ordering: .relaxed),
                 rejectedCertificates: rejectedCertificates.load(ordering: .relaxed),
                 refusedConnections: refused.load(ordering: .relaxed), unauthorizedRequests: unauthorized.load(ordering: .relaxed),
                 bytes: bytes.load(ordering: .relaxed), http2Connections: http2Connections.load(ordering: .relaxed),
                 http2Refused: http2Refused.load(ordering: .relaxed),
                 http2PeakBufferedBodyBytes: http2PeakBufferedBodyBytes.load(ordering: .relaxed))
    }
}

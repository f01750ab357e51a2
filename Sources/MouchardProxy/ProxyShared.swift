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

    func isIgnored(_ host: String) -> Bool {
        ignorePatterns.contains { $0.matches(host) }
    }

    func machineConfiguration(scheme: String, tunnelTarget: UpstreamTarget?) -> ForwardProxyMachine.Configuration {
        let port = boundPort
        let listenIP = configuration.listen.ip
        return ForwardProxyMachine.Configuration(
            scheme: scheme, tunnelTarget: tunnelTarget, bodyCaptureLimit: configuration.bodyCaptureLimit,
            isSelf: { host, p in ProxyShared.isSelf(host: host, port: p, boundPort: port, listenIP: listenIP) },
            localResponder: localResponder, replay: configuration.replay)
    }
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
    /// Transparent connections refused (no NAT entry, or aimed at the listener itself).
    let refused = Atomic<Int>(0)

    public struct Snapshot: Sendable, Hashable {
        public var acceptedConnections: Int
        public var exchanges: Int
        public var failedExchanges: Int
        public var tunnels: Int
        public var interceptedTunnels: Int
        public var rejectedCertificates: Int
        public var refusedConnections: Int
    }

    public var snapshot: Snapshot {
        Snapshot(acceptedConnections: accepted.load(ordering: .relaxed), exchanges: exchanges.load(ordering: .relaxed),
                 failedExchanges: failures.load(ordering: .relaxed), tunnels: tunnels.load(ordering: .relaxed),
                 interceptedTunnels: intercepted.load(ordering: .relaxed),
                 rejectedCertificates: rejectedCertificates.load(ordering: .relaxed),
                 refusedConnections: refused.load(ordering: .relaxed))
    }
}

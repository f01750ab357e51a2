import Foundation
import MouchardFlow
import MouchardPosix
import MouchardProxy
import MouchardTLS
import Synchronization

/// Server replay: answers requests from recorded exchanges, as an origin (plain HTTP, and HTTPS
/// with leaves minted by Mouchard's CA for the names the client asks for) and as a forward proxy
/// (absolute-form requests, CONNECT with interception), on one port. It is the proxy itself
/// (`ProxyServer`) with a `RecordedResponses` source: every request, served or missed, becomes a
/// flow handed to `sink`, as the proxy records any exchange.
public final class MockServer: @unchecked Sendable {
    public struct Options: Sendable {
        public var listen: SocketAddress
        public var matching: MatchOptions
        public var miss: MissPolicy
        /// Answer origin-form requests and direct TLS too (`mock`); false = forward proxy only (`proxy --replay`).
        public var acceptsOriginRequests: Bool
        /// Where the CA lives (created there when missing).
        public var authorityDirectory: String
        /// For `--replay-miss forward`: how origins are verified.
        public var upstreamCAFile: String?
        public var insecureUpstream: Bool
        public var threads: Int
        /// Largest recorded response served, and largest request body matched.
        public var bodyLimit: Int

        public init(listen: SocketAddress = SocketAddress(ip: "127.0.0.1", port: 0)!, matching: MatchOptions = MatchOptions(),
                    miss: MissPolicy = .notFound, acceptsOriginRequests: Bool = true,
                    authorityDirectory: String = MouchardHome.directory(), upstreamCAFile: String? = nil,
                    insecureUpstream: Bool = false, threads: Int = EventLoopGroup.defaultThreadCount, bodyLimit: Int = 64 << 20) {
            self.listen = listen
            self.matching = matching
            self.miss = miss
            self.acceptsOriginRequests = acceptsOriginRequests
            self.authorityDirectory = authorityDirectory
            self.upstreamCAFile = upstreamCAFile
            self.insecureUpstream = insecureUpstream
            self.threads = threads
            self.bodyLimit = bodyLimit
        }
    }

    public let options: Options
    public let responses: RecordedResponses
    public let interceptor: TLSInterceptor
    /// Flows seen only as TLS metadata in the source (nothing to serve).
    public let skippedFlows: Int
    private let server: ProxyServer
    public private(set) var address: SocketAddress?

    /// Checks the flows (see `RecordedFlows.servable`) and prepares the server; `start()` listens.
    public init(flows: [Flow], options: Options = Options(), sink: any FlowSink = DiscardingFlowSink()) throws {
        self.options = options
        let made = try ReplayServing.recordings(flows, matching: options.matching, miss: options.miss, bodyLimit: options.bodyLimit,
                                                acceptsOriginRequests: options.acceptsOriginRequests, listenIP: options.listen.ip)
        skippedFlows = made.skipped
        responses = made.responses
        let settings = InterceptionSettings(authorityDirectory: options.authorityDirectory, upstreamCAFile: options.upstreamCAFile,
                                            insecureUpstream: options.insecureUpstream)
        interceptor = try TLSInterceptor(settings: settings)
        let configuration = ProxyConfiguration(listen: options.listen, threads: options.threads, bodyCaptureLimit: options.bodyLimit,
                                               interception: settings)
        var withReplay = configuration
        withReplay.replay = made.serving
        server = ProxyServer(configuration: withReplay, sink: sink, interceptor: interceptor,
                             localResponder: interceptor.onboardingResponder)
    }

    /// Listens; returns the bound address (a port of 0 picks a free one).
    @discardableResult
    public func start() throws -> SocketAddress {
        let a = try server.start()
        address = a
        return a
    }

    public func stop() { server.stop() }

    /// The PEM file of the CA a client must trust for HTTPS.
    public var caCertificatePath: String { interceptor.authority.certificatePath }
    /// `http://127.0.0.1:PORT`, for a client's proxy setting or as its base URL.
    public var url: String? { address.map { "http://\($0)" } }
}

/// A `FlowSink` that keeps every flow, numbered 1, 2, 3... in arrival order (tests, the kit).
public final class CollectingFlowSink: FlowSink {
    private let state = Mutex<[Flow]>([])

    public init() {}

    public func record(_ flow: Flow) {
        state.withLock { flows in
            var f = flow
            f.id = flows.count + 1
            flows.append(f)
        }
    }

    public var flows: [Flow] { state.withLock { $0 } }
}

import Foundation
import MouchardPosix
import MouchardWire

/// Everything `mouchard proxy` can be told: where to listen, how many loops, what to tunnel
/// untouched, how long to wait, how much of each body the inspection sees, upstream TLS trust.
public struct ProxyConfiguration: Sendable {
    public var listen: SocketAddress
    public var threads: Int
    /// Hosts (CONNECT host or SNI) matching one of these are tunneled without interception.
    public var ignoreHosts: [String]
    /// Bytes of each body kept for inspection (the rest is forwarded, not kept).
    public var bodyCaptureLimit: Int
    public var connectTimeoutMilliseconds: UInt64
    /// How long a request may wait for its response to start (or continue) before the client
    /// gets a 504 (`--upstream-timeout`).
    public var responseTimeoutMilliseconds: UInt64
    /// An idle keep-alive client connection is closed after this.
    public var clientIdleTimeoutMilliseconds: UInt64
    /// An idle pooled upstream connection is closed after this.
    public var upstreamIdleTimeoutMilliseconds: UInt64
    /// A tunnel with no traffic either way is closed after this.
    public var tunnelIdleTimeoutMilliseconds: UInt64
    public var maxIdleUpstreamsPerTarget: Int
    /// TLS interception settings; nil = CONNECT is always tunneled untouched (metadata only).
    public var interception: InterceptionSettings?
    /// Answer from recordings before going upstream (`mock`, `proxy --replay`); nil = a plain proxy.
    public var replay: ReplayServing?
    /// Transparent (gateway) mode: connections arrive through a NAT redirect and each goes to its
    /// original destination (asked from conntrack); plain HTTP, TLS and other bytes are told apart
    /// by their first bytes. False = a forward proxy (absolute-form requests and CONNECT).
    public var transparent = false
    /// More addresses to listen on with the same settings (the gateway listens on IPv4 and IPv6).
    public var additionalListen: [SocketAddress] = []
    /// How long a transparent connection, or a CONNECT tunnel, may stay silent before it is taken
    /// for a server-first protocol (an SSH or SMTP banner) and tunneled blind to its destination.
    public var serverFirstWaitMilliseconds: UInt64 = 800
    /// Offer `h2` to a client that offers it when its origin chooses `h2` too (ALPN is settled with
    /// the origin first); false = HTTP/1.1 only (`--no-http2`). Never while answering from recordings.
    public var http2 = true
    /// Which clients may connect and the credentials their requests must carry (default: anyone).
    public var access = ClientAccess()
    /// A WebSocket frame longer than this closes the connection with 1009 (frames are relayed as
    /// they arrive, never held whole: this bounds what a peer may claim, not memory).
    public var webSocketMaxFrameLength: UInt64 = WebSocketStreamParser.defaultMaxFrameLength
    /// Where the proxy reports what it refused or could not do (one line each, no newline).
    public var log: @Sendable (String) -> Void = { line in FileHandle.standardError.write(Data((line + "\n").utf8)) }

    public init(listen: SocketAddress, threads: Int = EventLoopGroup.defaultThreadCount, ignoreHosts: [String] = [],
                bodyCaptureLimit: Int = 16 << 20, connectTimeoutMilliseconds: UInt64 = 10_000,
                responseTimeoutMilliseconds: UInt64 = 30_000, clientIdleTimeoutMilliseconds: UInt64 = 120_000,
                upstreamIdleTimeoutMilliseconds: UInt64 = 30_000, tunnelIdleTimeoutMilliseconds: UInt64 = 600_000,
                maxIdleUpstreamsPerTarget: Int = 64, interception: InterceptionSettings? = nil) {
        self.listen = listen
        self.threads = threads
        self.ignoreHosts = ignoreHosts
        self.bodyCaptureLimit = bodyCaptureLimit
        self.connectTimeoutMilliseconds = connectTimeoutMilliseconds
        self.responseTimeoutMilliseconds = responseTimeoutMilliseconds
        self.clientIdleTimeoutMilliseconds = clientIdleTimeoutMilliseconds
        self.upstreamIdleTimeoutMilliseconds = upstreamIdleTimeoutMilliseconds
        self.tunnelIdleTimeoutMilliseconds = tunnelIdleTimeoutMilliseconds
        self.maxIdleUpstreamsPerTarget = maxIdleUpstreamsPerTarget
        self.interception = interception
    }
}

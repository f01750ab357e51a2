import Foundation
import MouchardWire

/// What the proxy saw of one request/response exchange, before it becomes a `Flow`: heads as
/// the client sent them and as the origin answered, bodies after transfer decoding, capped.
public struct CapturedExchange: Sendable {
    public var scheme: String
    /// The CONNECT target or TLS SNI, used when a request in a tunnel has no Host.
    public var fallbackAuthority: String?
    public var requestHead: HTTPRequestHead
    public var requestBody = BodyCapture(limit: 0)
    public var responseHead: HTTPResponseHead?
    public var responseBody = BodyCapture(limit: 0)
    public var upstream: UpstreamTarget?
    public var error: String?
    /// What the response source decided (`served flow 12`, `missed: forwarded`...); nil without one.
    public var replay: String?
    /// The client's stream id when the exchange travelled over HTTP/2 (nil for HTTP/1).
    public var streamID: Int32?
    /// When the request head arrived (wall clock) and the phase boundaries (monotonic ms).
    public var started: Date
    public var startedMonotonic: UInt64
    public var requestSentMonotonic: UInt64?
    public var responseStartedMonotonic: UInt64?
    public var finishedMonotonic: UInt64?

    public init(scheme: String, fallbackAuthority: String?, requestHead: HTTPRequestHead, bodyLimit: Int,
                started: Date, startedMonotonic: UInt64) {
        self.scheme = scheme
        self.fallbackAuthority = fallbackAuthority
        self.requestHead = requestHead
        self.requestBody = BodyCapture(limit: bodyLimit)
        self.responseBody = BodyCapture(limit: bodyLimit)
        self.started = started
        self.startedMonotonic = startedMonotonic
    }
}

/// The first `limit` bytes of a body, the total seen, and whether the rest was cut.
public struct BodyCapture: Sendable {
    public let limit: Int
    public private(set) var bytes: [UInt8] = []
    public private(set) var totalBytes = 0

    public init(limit: Int) { self.limit = limit }

    public var truncated: Bool { totalBytes > bytes.count }

    public mutating func append(_ chunk: [UInt8]) {
        totalBytes += chunk.count
        let room = limit - bytes.count
        if room <= 0 { return }
        if chunk.count <= room { bytes.append(contentsOf: chunk) } else { bytes.append(contentsOf: chunk[..<room]) }
    }
}

import MouchardFlow
import MouchardWire

/// Answers requests from somewhere other than the origin: recorded responses (`mouchard mock`,
/// `mouchard proxy --replay`). The proxy session consults it once a request has fully arrived
/// (head and body), before anything goes upstream; whatever it decides, the exchange is recorded
/// and inspected like any other (its flow carries the decision's note as `_replay`).
public protocol ResponseSource: Sendable {
    /// Called on an event-loop thread: must be thread-safe and quick.
    func answer(_ request: HTTPRequest) -> ResponseDecision
}

/// What a `ResponseSource` does with one request.
public enum ResponseDecision: Sendable, Hashable {
    /// Serve this response (framing is recomputed: `Content-Length` of `body`, hop-by-hop fields dropped).
    case respond(HTTPResponse, note: String)
    /// Send the request to its origin, as the proxy would without a source.
    case forward(note: String)
    /// Close the client connection without an answer.
    case close(note: String)
}

/// How a proxy serves from a `ResponseSource`.
public struct ReplayServing: Sendable {
    public var source: any ResponseSource
    /// Also answer as an origin: origin-form requests (target from `Host`) and TLS connections
    /// made straight to the listening port (the leaf is minted for the client's SNI). Off for a
    /// plain forward proxy.
    public var acceptsOriginRequests: Bool
    /// A request body is buffered whole before the source is asked (it takes part in matching):
    /// a longer one is answered 413.
    public var requestBodyLimit: Int

    public init(source: any ResponseSource, acceptsOriginRequests: Bool = false, requestBodyLimit: Int = 64 << 20) {
        self.source = source
        self.acceptsOriginRequests = acceptsOriginRequests
        self.requestBodyLimit = requestBodyLimit
    }
}

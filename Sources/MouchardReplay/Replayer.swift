import Foundation
import MouchardFlow
import MouchardProxy
import MouchardTLS
import Synchronization

/// Client replay: sends recorded requests again, as recorded (see `ReplayedRequest`), through the
/// proxy's upstream client, and returns the new exchanges as flows, each compared with the
/// recorded response when asked.
public struct Replayer: Sendable {
    public struct Options: Sendable {
        public var routing: ReplayRouting
        public var concurrency: Int
        /// Origin certificates are verified (system store plus `extraTrustAnchors`) unless `insecure`.
        public var insecure: Bool
        public var extraTrustAnchors: [String]
        public var compare: Bool
        public var ignoring: [IgnoredField]
        /// Largest request body sent (and response body kept).
        public var bodyLimit: Int
        public var responseTimeoutMilliseconds: UInt64

        public init(routing: ReplayRouting = ReplayRouting(), concurrency: Int = 8, insecure: Bool = false,
                    extraTrustAnchors: [String] = [], compare: Bool = false, ignoring: [IgnoredField] = [],
                    bodyLimit: Int = 64 << 20, responseTimeoutMilliseconds: UInt64 = 30_000) {
            self.routing = routing
            self.concurrency = concurrency
            self.insecure = insecure
            self.extraTrustAnchors = extraTrustAnchors
            self.compare = compare
            self.ignoring = ignoring
            self.bodyLimit = bodyLimit
            self.responseTimeoutMilliseconds = responseTimeoutMilliseconds
        }
    }

    /// One replayed exchange.
    public struct Result: Sendable {
        public var original: Flow
        /// The new exchange (id = its position in the replay, 1...; `_replayOf` = the original id).
        public var replayed: Flow
        /// Empty when not compared, or when the responses agree.
        public var differences: [ResponseDifference]
        public var failed: Bool { replayed.error != nil }
    }

    public let options: Options

    public init(options: Options = Options()) { self.options = options }

    /// The flows that can be replayed (those with a request); throws the first refusal (truncated
    /// body, body over the limit, CONNECT) so nothing is half-sent.
    public func prepare(_ flows: [Flow]) throws(ReplayedRequest.Refusal) -> [(Flow, ReplayClient.Request)] {
        var out: [(Flow, ReplayClient.Request)] = []
        for flow in flows {
            guard let request = flow.request else { continue }
            let bytes = try ReplayedRequest.bytes(for: request, flow: flow.id, bodyLimit: options.bodyLimit)
            out.append((flow, ReplayClient.Request(target: options.routing.target(for: request), method: request.method, bytes: bytes)))
        }
        return out
    }

    /// Replays `flows` (in order, `concurrency` at a time) and returns the results in the flows' order.
    public func run(_ flows: [Flow], onResult: (@Sendable (Result) -> Void)? = nil) throws -> [Result] {
        let prepared = try prepare(flows)
        let verification: UpstreamVerification = options.insecure ? .insecure
            : (options.extraTrustAnchors.isEmpty ? .system : .systemPlus(anchorFiles: options.extraTrustAnchors))
        let client = try ReplayClient(settings: ReplayClient.Settings(
            concurrency: options.concurrency, verification: verification,
            responseTimeoutMilliseconds: options.responseTimeoutMilliseconds, bodyLimit: options.bodyLimit))
        let results = Mutex<[Result?]>(Array(repeating: nil, count: prepared.count))
        let compare = options.compare, ignoring = options.ignoring
        let originals = prepared.map(\.0)
        let targets = prepared.map(\.1.target)
        try client.run(prepared.map(\.1)) { index, outcome in
            let original = originals[index]
            let replayed = Self.flow(index: index, original: original, target: targets[index], outcome: outcome)
            var differences: [ResponseDifference] = []
            if compare, let old = original.response, let new = replayed.response {
                differences = ResponseComparison.differences(recorded: old, replayed: new, ignoring: ignoring)
            }
            let result = Result(original: original, replayed: replayed, differences: differences)
            results.withLock { $0[index] = result }
            onResult?(result)
        }
        return results.withLock { $0.compactMap { $0 } }
    }

    static func flow(index: Int, original: Flow, target: UpstreamTarget, outcome: ReplayClient.Outcome) -> Flow {
        var flow = Flow(id: index + 1, source: .proxy, transport: original.request?.scheme == "https" ? .https : .http,
                        request: original.request, response: outcome.response,
                        timings: FlowTimings(started: outcome.started, connect: outcome.connectMilliseconds,
                                             ssl: outcome.handshakeMilliseconds, send: 0, wait: outcome.waitMilliseconds,
                                             receive: outcome.receiveMilliseconds),
                        server: outcome.server ?? Endpoint(address: target.host, port: target.port),
                        error: outcome.error)
        flow.extras["_replayOf"] = String(original.id)
        return flow
    }
}

import Foundation
import MouchardFlow
import MouchardWire

/// How a request is matched against the recorded ones (`mock`, `proxy --replay`).
public struct MatchOptions: Sendable, Hashable {
    /// Query parameters left out of the comparison (`--ignore-param`), by name.
    public var ignoredParameters: Set<String>
    /// Bodies are not compared (`--ignore-body`).
    public var ignoresBody: Bool
    /// Once a request's recorded responses are all served, keep serving the last (`--replay-keep`).
    public var keepsLast: Bool
    /// Hosts that stand for "any recorded host": a request addressed to the mock itself
    /// (`curl http://127.0.0.1:8081/v1/x`) matches on method, path, query and body only.
    public var anyHostNames: Set<String>

    public init(ignoredParameters: Set<String> = [], ignoresBody: Bool = false, keepsLast: Bool = false,
                anyHostNames: Set<String> = []) {
        self.ignoredParameters = ignoredParameters
        self.ignoresBody = ignoresBody
        self.keepsLast = keepsLast
        self.anyHostNames = anyHostNames
    }
}

/// What a request is compared on: method, host, path, query as a sorted multiset of `name=value`
/// (ignored names removed), body (JSON by structure, other bodies by bytes, or nothing).
struct MatchKey: Hashable {
    var method: String
    var host: String?
    var path: String
    var query: [String]
    var body: Body

    enum Body: Hashable {
        case ignored
        case json(String)
        case bytes([UInt8])
    }

    init(_ request: HTTPRequest, options: MatchOptions, anyHost: Bool) {
        method = request.method.uppercased()
        host = anyHost ? nil : request.host
        path = request.path
        var params: [String] = []
        if let q = request.query, !q.isEmpty {
            for part in q.split(separator: "&", omittingEmptySubsequences: true) {
                let name = part.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false).first.map(String.init) ?? ""
                if options.ignoredParameters.contains(name) || options.ignoredParameters.contains(Self.percentDecoded(name)) {
                    continue
                }
                params.append(String(part))
            }
        }
        query = params.sorted()
        if options.ignoresBody {
            body = .ignored
        } else if let json = CanonicalJSON.text(request.body) {
            body = .json(json)
        } else {
            body = .bytes(request.body)
        }
    }

    /// The method, host and path alone (to say why a near miss missed).
    var route: String { "\(method) \(host ?? "*")\(path)" }

    static func percentDecoded(_ s: String) -> String { s.removingPercentEncoding ?? s }
}

/// Matches requests to recorded exchanges, a pure value: the recorded flows go in once, each
/// request gets the next unserved recorded response with the same key (repeated identical
/// requests get the recorded responses in their recorded order), or a miss saying why.
public struct ReplayMatcher: Sendable {
    /// One recorded exchange that can be served.
    public struct Recorded: Sendable {
        public var flow: Int
        public var request: HTTPRequest
        public var response: HTTPResponse

        public init(flow: Int, request: HTTPRequest, response: HTTPResponse) {
            self.flow = flow
            self.request = request
            self.response = response
        }
    }

    public enum Outcome: Sendable, Hashable {
        case served(flow: Int, response: HTTPResponse)
        /// Nothing to serve: why, in a few words (`no recorded GET api.example.com/v1/x`).
        case missed(String)
    }

    public let options: MatchOptions
    public let recorded: [Recorded]
    private var served: [Bool]
    /// Candidate indices in recorded order and a cursor past the served ones, per key; with and
    /// without the host (for `anyHostNames`).
    private var byKey: [MatchKey: Queue] = [:]
    private var byKeyAnyHost: [MatchKey: Queue] = [:]
    private var routes: Set<String> = []

    struct Queue: Sendable {
        var indices: [Int] = []
        var cursor = 0
    }

    /// `recorded` must have responses (see `RecordedFlows.servable`).
    public init(recorded: [Recorded], options: MatchOptions = MatchOptions()) {
        self.options = options
        self.recorded = recorded
        served = Array(repeating: false, count: recorded.count)
        for (i, r) in recorded.enumerated() {
            byKey[MatchKey(r.request, options: options, anyHost: false), default: Queue()].indices.append(i)
            let anyHost = MatchKey(r.request, options: options, anyHost: true)
            byKeyAnyHost[anyHost, default: Queue()].indices.append(i)
            routes.insert(anyHost.route)
            routes.insert(MatchKey(r.request, options: options, anyHost: false).route)
        }
    }

    /// The response for `request`, and the match consumed.
    public mutating func match(_ request: HTTPRequest) -> Outcome {
        let anyHost = options.anyHostNames.contains(request.host)
        let key = MatchKey(request, options: options, anyHost: anyHost)
        let found = take(key, anyHost: anyHost)
        switch found {
        case .some(.some(let i)):
            return .served(flow: recorded[i].flow, response: recorded[i].response)
        case .some(.none):
            return .missed("the recorded responses to \(key.route) were all served (--replay-keep serves the last again)")
        case .none:
            if routes.contains(key.route) {
                return .missed("\(key.route) was recorded, but with another query or body")
            }
            return .missed("no recorded \(key.route)")
        }
    }

    /// nil = no such key; .some(nil) = all served; .some(i) = serve recorded[i].
    private mutating func take(_ key: MatchKey, anyHost: Bool) -> Int?? {
        guard var q = anyHost ? byKeyAnyHost[key] : byKey[key] else { return nil }
        defer { if anyHost { byKeyAnyHost[key] = q } else { byKey[key] = q } }
        while q.cursor < q.indices.count, served[q.indices[q.cursor]] { q.cursor += 1 }
        if q.cursor < q.indices.count {
            let i = q.indices[q.cursor]
            served[i] = true
            q.cursor += 1
            return .some(i)
        }
        if options.keepsLast, let last = q.indices.last { return .some(last) }
        return .some(nil)
    }
}

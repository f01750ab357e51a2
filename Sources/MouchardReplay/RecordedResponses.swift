import Foundation
import MouchardFlow
import MouchardProxy
import MouchardWire
import Synchronization

/// What a replaying server does with a request it has no recorded response for (`--replay-miss`).
public enum MissPolicy: String, Sendable, Hashable, CaseIterable {
    /// Answer 404 with a body saying what was not found (the default).
    case notFound = "404"
    /// Send the request to its origin (and record that exchange too).
    case forward
    /// Close the connection without an answer.
    case close
}

/// The recorded exchanges a mock can serve, checked: every selected flow with a request must have
/// a complete response no larger than the limit, or the source is refused with one line naming it.
public enum RecordedFlows {
    /// Flows seen only as TLS metadata (no request) are left out; `skipped` counts them.
    public static func servable(_ flows: [Flow], bodyLimit: Int) throws(FlowFile.LoadError)
        -> (recorded: [ReplayMatcher.Recorded], skipped: Int) {
        var out: [ReplayMatcher.Recorded] = []
        var skipped = 0
        for flow in flows {
            guard let request = flow.request else {
                skipped += 1
                continue
            }
            let what = "flow \(flow.id) (\(request.method) \(request.url))"
            guard let response = flow.response else {
                let why = flow.error.map { ": \($0)" } ?? ""
                throw FlowFile.LoadError("\(what) has no recorded response\(why); leave it out with --flows")
            }
            if response.bodyTruncated {
                throw FlowFile.LoadError("\(what): its response body was cut at capture, it cannot be served as recorded; " +
                                         "leave it out with --flows")
            }
            if response.body.count > bodyLimit {
                throw FlowFile.LoadError("\(what): response body of \(response.body.count) bytes is larger than the limit " +
                                         "(\(bodyLimit) bytes, --max-body)")
            }
            out.append(ReplayMatcher.Recorded(flow: flow.id, request: request, response: response))
        }
        return (out, skipped)
    }
}

/// The `ResponseSource` of `mock` and `proxy --replay`: a `ReplayMatcher` behind a lock, and
/// what to do on a miss. Counts what it served and missed.
public final class RecordedResponses: ResponseSource {
    private let matcher: Mutex<ReplayMatcher>
    public let miss: MissPolicy
    private let servedCount = Atomic<Int>(0)
    private let missedCount = Atomic<Int>(0)

    public init(matcher: ReplayMatcher, miss: MissPolicy = .notFound) {
        self.matcher = Mutex(matcher)
        self.miss = miss
    }

    public var served: Int { servedCount.load(ordering: .relaxed) }
    public var missed: Int { missedCount.load(ordering: .relaxed) }

    public func answer(_ request: HTTPRequest) -> ResponseDecision {
        let outcome = matcher.withLock { $0.match(request) }
        switch outcome {
        case .served(let flow, let response):
            servedCount.wrappingAdd(1, ordering: .relaxed)
            return .respond(response, note: "served flow \(flow)")
        case .missed(let why):
            missedCount.wrappingAdd(1, ordering: .relaxed)
            switch miss {
            case .notFound:
                let body = Array("mouchard: no recorded response for \(request.method) \(request.url): \(why)\n".utf8)
                let head = HTTPResponseHead(status: 404, reason: "Not Found",
                                            headers: [("Content-Type", "text/plain; charset=utf-8"),
                                                      ("X-Mouchard-Replay", "miss")])
                return .respond(HTTPResponse(head: head, body: body), note: "missed: \(why)")
            case .forward:
                return .forward(note: "missed, forwarded: \(why)")
            case .close:
                return .close(note: "missed: \(why)")
            }
        }
    }
}

extension ReplayServing {
    /// What a proxy needs to answer from `flows`: the checked recordings, matched with `matching`
    /// (plus the listening address's own names when it answers as an origin), `miss` on a miss.
    public static func recordings(_ flows: [Flow], matching: MatchOptions, miss: MissPolicy, bodyLimit: Int,
                                  acceptsOriginRequests: Bool, listenIP: String) throws(FlowFile.LoadError)
        -> (serving: ReplayServing, responses: RecordedResponses, skipped: Int) {
        let (recorded, skipped) = try RecordedFlows.servable(flows, bodyLimit: bodyLimit)
        var options = matching
        if acceptsOriginRequests { options.anyHostNames.formUnion(["127.0.0.1", "localhost", "::1", listenIP]) }
        let responses = RecordedResponses(matcher: ReplayMatcher(recorded: recorded, options: options), miss: miss)
        return (ReplayServing(source: responses, acceptsOriginRequests: acceptsOriginRequests, requestBodyLimit: bodyLimit),
                responses, skipped)
    }
}

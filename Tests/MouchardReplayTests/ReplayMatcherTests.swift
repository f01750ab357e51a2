import Testing
import MouchardFlow
import MouchardProxy
import MouchardReplay
import MouchardWire

/// The matcher, option by option: a table of recorded exchanges, a request, what is served.
@Suite struct ReplayMatcherTests {
    static func request(_ method: String, _ url: String, body: String = "", contentType: String? = nil) -> HTTPRequest {
        let parts = URLParts(absolute: url)!
        var headers: HTTPHeaders = [("Host", parts.authority)]
        if let contentType { headers.add(name: "Content-Type", value: contentType) }
        return HTTPRequest(head: HTTPRequestHead(method: method, target: parts.pathAndQuery, headers: headers),
                           scheme: parts.scheme, body: Array(body.utf8))
    }

    static func recorded(_ flow: Int, _ method: String, _ url: String, body: String = "", answer: String) -> ReplayMatcher.Recorded {
        ReplayMatcher.Recorded(flow: flow, request: request(method, url, body: body),
                               response: HTTPResponse(head: HTTPResponseHead(status: 200, reason: "OK"), body: Array(answer.utf8)))
    }

    static let table: [ReplayMatcher.Recorded] = [
        recorded(1, "GET", "https://api.example.com/v1/items?a=1&b=2", answer: "items-1"),
        recorded(2, "GET", "https://api.example.com/v1/items?a=1&b=2", answer: "items-2"),
        recorded(3, "POST", "https://api.example.com/v1/login", body: #"{"user":"ann","pass":"x"}"#, answer: "login"),
        recorded(4, "GET", "https://cdn.example.net/v1/items?a=1&b=2", answer: "cdn"),
        recorded(5, "GET", "https://api.example.com/v1/track?id=7&ts=100", answer: "track"),
        recorded(6, "POST", "https://api.example.com/v1/raw", body: "\u{1}\u{2}bytes", answer: "raw"),
    ]

    struct Case: Sendable, CustomTestStringConvertible {
        var name: String
        var options: MatchOptions
        /// Requests in order; each expects the flow id served (nil = a miss).
        var requests: [(HTTPRequest, Int?)]
        var testDescription: String { name }
    }

    static let cases: [Case] = [
        Case(name: "method, host, path and query match; repeated requests get the recorded responses in order, then miss",
             options: MatchOptions(),
             requests: [(request("GET", "https://api.example.com/v1/items?a=1&b=2"), 1),
                        (request("GET", "https://api.example.com/v1/items?a=1&b=2"), 2),
                        (request("GET", "https://api.example.com/v1/items?a=1&b=2"), nil)]),
        Case(name: "--replay-keep serves the last recorded response again",
             options: MatchOptions(keepsLast: true),
             requests: [(request("GET", "https://api.example.com/v1/items?a=1&b=2"), 1),
                        (request("GET", "https://api.example.com/v1/items?a=1&b=2"), 2),
                        (request("GET", "https://api.example.com/v1/items?a=1&b=2"), 2)]),
        Case(name: "query order does not matter", options: MatchOptions(),
             requests: [(request("GET", "https://api.example.com/v1/items?b=2&a=1"), 1)]),
        Case(name: "a different query value misses", options: MatchOptions(),
             requests: [(request("GET", "https://api.example.com/v1/items?a=1&b=3"), nil)]),
        Case(name: "an extra parameter misses", options: MatchOptions(),
             requests: [(request("GET", "https://api.example.com/v1/items?a=1&b=2&c=3"), nil)]),
        Case(name: "--ignore-param leaves a volatile parameter out", options: MatchOptions(ignoredParameters: ["ts"]),
             requests: [(request("GET", "https://api.example.com/v1/track?ts=999&id=7"), 5),
                        (request("GET", "https://api.example.com/v1/track?id=7"), nil)]),
        Case(name: "without --ignore-param the volatile parameter must match", options: MatchOptions(),
             requests: [(request("GET", "https://api.example.com/v1/track?ts=999&id=7"), nil)]),
        Case(name: "the method is compared", options: MatchOptions(),
             requests: [(request("POST", "https://api.example.com/v1/items?a=1&b=2"), nil)]),
        Case(name: "the host is compared (another host, same path)", options: MatchOptions(),
             requests: [(request("GET", "https://cdn.example.net/v1/items?a=1&b=2"), 4),
                        (request("GET", "https://other.example.org/v1/items?a=1&b=2"), nil)]),
        Case(name: "the port and scheme are not compared", options: MatchOptions(),
             requests: [(request("GET", "http://api.example.com:8080/v1/items?a=1&b=2"), 1)]),
        Case(name: "a request to the mock's own address matches any recorded host",
             options: MatchOptions(anyHostNames: ["127.0.0.1"]),
             requests: [(request("GET", "http://127.0.0.1:9999/v1/items?a=1&b=2"), 1),
                        (request("GET", "http://127.0.0.1:9999/v1/items?a=1&b=2"), 2),
                        (request("GET", "http://127.0.0.1:9999/v1/items?a=1&b=2"), 4)]),
        Case(name: "JSON bodies match by structure (member order, spacing)", options: MatchOptions(),
             requests: [(request("POST", "https://api.example.com/v1/login", body: #"{ "pass": "x", "user": "ann" }"#), 3)]),
        Case(name: "a different JSON value misses", options: MatchOptions(),
             requests: [(request("POST", "https://api.example.com/v1/login", body: #"{"user":"bob","pass":"x"}"#), nil)]),
        Case(name: "--ignore-body matches whatever the body", options: MatchOptions(ignoresBody: true),
             requests: [(request("POST", "https://api.example.com/v1/login", body: #"{"user":"bob"}"#), 3)]),
        Case(name: "other bodies match byte for byte", options: MatchOptions(),
             requests: [(request("POST", "https://api.example.com/v1/raw", body: "\u{1}\u{2}bytes"), 6),
                        (request("POST", "https://api.example.com/v1/raw", body: "\u{1}\u{2}bytes!"), nil)]),
    ]

    @Test(arguments: cases) func matching(_ c: Case) {
        var matcher = ReplayMatcher(recorded: Self.table, options: c.options)
        for (i, (request, expected)) in c.requests.enumerated() {
            let outcome = matcher.match(request)
            switch outcome {
            case .served(let flow, _):
                #expect(flow == expected, "request \(i + 1) (\(request.url)) was served flow \(flow)")
            case .missed(let why):
                #expect(expected == nil, "request \(i + 1) (\(request.url)) missed: \(why)")
            }
        }
    }

    @Test func missesSayWhy() {
        var matcher = ReplayMatcher(recorded: Self.table)
        guard case .missed(let unknown) = matcher.match(Self.request("GET", "https://api.example.com/nothing")) else {
            Issue.record("expected a miss"); return
        }
        #expect(unknown == "no recorded GET api.example.com/nothing")
        guard case .missed(let near) = matcher.match(Self.request("GET", "https://api.example.com/v1/items?z=1")) else {
            Issue.record("expected a miss"); return
        }
        #expect(near.contains("recorded, but with another query or body"))
        _ = matcher.match(Self.request("GET", "https://cdn.example.net/v1/items?a=1&b=2"))
        guard case .missed(let used) = matcher.match(Self.request("GET", "https://cdn.example.net/v1/items?a=1&b=2")) else {
            Issue.record("expected a miss"); return
        }
        #expect(used.contains("were all served"))
    }

    /// Each `--replay-miss` choice, through the response source the proxy consults.
    @Test(arguments: MissPolicy.allCases) func missPolicies(_ policy: MissPolicy) {
        let source = RecordedResponses(matcher: ReplayMatcher(recorded: Self.table), miss: policy)
        let hit = source.answer(Self.request("GET", "https://cdn.example.net/v1/items?a=1&b=2"))
        guard case .respond(let served, let note) = hit else { Issue.record("a recorded request must be served"); return }
        #expect(served.body == Array("cdn".utf8))
        #expect(note == "served flow 4")
        let miss = source.answer(Self.request("GET", "https://api.example.com/unknown"))
        switch (policy, miss) {
        case (.notFound, .respond(let r, let note)):
            #expect(r.status == 404)
            #expect(String(decoding: r.body, as: UTF8.self).contains("GET https://api.example.com/unknown"))
            #expect(note.hasPrefix("missed"))
        case (.forward, .forward(let note)):
            #expect(note.hasPrefix("missed, forwarded"))
        case (.close, .close(let note)):
            #expect(note.hasPrefix("missed"))
        default:
            Issue.record("policy \(policy) decided \(miss)")
        }
        #expect(source.served == 1)
        #expect(source.missed == 1)
    }

    @Test func flowSelections() {
        #expect(FlowSelection(parsing: "3,5-9")?.ranges == [3...3, 5...9])
        #expect(FlowSelection(parsing: "0") == nil)
        #expect(FlowSelection(parsing: "9-5") == nil)
        #expect(FlowSelection(parsing: "x") == nil)
        #expect(FlowSelection(parsing: "") == nil)
        #expect(FlowSelection(parsing: "2-4")?.missing(from: [1, 2, 3]) == [4])
    }

    @Test func ignoredFieldsParse() {
        #expect(IgnoredField(parsing: "header:Date") == .header("date"))
        #expect(IgnoredField(parsing: "$.meta.time") == .path(["meta", "time"]))
        #expect(IgnoredField(parsing: "$.items[*].id") == .path(["items", "*", "id"]))
        #expect(IgnoredField(parsing: "updatedAt") == .member("updatedAt"))
        #expect(IgnoredField(parsing: "$.") == nil)
        #expect(IgnoredField(parsing: "$.a[") == nil)
    }
}

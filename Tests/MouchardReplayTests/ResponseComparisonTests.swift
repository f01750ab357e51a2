import Testing
import MouchardFlow
import MouchardReplay
import MouchardWire

@Suite struct ResponseComparisonTests {
    static func response(_ status: Int, _ body: String, headers: HTTPHeaders = [("Content-Type", "application/json")]) -> HTTPResponse {
        HTTPResponse(head: HTTPResponseHead(status: status, reason: "", headers: headers), body: Array(body.utf8))
    }

    @Test func sameJSONWrittenDifferentlyIsEqual() {
        let a = Self.response(200, #"{"a":1,"b":[1,2,{"c":"x"}]}"#)
        let b = Self.response(200, #"{ "b": [1, 2.0, {"c": "x"}], "a": 1.0 }"#)
        #expect(ResponseComparison.differences(recorded: a, replayed: b).isEmpty)
    }

    @Test func differencesNameTheField() {
        let a = Self.response(200, #"{"user":{"id":1,"seen":"2026-01-01"},"items":[1,2]}"#,
                              headers: [("Content-Type", "application/json"), ("Date", "Mon"), ("X-Version", "1")])
        let b = Self.response(500, #"{"user":{"id":2,"seen":"2026-02-02"},"items":[1]}"#,
                              headers: [("Content-Type", "application/json"), ("Date", "Tue"), ("X-Version", "2")])
        let all = ResponseComparison.differences(recorded: a, replayed: b).map(\.description)
        #expect(all.contains("status: 200 → 500"))
        #expect(all.contains("header x-version: 1 → 2"))
        #expect(all.contains("body $.user.id: 1 → 2"))
        #expect(all.contains("body $.items.length: 2 → 1"))
        #expect(!all.contains { $0.contains("date") })  // Date is never compared
        let ignoring = ["$.user.seen", "header:X-Version", "items"].compactMap(IgnoredField.init(parsing:))
        let left = ResponseComparison.differences(recorded: a, replayed: b, ignoring: ignoring).map(\.description)
        #expect(left == ["status: 200 → 500", "body $.user.id: 1 → 2"])
    }

    @Test func otherBodiesCompareByBytes() {
        let a = Self.response(200, "hello", headers: [])
        #expect(ResponseComparison.differences(recorded: a, replayed: Self.response(200, "hello", headers: [])).isEmpty)
        let d = ResponseComparison.differences(recorded: a, replayed: Self.response(200, "hellO", headers: []))
        #expect(d.map(\.description) == [#"body: "hello" → "hellO""#])
    }

    @Test func replayedRequestKeepsOrderAndRecomputesFraming() throws {
        let head = HTTPRequestHead(method: "POST", target: "http://api.example.com/v1/x?q=1", headers: [
            ("User-Agent", "App/1"), ("Proxy-Connection", "keep-alive"), ("Content-Length", "999"), ("X-A", "1"),
            ("Connection", "close, X-Hop"), ("X-Hop", "1"), ("Transfer-Encoding", "chunked"), ("Host", "api.example.com"),
        ])
        let request = HTTPRequest(head: head, scheme: "http", body: Array("abc".utf8))
        let bytes = try ReplayedRequest.bytes(for: request, flow: 1, bodyLimit: 1 << 20)
        #expect(String(decoding: bytes, as: UTF8.self) ==
                "POST /v1/x?q=1 HTTP/1.1\r\nUser-Agent: App/1\r\nContent-Length: 3\r\nX-A: 1\r\nHost: api.example.com\r\n\r\nabc")
        #expect(throws: ReplayedRequest.Refusal.self) { try ReplayedRequest.bytes(for: request, flow: 1, bodyLimit: 2) }
    }
}

import Foundation
import Testing
import MouchardTestSupport
import MouchardWire
@testable import MouchardFlow

/// Flows that exercise every field the HAR codec carries.
enum SampleFlows {
    static let started = Date(timeIntervalSince1970: 1_791_186_100.215)

    static func all() -> [Flow] {
        var gzip = Flow(id: 1, source: .har, transport: .https,
                        request: HTTPRequest(
                            head: HTTPRequestHead(method: "POST", target: "/v1/e?a=%20b&c", headers: [
                                ("Host", "api.example.com"), ("Content-Encoding", "gzip"), ("X-Dup", "1"), ("x-dup", "2"),
                                ("Cookie", "sid=abc; theme=dark"), ("Content-Type", "application/json"),
                            ]),
                            scheme: "https", fallbackAuthority: "api.example.com",
                            body: [0x1f, 0x8b, 0x08, 0x00, 0x00, 0xff, 0x00, 0x10, 0x80]),
                        response: HTTPResponse(head: HTTPResponseHead(status: 201, reason: "Created", headers: [
                            ("Content-Type", "image/png"), ("Set-Cookie", "a=1; Path=/"), ("Set-Cookie", "b=2"),
                        ]), body: [0x89, 0x50, 0x4e, 0x47, 0x00, 0x01]),
                        timings: FlowTimings(started: started, blocked: 0.5, dns: nil, connect: 12.25, ssl: 8, send: 0.001,
                                             wait: 100, receive: 2.75),
                        client: Endpoint(address: "192.168.1.23", port: 50802),
                        server: Endpoint(address: "2001:db8::1", port: 8443),
                        tls: TLSFacts(serverName: "api.example.com", alpn: ["http/1.1"], version: "TLSv1.3"),
                        extras: ["_initiator": #"{"type":"script"}"#, "connection": #""50802""#,
                                 "request._priority": #""High""#, "response._transferSize": "120",
                                 "timings._blocked_queueing": "0.9", "response.content._x": "[1,2]",
                                 "request.postData._note": "null"])
        gzip.request?.head.target = "/v1/e?a=%20b&c"
        let form = Flow(id: 2, source: .har, transport: .http,
                        request: HTTPRequest(
                            head: HTTPRequestHead(method: "POST", target: "/login", version: .http10, headers: [
                                ("Host", "shop.example:8080"), ("Content-Type", "application/x-www-form-urlencoded"),
                            ]),
                            scheme: "http", fallbackAuthority: "shop.example:8080",
                            body: Array("email=a%40b.example&name=L%C3%A9a+B&x".utf8), bodyTruncated: true),
                        response: HTTPResponse(head: HTTPResponseHead(version: .http10, status: 302, reason: "Found",
                                                                      headers: [("Location", "/home")]),
                                               body: Array("café\n".utf8), bodyTruncated: true),
                        timings: FlowTimings(started: started.addingTimeInterval(1.5)),
                        server: Endpoint(address: "198.51.100.7", port: 8080))
        // A forward-proxy request in absolute form, and a Host header that disagrees.
        let proxied = Flow(id: 3, source: .har, transport: .http,
                           request: HTTPRequest(
                               head: HTTPRequestHead(method: "GET", target: "http://ads.example.net/px?id=1",
                                                     headers: [("Host", "other.example")]),
                               scheme: "http", fallbackAuthority: "ads.example.net"),
                           timings: FlowTimings(started: started.addingTimeInterval(2)),
                           error: "upstream refused the connection")
        let tlsOnly = Flow(id: 4, source: .har, transport: .tlsMetadata,
                           timings: FlowTimings(started: started.addingTimeInterval(3), connect: 4),
                           client: Endpoint(address: "10.0.0.2", port: 40000),
                           server: Endpoint(address: "203.0.113.5", port: 443),
                           tls: TLSFacts(serverName: "tracker.example", alpn: ["h2", "http/1.1"]))
        return [gzip, form, proxied, tlsOnly]
    }
}

@Suite struct HARWriterTests {
    let writer = HARWriter(creatorVersion: "9.9.9")

    /// A HAR read, written by Mouchard and read again gives the same flows.
    func checkRoundTrip(_ url: URL) throws {
        let first = try HARReader.read(Data(contentsOf: url))
        #expect(!first.isEmpty)
        let second = try HARReader.read(writer.document(first))
        #expect(second.count == first.count)
        for (a, b) in zip(first, second) {
            #expect(a.request?.method == b.request?.method)
            #expect(a.request?.url == b.request?.url)
            #expect(a.request?.headers == b.request?.headers)
            #expect(a.request?.body == b.request?.body)
            #expect(a == b, "flow \(a.id)")
        }
    }

    @Test(arguments: TestFiles.fixtureDevices)
    func fixtureRoundTrip(device: String) throws { try checkRoundTrip(TestFiles.fixture(device, "traffic.har")) }

    @Test(.requires(.dev), arguments: ["ios", "android"])
    func devCorpusRoundTrip(device: String) throws { try checkRoundTrip(OutsideCorpus.dev.file("\(device)/traffic.har")) }

    @Test func everyFieldSurvivesARoundTrip() throws {
        let flows = SampleFlows.all()
        let back = try HARReader.read(writer.document(flows))
        #expect(back.count == flows.count)
        for (a, b) in zip(flows, back) { #expect(a == b, "flow \(a.id)") }
        #expect(back[2].request?.url == "http://ads.example.net/px?id=1")
        #expect(back[3].request == nil && back[3].tls?.serverName == "tracker.example")
    }

    @Test func http2FlowsListPseudoHeadersFirstAsChromeDoes() throws {
        let h2 = HTTPVersion(major: 2, minor: 0)
        var flow = Flow(id: 1, source: .proxy, transport: .https,
                        request: HTTPRequest(head: HTTPRequestHead(method: "GET", target: "/v1?a=1", version: h2, headers: [("user-agent", "app")]),
                                             scheme: "https", fallbackAuthority: "api.example.com"),
                        response: HTTPResponse(head: HTTPResponseHead(version: h2, status: 204, headers: [("server", "x")])),
                        timings: FlowTimings(started: SampleFlows.started))
        flow.extras["_streamId"] = "3"
        let data = writer.document([flow])
        let doc = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        let entry = try #require(((doc["log"] as? [String: Any])?["entries"] as? [[String: Any]])?.first)
        func names(_ part: String) -> [String] {
            ((entry[part] as? [String: Any])?["headers"] as? [[String: Any]] ?? []).map { "\($0["name"] ?? "")=\($0["value"] ?? "")" }
        }
        #expect((entry["request"] as? [String: Any])?["httpVersion"] as? String == "HTTP/2.0")
        #expect(names("request") == [":method=GET", ":authority=api.example.com", ":scheme=https", ":path=/v1?a=1", "user-agent=app"])
        #expect(names("response") == [":status=204", "server=x"])
        // Read back: pseudo-headers dropped (the URL, method and status say the same), the stream id kept.
        var expected = flow
        expected.source = .har
        #expect(try HARReader.read(data) == [expected])
    }

    @Test func compactAndStreamedOutputsReadTheSame() throws {
        let flows = SampleFlows.all()
        var streamed = writer.begin()
        for (k, f) in flows.enumerated() { streamed += writer.entry(f, isFirst: k == 0) }
        streamed += writer.end()
        #expect(Data(streamed) == writer.document(flows))
        let compact = HARWriter(creatorVersion: "1", pretty: false).document(flows)
        #expect(try HARReader.read(compact) == HARReader.read(Data(streamed)))
        #expect(try HARReader.read(HARWriter(creatorVersion: "1").document([])).isEmpty)
    }

    /// The document follows HAR 1.2 as other tools read it (checked with JSONSerialization).
    @Test func documentShape() throws {
        let data = writer.document(SampleFlows.all())
        let root = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        let log = try #require(root["log"] as? [String: Any])
        #expect(log["version"] as? String == "1.2")
        #expect((log["creator"] as? [String: String]) == ["name": "mouchard", "version": "9.9.9"])
        let entries = try #require(log["entries"] as? [[String: Any]])
        #expect(entries.count == 4)

        let e0 = entries[0]
        #expect(e0["startedDateTime"] as? String == "2026-10-05T07:41:40.215Z")
        #expect(e0["_transport"] as? String == "https")
        #expect(e0["_flowId"] as? Int == 1)
        #expect(e0["serverIPAddress"] as? String == "2001:db8::1")
        let t0 = try #require(e0["timings"] as? [String: Double])
        #expect(t0 == ["blocked": 0.5, "dns": -1, "connect": 12.25, "ssl": 8, "send": 0.001, "wait": 100, "receive": 2.75,
                    "_blocked_queueing": 0.9])
        #expect(e0["time"] as? Double == 115.501)
        let rq0 = try #require(e0["request"] as? [String: Any])
        #expect(rq0["url"] as? String == "https://api.example.com/v1/e?a=%20b&c")
        #expect((rq0["queryString"] as? [[String: String]]) == [["name": "a", "value": " b"], ["name": "c", "value": ""]])
        #expect((rq0["cookies"] as? [[String: String]]) == [["name": "sid", "value": "abc"], ["name": "theme", "value": "dark"]])
        let pd0 = try #require(rq0["postData"] as? [String: Any])
        #expect(pd0["encoding"] as? String == "base64")
        #expect(pd0["text"] as? String == "H4sIAAD/ABCA")
        let rs0 = try #require(e0["response"] as? [String: Any])
        let c0 = try #require(rs0["content"] as? [String: Any])
        #expect(c0["encoding"] as? String == "base64" && c0["size"] as? Int == 6)
        #expect((rs0["cookies"] as? [[String: String]]) == [["name": "a", "value": "1"], ["name": "b", "value": "2"]])

        let rq1 = try #require(entries[1]["request"] as? [String: Any])
        let pd1 = try #require(rq1["postData"] as? [String: Any])
        #expect(pd1["encoding"] == nil)
        #expect((pd1["params"] as? [[String: String]]) ==
                [["name": "email", "value": "a@b.example"], ["name": "name", "value": "Léa B"], ["name": "x", "value": ""]])
        #expect(rq1["httpVersion"] as? String == "HTTP/1.0")
        let t1 = try #require(entries[1]["timings"] as? [String: Double])
        #expect(t1.values.allSatisfy { $0 == -1 } && t1.count == 7)

        let rq3 = try #require(entries[3]["request"] as? [String: Any])
        #expect(rq3["method"] as? String == "CONNECT")
        #expect(rq3["url"] as? String == "https://tracker.example:443")
        #expect(entries[3]["_noRequest"] as? Bool == true)
        #expect(entries[3]["_transport"] as? String == "tls-metadata")
        let rs3 = try #require(entries[3]["response"] as? [String: Any])
        #expect(rs3["status"] as? Int == 0)
    }
}

import Foundation
import Testing
import MouchardTestSupport
import MouchardWire
@testable import MouchardFlow

private func read(_ json: String) throws -> [Flow] { try HARReader.read(Data(json.utf8)) }

/// Wraps entries in a minimal HAR document.
private func har(_ entries: String) -> String {
    #"{"log": {"version": "1.2", "creator": {"name": "t", "version": "1"}, "entries": [\#(entries)]}}"#
}

@Suite struct HARReaderTests {
    /// Every entry of a HAR comes back with the file's method, URL, headers and request body
    /// (checked against an independent parse with JSONSerialization); returns the flows.
    static func checkEntriesMatchTheFile(_ url: URL) throws -> [Flow] {
        let data = try Data(contentsOf: url)
        let flows = try HARReader.read(data)
        let root = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        let entries = try #require((root["log"] as? [String: Any])?["entries"] as? [[String: Any]])
        #expect(flows.count == entries.count)
        for (k, (flow, entry)) in zip(flows, entries).enumerated() {
            #expect(flow.id == k + 1)
            #expect(flow.source == .har)
            let rq = try #require(entry["request"] as? [String: Any])
            let request = try #require(flow.request)
            let url = try #require(rq["url"] as? String)
            #expect(request.url == url)
            #expect(request.method == rq["method"] as? String)
            #expect(flow.transport == (url.hasPrefix("https:") ? .https : .http))
            let headers = try #require(rq["headers"] as? [[String: String]])
            #expect(request.headers.map(\.name) == headers.map { $0["name"]! })
            #expect(request.headers.map(\.value) == headers.map { $0["value"]! })
            var body: [UInt8] = []
            if let pd = rq["postData"] as? [String: Any], let text = pd["text"] as? String {
                body = pd["encoding"] as? String == "base64" ? [UInt8](Data(base64Encoded: text)!) : Array(text.utf8)
            }
            #expect(request.body == body)
            let rs = try #require(entry["response"] as? [String: Any])
            #expect(flow.response?.status == rs["status"] as? Int)
            #expect(flow.server?.address == entry["serverIPAddress"] as? String)
            #expect(ISO8601Time.format(flow.timings.started) == entry["startedDateTime"] as? String)
            #expect(flow.extras["connection"] == "\"\(entry["connection"] as? String ?? "")\"")
        }
        // Binary (gzip) request bodies decode from base64 and keep their magic bytes.
        #expect(flows.contains { $0.request?.body.starts(with: [0x1f, 0x8b]) == true })
        return flows
    }

    @Test(arguments: TestFiles.fixtureDevices)
    func fixtureEntriesMatchTheFile(device: String) throws {
        let flows = try Self.checkEntriesMatchTheFile(TestFiles.fixture(device, "traffic.har"))
        #expect(flows.count == 35)
        // Binary protobuf bodies too, and timings as written by the generator.
        #expect(flows.contains { $0.request?.headers["Content-Type"] == "application/x-protobuf" && $0.request?.body.first == 0x0A })
        let first = try #require(flows.first)
        #expect(first.request?.head.target.hasPrefix("/v3/config?platform=") == true)
        #expect(first.timings.send == 1.25 && first.timings.wait == 40 && first.timings.blocked == nil)
        #expect(first.server == Endpoint(address: "198.51.100.20", port: 443))
    }

    @Test(.requires(.dev), arguments: ["ios", "android"])
    func devCorpusEntriesMatchTheFile(device: String) throws {
        let flows = try Self.checkEntriesMatchTheFile(OutsideCorpus.dev.file("\(device)/traffic.har"))
        #expect(flows.count == 182)
        if device == "ios" {
            let first = flows[0]
            #expect(first.request?.head.target == "/v1/presence?seq=1791186100215")
            #expect(first.timings.send == 1.857 && first.timings.wait == 87.805 && first.timings.blocked == nil)
            #expect(first.server == Endpoint(address: "198.51.100.137", port: 443))
        }
    }

    @Test func chromeStyle() throws {
        let flows = try read(har(#"""
        {"_initiator": {"type": "script", "stack": {"callFrames": []}}, "_priority": "High", "_resourceType": "xhr",
         "cache": {}, "connection": "312", "pageref": "page_1",
         "request": {"method": "GET", "url": "https://www.Example.com/api/v2/items?q=caf%C3%A9&x=a+b&y=%2F",
           "httpVersion": "http/2.0",
           "headers": [{"name": ":authority", "value": "www.example.com"}, {"name": ":method", "value": "GET"},
                       {"name": ":path", "value": "/api/v2/items?q=caf%C3%A9&x=a+b&y=%2F"}, {"name": ":scheme", "value": "https"},
                       {"name": "accept", "value": "*/*"}, {"name": "cookie", "value": "a=1"}, {"name": "cookie", "value": "b=2"}],
           "queryString": [{"name": "q", "value": "caf%C3%A9"}], "cookies": [{"name": "a", "value": "1"}],
           "headersSize": -1, "bodySize": 0},
         "response": {"status": 200, "statusText": "", "httpVersion": "http/2.0",
           "headers": [{"name": ":status", "value": "200"}, {"name": "content-type", "value": "application/json"}],
           "cookies": [], "content": {"size": 2, "mimeType": "application/json", "text": "{}"},
           "redirectURL": "", "headersSize": -1, "bodySize": -1, "_transferSize": 120, "_error": null},
         "serverIPAddress": "[2606:4700::6810:84e5]", "startedDateTime": "2024-03-01T10:20:30.456Z", "time": 12.5,
         "timings": {"blocked": 1.25, "dns": -1, "ssl": -1, "connect": -1, "send": 0.1, "wait": 10.0, "receive": 1.15,
                     "_blocked_queueing": 0.9}}
        """#))
        let f = try #require(flows.first)
        let r = try #require(f.request)
        #expect(r.url == "https://www.example.com/api/v2/items?q=caf%C3%A9&x=a+b&y=%2F")
        #expect(r.head.target == "/api/v2/items?q=caf%C3%A9&x=a+b&y=%2F")
        #expect(r.head.version == HTTPVersion(major: 2, minor: 0))
        #expect(r.headers.map(\.name) == ["accept", "cookie", "cookie"])
        #expect(r.headers.values(for: "Cookie") == ["a=1", "b=2"])
        #expect(r.fallbackAuthority == "www.Example.com")
        #expect(f.response?.headers.map(\.name) == ["content-type"])
        #expect(f.response?.body == Array("{}".utf8))
        #expect(f.server == Endpoint(address: "2606:4700::6810:84e5", port: 443))
        #expect(f.extras["_priority"] == #""High""#)
        #expect(f.extras["_initiator"] == #"{"type":"script","stack":{"callFrames":[]}}"#)
        #expect(f.extras["response._transferSize"] == "120")
        #expect(f.extras["timings._blocked_queueing"] == "0.9")
        #expect(f.extras["pageref"] == #""page_1""#)
        #expect(f.timings == FlowTimings(started: ISO8601Time.parse("2024-03-01T10:20:30.456Z")!, blocked: 1.25, send: 0.1,
                                         wait: 10.0, receive: 1.15))
        #expect(f.error == nil)
        #expect(f.transport == .https)
    }

    @Test func chromeFailedRequestHasNoResponseAndKeepsTheError() throws {
        let flows = try read(har(#"""
        {"startedDateTime": "2024-03-01T10:20:30.456Z", "time": 0,
         "request": {"method": "POST", "url": "http://tracker.example/collect", "httpVersion": "", "headers": [],
                     "queryString": [], "cookies": [], "headersSize": -1, "bodySize": 0,
                     "postData": {"mimeType": "text/plain", "text": "idfa=1"}},
         "response": {"status": 0, "statusText": "", "httpVersion": "", "headers": [], "cookies": [],
                      "content": {"size": 0, "mimeType": "x-unknown"}, "redirectURL": "", "headersSize": -1,
                      "bodySize": -1, "_transferSize": 0, "_error": "net::ERR_CONNECTION_REFUSED"},
         "cache": {}, "timings": {"blocked": -1, "dns": -1, "ssl": -1, "connect": -1, "send": 0, "wait": 0, "receive": 0}}
        """#))
        let f = try #require(flows.first)
        #expect(f.response == nil)
        #expect(f.error == "net::ERR_CONNECTION_REFUSED")
        #expect(f.transport == .http)
        #expect(f.request?.body == Array("idfa=1".utf8))
        #expect(f.request?.url == "http://tracker.example/collect")
        #expect(f.timings.send == 0)
    }

    @Test func firefoxStyle() throws {
        let flows = try read(har(#"""
        {"pageref": "page_1", "startedDateTime": "2021-04-08T12:13:00.123+02:00",
         "request": {"bodySize": 27, "method": "POST", "url": "https://api.example.org:8443/login", "httpVersion": "HTTP/1.1",
           "headers": [{"name": "Host", "value": "api.example.org:8443"}, {"name": "Content-Type", "value": "application/x-www-form-urlencoded"}],
           "cookies": [], "queryString": [], "headersSize": -1,
           "postData": {"mimeType": "application/x-www-form-urlencoded", "params": [{"name": "user", "value": "ignored"}],
                        "text": "user=lucas&pass=s3cr%21t&x=1"}},
         "response": {"status": 302, "statusText": "Found", "httpVersion": "HTTP/1.1",
           "headers": [{"name": "Location", "value": "/home"}, {"name": "Set-Cookie", "value": "s=1"}, {"name": "Set-Cookie", "value": "t=2"}],
           "cookies": [], "content": {"mimeType": "text/html", "size": 0, "text": ""}, "redirectURL": "/home",
           "headersSize": -1, "bodySize": 0},
         "cache": {}, "timings": {"blocked": 0, "dns": 0, "connect": 12, "send": 0, "wait": 30, "receive": 0},
         "time": 42, "_securityState": "secure", "serverIPAddress": "203.0.113.9", "connection": "8443"}
        """#))
        let f = try #require(flows.first)
        let r = try #require(f.request)
        #expect(r.url == "https://api.example.org:8443/login")
        #expect(r.body == Array("user=lucas&pass=s3cr%21t&x=1".utf8))
        #expect(f.response?.status == 302 && f.response?.head.reason == "Found")
        #expect(f.response?.headers.values(for: "set-cookie") == ["s=1", "t=2"])
        #expect(f.server == Endpoint(address: "203.0.113.9", port: 8443))
        #expect(f.timings.started == Date(timeIntervalSince1970: 1617876780.123))
        #expect(f.timings.ssl == nil && f.timings.connect == 12)
        #expect(f.extras["_securityState"] == #""secure""#)
    }

    @Test func mitmproxyStyle() throws {
        let flows = try read(har(#"""
        {"startedDateTime": "2023-07-14T08:00:01.654321+00:00", "time": 5.0,
         "request": {"method": "POST", "url": "http://ads.example.net/v1/track", "httpVersion": "HTTP/1.1",
           "cookies": [], "headers": [{"name": "Host", "value": "ads.example.net"}, {"name": "X-Dup", "value": "1"},
                                      {"name": "X-Dup", "value": "2"}],
           "queryString": [], "headersSize": 100, "bodySize": 20,
           "postData": {"mimeType": "application/x-www-form-urlencoded",
                        "params": [{"name": "ad id", "value": "38400000-8cf0-11bd-b23e-10b96e40000d"}, {"name": "e", "value": "a&b=c"}]}},
         "response": {"status": 200, "statusText": "OK", "httpVersion": "HTTP/1.1", "cookies": [],
           "headers": [{"name": "Content-Type", "value": "image/gif"}],
           "content": {"size": 3, "compression": 0, "mimeType": "image/gif", "text": "R0lG", "encoding": "base64"},
           "redirectURL": "", "headersSize": 50, "bodySize": 3},
         "cache": {}, "timings": {"send": 1.0, "receive": 1.0, "wait": 3.0, "connect": -1, "ssl": -1},
         "serverIPAddress": "192.0.2.10"}
        """#))
        let f = try #require(flows.first)
        let r = try #require(f.request)
        #expect(r.body == Array("ad+id=38400000-8cf0-11bd-b23e-10b96e40000d&e=a%26b%3Dc".utf8))
        #expect(r.headers.values(for: "x-dup") == ["1", "2"])
        #expect(f.response?.body == [0x47, 0x49, 0x46])
        #expect(f.server == Endpoint(address: "192.0.2.10", port: 80))
        #expect(f.timings.started == ISO8601Time.parse("2023-07-14T08:00:01.654321Z"))
        #expect(f.timings.blocked == nil && f.timings.dns == nil)
    }

    /// Charles: no timings, no cookies, and a Host header that disagrees with the URL.
    @Test func charlesStyleHostDisagreesWithURL() throws {
        let flows = try read(har(#"""
        {"startedDateTime": "2022-01-02T03:04:05+11:00", "comment": "edited",
         "request": {"method": "GET", "url": "https://cdn.example.com/a/b?x=%41%2b", "httpVersion": "HTTP/1.1",
           "headers": [{"name": "Host", "value": "origin.example.com"}], "headersSize": -1, "bodySize": -1},
         "response": {"status": 204, "statusText": "No Content", "httpVersion": "HTTP/1.1", "headers": [],
           "content": {"size": 0, "mimeType": ""}, "headersSize": -1, "bodySize": -1}}
        """#))
        let f = try #require(flows.first)
        let r = try #require(f.request)
        #expect(r.url == "https://cdn.example.com/a/b?x=%41%2b")
        #expect(r.head.target == "https://cdn.example.com/a/b?x=%41%2b")
        #expect(r.host == "cdn.example.com")
        #expect(r.query == "x=%41%2b")
        #expect(r.headers["Host"] == "origin.example.com")
        #expect(f.response?.status == 204)
        #expect(f.timings == FlowTimings(started: Date(timeIntervalSince1970: 1_641_053_045)))
        #expect(f.extras == ["comment": #""edited""#])
        #expect(f.server == nil)
    }

    @Test func malformedHARsNameTheJSONPath() {
        func error(_ json: String) -> String {
            do { _ = try HARReader.read(Data(json.utf8)); return "no error" } catch { return error.description }
        }
        let entry = #"{"startedDateTime": "2024-01-01T00:00:00Z", "request": {"method": "GET", "url": "http://a.example/", "headers": []}, "response": {"status": 200}}"#
        let badHeader = #"{"startedDateTime": "2024-01-01T00:00:00Z", "request": {"method": "GET", "url": "http://a.example/", "headers": [{"name": "a", "value": "1"}, {"name": "b", "value": "2"}, {"name": "c", "value": "3"}, {"name": "d", "value": 4}]}}"#
        #expect(error(har([entry, badHeader].joined(separator: ","))) ==
                "log.entries[1].request.headers[3].value: expected a string, found a number")
        #expect(error(har(#"{"request": {"method": "GET"}}"#)) == "log.entries[0].request.url: missing")
        #expect(error(har(#"{"request": {"method": "GET", "url": "/relative"}}"#)) ==
                #"log.entries[0].request.url: expected an absolute URL (scheme://host/path), found "/relative""#)
        #expect(error(har(#"{"startedDateTime": "yesterday", "request": {"method": "GET", "url": "http://a/"}}"#)) ==
                #"log.entries[0].startedDateTime: expected an ISO 8601 date, found "yesterday""#)
        #expect(error(har(#"{"request": {"method": "POST", "url": "http://a/", "postData": {"text": "@@@", "encoding": "base64"}}}"#)) ==
                "log.entries[0].request.postData.text: invalid base64")
        #expect(error(har(#"{"request": {"method": "GET", "url": "http://a/"}, "timings": {"send": "fast"}}"#)) ==
                "log.entries[0].timings.send: expected a number, found a string")
        #expect(error(har(#"{"request": []}"#)) == "log.entries[0].request: expected an object, found an array")
        #expect(error(#"{"log": {}}"#) == "log.entries: missing")
        #expect(error(#"[1]"#) == "expected an object, found an array")
        #expect(error(#"{"log": {"entries": [}}"#) == "byte 21: invalid JSON: expected a value, found '}'")
        #expect(error(#"{"log": "#) == "byte 8: invalid JSON: expected a value, found end of input")
        #expect(error("") == "byte 0: invalid JSON: expected a value, found end of input")
        #expect(error(String(repeating: "[", count: 100_000)) == "byte 512: invalid JSON: nesting deeper than 512")
    }

    @Test func badEntriesCanBeSkipped() throws {
        let good = #"{"request": {"method": "GET", "url": "http://a.example/1"}}"#
        let bad = #"{"request": {"method": "GET", "url": 5}}"#
        let json = har([good, bad, good.replacingOccurrences(of: "/1", with: "/3")].joined(separator: ","))
        let (flows, skipped) = try HARReader.readSkippingBadEntries(Data(json.utf8))
        #expect(flows.map(\.id) == [1, 3])
        #expect(flows.map { $0.request?.url } == ["http://a.example/1", "http://a.example/3"])
        #expect(skipped == [HARError(path: "log.entries[1].request.url", message: "expected a string, found a number")])
        #expect(throws: HARError(path: "log.entries[1].request.url", message: "expected a string, found a number")) {
            try HARReader.read(Data(json.utf8))
        }
        #expect(throws: HARError(path: "", byteOffset: 0, message: "expected a value, found 'x'")) {
            try HARReader.readSkippingBadEntries(Data("x".utf8))
        }
    }

    @Test func emptyLogHasNoFlows() throws {
        #expect(try read(har("")).isEmpty)
    }

    @Test func datesInTheFormsToolsWrite() {
        let base = 1700000000.0 // 2023-11-14T22:13:20Z
        #expect(ISO8601Time.parse("2023-11-14T22:13:20Z") == Date(timeIntervalSince1970: base))
        #expect(ISO8601Time.parse("2023-11-14T22:13:20.250Z") == Date(timeIntervalSince1970: base + 0.25))
        #expect(ISO8601Time.parse("2023-11-15T00:13:20+02:00") == Date(timeIntervalSince1970: base))
        #expect(ISO8601Time.parse("2023-11-14T20:13:20-0200") == Date(timeIntervalSince1970: base))
        #expect(ISO8601Time.parse("2023-11-14T22:13:20") == Date(timeIntervalSince1970: base))
        #expect(ISO8601Time.parse("2023-11-14T22:13:20.5+00:00") == Date(timeIntervalSince1970: base + 0.5))
        #expect(ISO8601Time.parse("2023-11-14") == nil)
        #expect(ISO8601Time.parse("2023-13-14T22:13:20Z") == nil)
        #expect(ISO8601Time.parse("2023-11-14T22:13:20Zjunk") == nil)
        #expect(ISO8601Time.format(Date(timeIntervalSince1970: base + 0.25)) == "2023-11-14T22:13:20.250Z")
        #expect(ISO8601Time.format(Date(timeIntervalSince1970: -0.001)) == "1969-12-31T23:59:59.999Z")
        #expect(ISO8601Time.format(Date(timeIntervalSince1970: 951_782_400)) == "2000-02-29T00:00:00.000Z")
    }
}

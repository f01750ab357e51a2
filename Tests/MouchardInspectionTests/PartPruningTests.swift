import Foundation
import Testing
import MouchardCodec
import MouchardFlow
import MouchardTestSupport
@testable import MouchardInspection

/// In profile mode the walk skips the parts of a request (query pairs, headers, cookies, path
/// segments, form pairs, JSON members) whose raw bytes touch none of the request's spans. That is
/// a speed-up only: findings must be exactly those of the full walk.
@Suite struct PartPruningTests {
    func pair(_ profile: DeviceProfile) throws -> (pruned: Inspector, full: Inspector) {
        let rules = try TestSupport.rules()
        let pruned = Inspector(rules: rules, profile: profile)
        var full = pruned
        full.rawPrefilter = false
        return (pruned, full)
    }

    @Test(arguments: TestFiles.fixtureDevices)
    func fixtureFindingsAreThoseOfTheFullWalk(device: String) throws {
        try checkFindingsAreThoseOfTheFullWalk(TestFiles.fixtures.appendingPathComponent(device), atLeast: 40)
    }

    @Test(.requires(.dev), arguments: ["ios", "android"])
    func devCorpusFindingsAreThoseOfTheFullWalk(device: String) throws {
        try checkFindingsAreThoseOfTheFullWalk(OutsideCorpus.dev.file(device), atLeast: 201)
    }

    func checkFindingsAreThoseOfTheFullWalk(_ dir: URL, atLeast minimum: Int) throws {
        let (profile, flows) = try TestSupport.session(dir)
        let (pruned, full) = try pair(profile)
        var total = 0
        for flow in flows {
            let a = pruned.inspect(flow), b = full.inspect(flow)
            #expect(a == b, "flow \(flow.id) \(flow.request?.url ?? "")")
            total += a.count
        }
        #expect(total >= minimum)
    }

    /// Held-out requests where the value hides behind a decoder next to plenty of unrelated parts.
    @Test func hiddenValuesBesideUnrelatedPartsAreStillFound() throws {
        let (pruned, full) = try pair(try TestSupport.profile())
        let idfa = "1E2D3C4B-5A69-4788-9A0B-C1D2E3F40516"
        let email = "margot.quintin@example.com"
        let hexJSON = Array("{\"ifa\":\"\(idfa)\"}".utf8).map { String(format: "%02x", $0) }.joined()
        let gzipped = gzipCompress(Array("{\"em\":\"\(email)\"}".utf8))
        let noise = (0..<20).map { "\"k\($0)\":\"v\($0)-plain-text\"" }.joined(separator: ",")
        let requests: [MouchardFlow.HTTPRequest] = [
            // Hex text of JSON inside one member, a plain IDFA in another.
            TestSupport.request("POST", "https://t.example/e", headers: [("Content-Type", "application/json")],
                                text: "{\(noise),\"blob\":\"\(hexJSON)\",\"id\":\"\(idfa)\"}"),
            // Gzip in base64 in a cookie, beside other cookies and headers.
            TestSupport.request("GET", "https://t.example/p?a=1&b=two&c=3", headers: [
                ("Cookie", "theme=dark; z=\(Data(gzipped).base64EncodedString()); lang=en"), ("X-Trace", "abc-123"),
            ]),
            // Coordinates split over two headers among others; a name split over form fields.
            TestSupport.request("POST", "https://t.example/f", headers: [
                ("X-Lat", "52.5163"), ("X-Lon", "13.3777"), ("X-App", "demo 1.2.3"),
                ("Content-Type", "application/x-www-form-urlencoded"),
            ], text: "first=Margot&x=1&last=Quintin&y=2"),
            // Batched events: the value in the third element of a long array.
            TestSupport.request("POST", "https://t.example/batch", headers: [("Content-Type", "application/json")],
                                text: "[{\"e\":1},{\"e\":2},{\"e\":3,\"user\":{\"mail\":\"\(email)\"}},{\"e\":4},{\"loc\":[13.3777,52.5163]}]"),
        ]
        for (i, r) in requests.enumerated() {
            let flow = TestSupport.flow(r, id: i + 1)
            let a = pruned.inspect(flow), b = full.inspect(flow)
            #expect(a == b, "request \(i)")
            #expect(!a.isEmpty, "request \(i) has findings")
        }
        #expect(pruned.inspect(TestSupport.flow(requests[0])).contains { $0.type == "idfa" && $0.encoding == "hex" })
        #expect(pruned.inspect(TestSupport.flow(requests[1])).contains { $0.type == "email" && $0.where == "cookie:z" })
    }

    /// The pruned walk really skips what cannot hold a value.
    @Test func unrelatedPartsAreNotWalked() throws {
        let profile = try TestSupport.profile()
        let kv = KnownValueMatcher(profile: profile)
        let noise = (0..<30).map { "\"field\($0)\":\"value number \($0)\"" }.joined(separator: ",")
        let r = TestSupport.request("POST", "https://t.example/e?x=1&y=abc", headers: [("Content-Type", "application/json")],
                                    text: "{\(noise),\"ifa\":\"1E2D3C4B-5A69-4788-9A0B-C1D2E3F40516\"}")
        let target = Array(r.head.target.utf8)
        let interest = kv.interest(r, target: target, pathAndQuery: r.head.target, passwordKeys: [], cleartext: false)
        #expect(interest.needsWalk)
        #expect(interest.target.isEmpty)
        let whole = FieldExtractor().extract(r, target: target, pruning: nil, matcher: nil)
        let pruned = FieldExtractor().extract(r, target: target, pruning: interest, matcher: WalkMatcher(kv))
        #expect(whole.fields.count > 30)
        #expect(pruned.fields.map(\.origin.location) == ["body:$.ifa"])
    }
}

/// Headers the walk never reads (`Content-Type`, `Accept`...) are not scanned: a value in one of
/// them is not found either way, and a value in `Cookie` still is.
@Suite struct UnreadHeaderTests {
    @Test func unreadHeadersNeedNoWalkButCookiesDo() throws {
        let rules = try TestSupport.rules()
        let pruned = Inspector(rules: rules, profile: try TestSupport.profile())
        var full = pruned
        full.rawPrefilter = false
        let idfa = "1E2D3C4B-5A69-4788-9A0B-C1D2E3F40516"
        let unread = TestSupport.request("GET", "https://t.example/a", headers: [
            ("content-TYPE", "application/json; id=\(idfa)"), ("Accept", idfa), ("Connection", idfa),
        ])
        let kv = try #require(pruned.knownValues)
        let interest = kv.interest(unread, target: Array(unread.head.target.utf8), pathAndQuery: unread.head.target, passwordKeys: [],
                                   cleartext: false)
        #expect(!interest.needsWalk)
        #expect(pruned.inspect(TestSupport.flow(unread)) == full.inspect(TestSupport.flow(unread)))
        let cookie = TestSupport.request("GET", "https://t.example/a", headers: [("Cookie", "a=1; ifa=\(idfa)")])
        let found = pruned.inspect(TestSupport.flow(cookie))
        #expect(found == full.inspect(TestSupport.flow(cookie)))
        #expect(found.contains { $0.type == "idfa" && $0.where == "cookie:ifa" })
    }
}

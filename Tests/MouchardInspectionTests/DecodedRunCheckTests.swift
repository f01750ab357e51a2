import Foundation
import Testing
import MouchardFlow
@testable import MouchardInspection

/// A base64 or hex run is a span only when what the walk would decode from it could hold
/// something (`KnownValueMatcher.base64RunMatters`, `hexRunMatters`), and a number near the
/// profile's coordinates only with the decimals a coordinate needs. These tests hold the pruned
/// walk to the full one where the walk must still decode, and check that harmless runs no
/// longer make a request walked.
@Suite struct DecodedRunCheckTests {
    let kv = KnownValueMatcher(profile: try! TestSupport.profile())
    /// The owner's number as no variant writes it: found only by reading its digits.
    let phone = "call +49-151-2345-6789, ok"

    func pair() throws -> (pruned: Inspector, full: Inspector) {
        let pruned = Inspector(rules: try TestSupport.rules(), profile: try TestSupport.profile())
        var full = pruned
        full.rawPrefilter = false
        return (pruned, full)
    }

    func hex(_ s: String) -> String { s.utf8.map { String(format: "%02x", $0) }.joined() }

    func interest(_ r: HTTPRequest) -> RequestInterest {
        kv.interest(r, target: Array(r.head.target.utf8), pathAndQuery: r.head.target, passwordKeys: [], cleartext: false)
    }

    @Test func harmlessTokensIdsAndVersionsAreNoSpans() {
        let r = TestSupport.request("GET", "https://t.example/v1/feed?page=2", headers: [
            ("Authorization", "Bearer hpIcUULKQ1Yxtj0rbvc7X84yyEONTu0FVyaGAPw0"),
            ("X-Request-ID", "446e7c84-6ea1-4478-bd00-374f087da1a7"),
            ("User-Agent", "PetitMarche/4.0.7 (Linux; Android 14; Pixel 7 Build/UQ1A.240105.004) okhttp/4.12.0 lib/13.4"),
            ("X-Token", TestSupport.base64("nothing to see in here, move along")),
        ])
        #expect(!interest(r).needsWalk)
    }

    @Test func runsThatDecodeToSomethingStaySpans() {
        for value in [TestSupport.base64(phone), TestSupport.base64url("{\"t\":\"\(phone)\"}"), hex(phone),
                      "v=2&d=" + hex(phone), TestSupport.base64("52.51631,13.37772"), "47.1 52.5163"] {
            let r = TestSupport.request("GET", "https://t.example/", headers: [("X-Data", value)])
            #expect(interest(r).needsWalk, "\(value)")
        }
    }

    /// Where the walk cuts a run (`+` in a form, `/` in a path) or may not decode it whole, the
    /// run stays a span: decoded whole, these runs hold nothing.
    @Test(arguments: [
        // A form value: `+` is a space, the second piece is base64 of the number.
        ("POST", "https://t.example/f", "x=" + "QUJDRA" + "+" + "\(TestSupport.base64url("call +49-151-2345-6789, ok"))"),
        // A path segment between `/`s.
        ("GET", "https://t.example/Zm9vYmFy/" + TestSupport.base64url("call +49-151-2345-6789, ok") + "/x", ""),
        // Hex that is a whole form value inside a header-like body value.
        ("POST", "https://t.example/h", "a=1&b=" + "63616c6c202b34392d3135312d323334352d363738392c206f6b"),
    ])
    func cutRunsAreStillDecodedByTheWalk(method: String, url: String, body: String) throws {
        let (pruned, full) = try pair()
        let r = TestSupport.request(method, url, headers: [("Content-Type", "application/x-www-form-urlencoded")], text: body)
        let a = pruned.inspect(TestSupport.flow(r)), b = full.inspect(TestSupport.flow(r))
        #expect(a == b)
        #expect(a.contains { $0.type == "phone" }, "\(url) \(body)")
    }

    @Test func hexGluedToAWordIsNoSpanButAWholeValueIs() {
        let glued = Array(("id-" + hex(phone)).utf8)
        #expect(kv.spans(glued[...]).isEmpty)
        let whole = Array(("id=" + hex(phone)).utf8)
        #expect(!kv.spans(whole[...]).isEmpty)
    }

    /// A number is a span when it may be the latitude of a pair: with the decimals a coordinate
    /// needs, near the profile's latitude. The longitude needs none (its container is walked for
    /// the latitude, and its numbers are read whether spans touch them or not).
    @Test func coordinateSpansAreLatitudesWithTheirDecimals() {
        #expect(kv.spans(Array("v52.5".utf8)[...]).isEmpty)
        #expect(kv.spans(Array("lat 52.52".utf8)[...]) == [4..<9])
        #expect(kv.spans(Array("lon 13.38 x 133777000".utf8)[...]).isEmpty)
        #expect(kv.spans(Array("lat 525163000".utf8)[...]) == [4..<13])
    }

    @Test(arguments: [
        ("https://t.example/q?lon=13.3777&x=1&y=two&lat=52.5163", [(String, String)](), ""),
        ("https://t.example/h", [("X-Lon", "13.3777"), ("X-App", "demo"), ("X-Lat", "52.5163")], ""),
        ("https://t.example/c", [("Cookie", "lon=13.3777; a=b; lat=52.5163")], ""),
        ("https://t.example/j", [("Content-Type", "application/json")], "{\"p\":{\"lon\":13.3777,\"q\":\"z\",\"lat\":52.5163},\"r\":1}"),
        ("https://t.example/j", [("Content-Type", "application/json")], "{\"lon\":\"13.3777\",\"n\":[1,2],\"lat\":52.5163}"),
        ("https://t.example/a", [("Content-Type", "application/json")], "{\"e\":[{\"x\":1},{\"loc\":[13.3777,52.5163]}]}"),
        ("https://t.example/s", [("Content-Type", "application/json")], "{\"lngE7\":133777000,\"id\":\"x\",\"latE7\":525163000}"),
    ])
    func pairsAreFoundWhereOnlyTheLatitudeIsASpan(url: String, headers: [(String, String)], body: String) throws {
        let (pruned, full) = try pair()
        let r = TestSupport.request(body.isEmpty ? "GET" : "POST", url, headers: headers, text: body)
        let a = pruned.inspect(TestSupport.flow(r)), b = full.inspect(TestSupport.flow(r))
        #expect(a == b)
        #expect(a.contains { $0.type == "coordinates" }, "\(url) \(body)")
    }

    /// Base64 that decodes to gzip, or to a protobuf message, is decoded further by the walk.
    @Test func gzipAndProtobufStaySpans() {
        #expect(!kv.spans(Array(Data([0x1F, 0x8B, 0x08, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00]).base64EncodedString().utf8)[...]).isEmpty)
        // Field 1, varint 4915123456789 (the owner's number as a varint); field 2, bytes "AbCd".
        var message: [UInt8] = [0x08]
        var v: UInt64 = 4_915_123_456_789
        while v >= 0x80 { message.append(UInt8(v & 0x7F) | 0x80); v >>= 7 }
        message.append(UInt8(v))
        message += [0x12, 0x04, 0x41, 0x62, 0x43, 0x64]
        #expect(!kv.spans(Array(Data(message).base64EncodedString().utf8)[...]).isEmpty)
    }
}

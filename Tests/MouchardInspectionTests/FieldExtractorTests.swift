import Foundation
import MouchardCodec
import Testing
@testable import MouchardInspection

/// Decode layers: every value comes out with its place and encoding chain.
@Suite("Field extraction and decode layers")
struct FieldExtractorTests {
    func fields(_ r: HTTPRequestLike) -> FieldExtractor.Result { FieldExtractor().extract(r.request) }

    func find(_ result: FieldExtractor.Result, _ text: String) -> ExtractedField? {
        result.fields.first { String(decoding: $0.bytes, as: UTF8.self) == text }
    }

    @Test func queryBracketRepeatedAndDoublePercent() throws {
        let double = TestSupport.percent(TestSupport.percent("x@y.org"))
        let r = TestSupport.request("GET", "https://a.example/p?ud[em]=abc&tag=alpha&tag=beta&mail=\(double)")
        let res = FieldExtractor().extract(r)
        let em = try #require(find(res, "abc"))
        #expect(em.origin.location == "query:ud[em]")
        #expect(em.origin.key == "em")
        #expect(res.fields.filter { $0.origin.location == "query:tag" }.count == 2)
        let mail = try #require(find(res, "x@y.org"))
        #expect(mail.origin.decodings == ["url", "url"])
        #expect(mail.origin.encodingChain() == "url+url")
    }

    @Test func pathSegmentsCookiesAndHeaders() throws {
        let r = TestSupport.request("GET", "https://a.example/users/deadbeefcafe/x", headers: [("Cookie", "a=1; sess=\"q w\""), ("X-Thing", "v1")])
        let res = FieldExtractor().extract(r)
        #expect(find(res, "deadbeefcafe")?.origin.location == "url")
        #expect(find(res, "q w")?.origin.location == "cookie:sess")
        #expect(find(res, "v1")?.origin.location == "header:X-Thing")
    }

    @Test func jsonNestedStringHoldingJSONAndNDJSON() throws {
        let inner = #"{\"deep\":{\"k\":\"needle-1\"}}"#
        let r = TestSupport.request("POST", "https://a.example/e", headers: [("Content-Type", "application/json")],
                                    text: #"{"a":[1,{"b":"\#(inner)"}]}"#)
        let res = FieldExtractor().extract(r)
        let f = try #require(find(res, "needle-1"))
        #expect(f.origin.location == "body:$.a[1].b")
        #expect(f.origin.inner == "$.deep.k")
        let nd = TestSupport.request("POST", "https://a.example/e", text: "{\"x\":\"one1\"}\n{\"y\":\"two2\"}\n")
        let res2 = FieldExtractor().extract(nd)
        #expect(find(res2, "two2")?.origin.location == "body:$[1].y")
    }

    @Test func arrayIndexesOfSeveralDigitsInPaths() throws {
        let items = (0..<12).map { "\"item-\($0)\"" }.joined(separator: ",")
        let r = TestSupport.request("POST", "https://a.example/e", headers: [("Content-Type", "application/json; charset=utf-8")],
                                    text: #"{"list":[\#(items)]}"#)
        let res = FieldExtractor().extract(r)
        #expect(find(res, "item-0")?.origin.location == "body:$.list[0]")
        #expect(find(res, "item-9")?.origin.location == "body:$.list[9]")
        #expect(find(res, "item-10")?.origin.location == "body:$.list[10]")
        #expect(find(res, "item-11")?.origin.location == "body:$.list[11]")
    }

    @Test func gzipBodyByHeaderAndByMagic() throws {
        let json = Array(#"{"who":"zipped-value"}"#.utf8)
        let gz = gzipCompress(json)
        let byHeader = TestSupport.request("POST", "https://a.example/z", headers: [("Content-Encoding", "gzip")], body: gz)
        let f1 = try #require(find(FieldExtractor().extract(byHeader), "zipped-value"))
        #expect(f1.origin.location == "body:$.who")
        #expect(f1.origin.encodingChain() == "gzip")
        let byMagic = TestSupport.request("POST", "https://a.example/z", headers: [("Content-Type", "application/octet-stream")], body: gz)
        #expect(find(FieldExtractor().extract(byMagic), "zipped-value")?.origin.encodingChain() == "gzip")
    }

    /// A `Content-Encoding` names its codings in the order applied: the chain lists them as undone,
    /// one coding read as the value itself, a list split and trimmed.
    @Test func contentEncodingCodingsInOrder() {
        let walker = FieldWalker(config: FieldExtractor())
        #expect(walker.contentCodings("gzip") == ["gzip"])
        #expect(walker.contentCodings("gzip, br") == ["br", "gzip"])
        #expect(walker.contentCodings(" deflate ,gzip,") == ["gzip", "deflate"])
        #expect(walker.contentCodings(" gzip") == ["gzip"])
        for text in ["gzip", " gzip\t", "\r\nbr", "x\r\n", "", "  ", "\u{301}a "] {
            var s = Substring(text)
            while let f = s.first, f == " " || f == "\t" || f == "\n" || f == "\r" { s.removeFirst() }
            while let l = s.last, l == " " || l == "\t" || l == "\n" || l == "\r" { s.removeLast() }
            #expect(text.trimmingASCIISpaces() == String(s), "\(text.debugDescription)")
        }
    }

    @Test func base64WholeEmbeddedAndJWT() throws {
        let blob = TestSupport.base64(#"{"user":{"mail":"p@q.io"}}"#)
        let r = TestSupport.request("GET", "https://a.example/t?data=\(TestSupport.percent(blob))")
        let f = try #require(find(FieldExtractor().extract(r), "p@q.io"))
        #expect(f.origin.location == "query:data")
        #expect(f.origin.inner == "$.user.mail")
        #expect(f.origin.encodingChain() == "base64+url")
        let jwt = "eyJhbGciOiJIUzI1NiJ9." + TestSupport.base64url(#"{"sub":"jwt-subject-42"}"#) + ".c2lnbmF0dXJl"
        let r2 = TestSupport.request("GET", "https://a.example/t", headers: [("Authorization", "Bearer \(jwt)")])
        let g = try #require(find(FieldExtractor().extract(r2), "jwt-subject-42"))
        #expect(g.origin.location == "header:Authorization")
        #expect(g.origin.encodingChain() == "base64")
        let embedded = TestSupport.request("GET", "https://a.example/t", headers: [("X-Token", "v2:" + TestSupport.base64("hidden@mail.example:1700000000"))])
        #expect(find(FieldExtractor().extract(embedded), "hidden@mail.example:1700000000") != nil)
    }

    @Test func hexEncodedText() throws {
        let hex = "SERIAL9X".utf8.map { String(format: "%02x", $0) }.joined()
        let r = TestSupport.request("GET", "https://a.example/t", headers: [("X-Dev", hex)])
        #expect(find(FieldExtractor().extract(r), "SERIAL9X")?.origin.encodingChain() == "hex")
    }

    @Test func formAndMultipart() throws {
        let form = TestSupport.request("POST", "https://a.example/f", headers: [("Content-Type", "application/x-www-form-urlencoded")],
                                       text: "a=1&name=Jo+Doe&e=me%40x.org")
        let res = FieldExtractor().extract(form)
        #expect(find(res, "Jo Doe")?.origin.location == "form:name")
        #expect(find(res, "me@x.org")?.origin.encodingChain() == "url")
        let body = "--XyZ\r\nContent-Disposition: form-data; name=\"meta\"\r\nContent-Type: application/json\r\n\r\n{\"dev\":\"part-val\"}\r\n--XyZ\r\nContent-Disposition: form-data; name=\"f\"; filename=\"a.bin\"\r\n\r\nBIN\r\n--XyZ--\r\n"
        let mp = TestSupport.request("POST", "https://a.example/m", headers: [("Content-Type", "multipart/form-data; boundary=XyZ")], text: body)
        let f = try #require(find(FieldExtractor().extract(mp), "part-val"))
        #expect(f.origin.location == "multipart:meta")
        #expect(f.origin.inner == "$.dev")
    }

    @Test func xmlPlist() throws {
        let plist = """
        <?xml version="1.0"?><plist version="1.0"><dict><key>AdvertisingID</key><string>plist-val-7</string><key>lat</key><real>52.51</real></dict></plist>
        """
        let r = TestSupport.request("POST", "https://a.example/x", headers: [("Content-Type", "application/x-plist")], text: plist)
        let f = try #require(find(FieldExtractor().extract(r), "plist-val-7"))
        #expect(f.origin.key == "AdvertisingID")
        #expect(f.origin.location.hasPrefix("body:/plist/dict"))
    }

    @Test func protobufNestedWithDoubles() throws {
        // message { 1: "outer-text", 3: { 19: "nested-value-x", 5: double 52.5163, 6: double 13.3777 } }
        func tag(_ n: Int, _ w: Int) -> [UInt8] { [UInt8(n << 3 | w)] }
        func str(_ n: Int, _ s: [UInt8]) -> [UInt8] { (n >= 16 ? [UInt8((n << 3 | 2) & 0x7F | 0x80), UInt8((n << 3) >> 7)] : tag(n, 2)) + [UInt8(s.count)] + s }
        func dbl(_ n: Int, _ d: Double) -> [UInt8] { tag(n, 1) + withUnsafeBytes(of: d.bitPattern.littleEndian, Array.init) }
        let inner = str(19, Array("nested-value-x".utf8)) + dbl(5, 52.5163) + dbl(6, 13.3777)
        let msg = str(1, Array("outer-text".utf8)) + str(3, inner)
        let r = TestSupport.request("POST", "https://a.example/pb", headers: [("Content-Type", "application/x-protobuf")], body: msg)
        let res = FieldExtractor().extract(r)
        #expect(find(res, "nested-value-x")?.origin.location == "body:pb.3.19")
        #expect(res.groups.contains { g in g.members.contains { abs($0.value - 52.5163) < 1e-9 } })
    }

    @Test func hostileInputDoesNotCrash() {
        let junk: [[UInt8]] = [[0x1F, 0x8B, 0, 0, 0, 0, 0, 0, 0, 0, 1, 2], Array("{\"a\":[[[[[[".utf8), Array("%%%2".utf8), [0x0A, 0xFF, 0xFF, 0xFF, 0xFF, 0x0F],
                                Array(String(repeating: "[", count: 5000).utf8), Array("<a b=\"".utf8), Array("--x\r\n".utf8)]
        for body in junk {
            for ct in ["application/json", "multipart/form-data; boundary=x", "application/x-protobuf", "", "text/xml"] {
                let r = TestSupport.request("POST", "https://a.example/j", headers: [("Content-Type", ct)], body: body)
                _ = FieldExtractor().extract(r)
            }
        }
    }
}

/// Lets tests pass a request directly.
struct HTTPRequestLike { var request: MouchardFlow.HTTPRequest }
import MouchardFlow

@Suite("Base64url JSON in a query value")
struct Base64URLQueryTests {
    @Test func innerPathOfBase64urlJSON() throws {
        let v = TestSupport.base64url(#"{"idfa":"8C1F6A2E-5B3D-4E7F-A9C1-2D4E6F8A0B13","geo":{"la":45.764,"lo":4.836},"slot":"interstitial"}"#)
        let r = TestSupport.request("GET", "https://ads.example/b?u=\(v)&z=1")
        let res = FieldExtractor().extract(r)
        let f = try #require(res.fields.first { String(decoding: $0.bytes, as: UTF8.self) == "8C1F6A2E-5B3D-4E7F-A9C1-2D4E6F8A0B13" })
        #expect(f.origin.inner == "$.idfa")
        #expect(f.origin.encodingChain() == "base64")
        let padded = "eyJpZGZhIjoiOEMxRjZBMkUtNUIzRC00RTdGLUE5QzEtMkQ0RTZGOEEwQjEzIiwiZ2VvIjp7ImxhIjo0NS43NjQsImxvIjo0LjgzNn0sInNsb3QiOiJpbnRlcnN0aXRpYWwifQ%3D%3D"
        let r2 = TestSupport.request("GET", "http://ads.example/v1/pixel?e=view&u=\(padded)")
        let all = FieldExtractor().extract(r2).fields.map { "\($0.origin.location) \($0.origin.inner ?? "-") \($0.origin.decodings) \(String(decoding: $0.bytes, as: UTF8.self).prefix(30))" }
        let g = FieldExtractor().extract(r2).fields.first { String(decoding: $0.bytes, as: UTF8.self) == "8C1F6A2E-5B3D-4E7F-A9C1-2D4E6F8A0B13" }
        #expect(g?.origin.inner == "$.idfa", "\(all)")
        #expect(g?.origin.encodingChain() == "base64+url")
    }
}

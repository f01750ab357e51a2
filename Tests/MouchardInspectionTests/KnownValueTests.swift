import Foundation
import MouchardCodec
import MouchardFindings
import Testing
@testable import MouchardInspection

/// Known values of a (held-out) device profile found in any encoding.
@Suite("Known values from a device profile")
struct KnownValueTests {
    func inspector() throws -> Inspector { Inspector(rules: try TestSupport.rules(), profile: try TestSupport.profile()) }

    func detections(_ r: MouchardFlow.HTTPRequest) throws -> [Detection] { try inspector().detect(r) }

    func has(_ ds: [Detection], _ category: FindingCategory, _ type: String? = nil, where w: String? = nil, encoding: String? = nil) -> Bool {
        ds.contains { d in
            d.category == category && (type == nil || d.type == type) && (w == nil || d.whereKey == w) && (encoding == nil || d.encoding == encoding)
        }
    }

    @Test func identifierVariants() throws {
        let idfa = "1E2D3C4B-5A69-4788-9A0B-C1D2E3F40516"
        let cases: [(String, String)] = [
            ("ifa=\(idfa.lowercased())", "plain"),
            ("ifa=\(idfa.replacingOccurrences(of: "-", with: ""))", "plain"),
            ("h=\(DigestAlgorithm.sha1.hexDigest(idfa.lowercased()))", "sha1"),
            ("h=\(DigestAlgorithm.sha256.hexDigest(idfa).uppercased())", "sha256"),
            ("h=\(DigestAlgorithm.md5.hexDigest(idfa))", "md5"),
        ]
        for (query, encoding) in cases {
            let ds = try detections(TestSupport.request("GET", "https://sdk.other.example/v3/ping?\(query)"))
            #expect(has(ds, .deviceID, "idfa", encoding: encoding), "\(query)")
        }
    }

    @Test func macImeiAndSerialForms() throws {
        let ds = try detections(TestSupport.request("POST", "https://x.example/d", headers: [("Content-Type", "application/json")],
                                                    text: #"{"hw":{"wlan":"0A-1B-2C-3D-4E-5F","imei":356938035643809,"sn":"zx81spec128k"}}"#))
        #expect(has(ds, .deviceID, "mac", where: "body:$.hw.wlan"))
        #expect(has(ds, .deviceID, "imei", where: "body:$.hw.imei"))
        #expect(has(ds, .deviceID, "serial", where: "body:$.hw.sn"))
    }

    @Test func hashedEmailInCookieAndBase64EmbeddedInLargerBlob() throws {
        let email = "margot.quintin@example.com"
        let cookie = "uh=\(DigestAlgorithm.sha256.hexDigest(email)); theme=dark"
        let ds = try detections(TestSupport.request("GET", "https://ads.example/p", headers: [("Cookie", cookie)]))
        #expect(has(ds, .email, "email", where: "cookie:uh", encoding: "sha256"))
        // A base64 blob whose decoded bytes are binary-prefixed: only the alignment variants can see the e-mail.
        let blob = Data([0x01, 0x02] + Array("xx\(email)yy".utf8)).base64EncodedString()
        let ds2 = try detections(TestSupport.request("GET", "https://ads.example/p?b=\(TestSupport.percent(blob))"))
        #expect(has(ds2, .email, "email", where: "query:b"))
    }

    @Test func phoneNumbersInEveryForm() throws {
        for written in ["+49 151 23456789", "0049-151-234-567-89", "0151 2345 6789", "(0151) 23456789", "+4915123456789"] {
            let ds = try detections(TestSupport.request("POST", "https://x.example/u", headers: [("Content-Type", "application/x-www-form-urlencoded")],
                                                        text: "tel=\(TestSupport.percent(written))"))
            #expect(has(ds, .phoneNumber, "phone", where: "form:tel"), "\(written)")
        }
        let hashed = DigestAlgorithm.sha256.hexDigest("+4915123456789")
        #expect(has(try detections(TestSupport.request("GET", "https://x.example/m?p=\(hashed)")), .phoneNumber, encoding: "sha256"))
        // A contact's national number read in the owner's region (DE).
        let ds = try detections(TestSupport.request("POST", "https://x.example/c", text: #"{"list":[{"n":"+49 30 12345678"}]}"#))
        #expect(has(ds, .contacts, "contact-phone"))
    }

    @Test func coordinatesByDistance() throws {
        // ~0.5 km away, 3 decimals, in a header written as "lat;lon".
        #expect(has(try detections(TestSupport.request("GET", "https://w.example/f", headers: [("X-Geo", "52.519;13.381")])), .location))
        // GeoJSON [lng, lat].
        let geo = #"{"type":"Feature","geometry":{"type":"Point","coordinates":[13.3791,52.5149]}}"#
        #expect(has(try detections(TestSupport.request("POST", "https://w.example/g", text: geo)), .location))
        // ll=lat,lng.
        #expect(has(try detections(TestSupport.request("GET", "https://w.example/s?ll=52.51,13.38")), .location))
        // Nested object with sibling keys of any name.
        #expect(has(try detections(TestSupport.request("POST", "https://w.example/n", text: #"{"at":{"y":52.5201,"x":13.3702}}"#)), .location))
        // Fixed-point degrees (latE7 / lngE7).
        #expect(has(try detections(TestSupport.request("POST", "https://w.example/e7", text: #"{"latE7":525163000,"lngE7":133777000}"#)), .location))
        // Coarse (1 decimal) and far (Hamburg) are not leaks.
        #expect(!has(try detections(TestSupport.request("GET", "https://w.example/s?lat=52.5&lon=13.4")), .location))
        #expect(!has(try detections(TestSupport.request("GET", "https://w.example/s?lat=53.5511&lon=9.9937")), .location))
    }

    @Test func namesWithAccentsAndNoFalsePositiveOnLookalikes() throws {
        let ds = try detections(TestSupport.request("POST", "https://x.example/n", text: #"{"who":"MARGOT QUINTIN","friend":"Ulrich Brandt"}"#))
        #expect(has(ds, .name, "name"))
        #expect(has(ds, .contacts, "contact-name"))
        let neg = try detections(TestSupport.request("GET", "https://x.example/q?id=\(UUID().uuidString)&n=356938035643801&m=02:00:00:00:00:00"))
        #expect(neg.isEmpty)
    }

    @Test func profileErrorsAreLocated() {
        let bad = "{\n  \"identifiers\": {\n    \"idfa\": \"x\",\n    \"imie\": \"1\"\n  }\n}"
        #expect(throws: ConfigFileError.self) { try DeviceProfile.load(Array(bad.utf8), file: "p.json") }
        do {
            _ = try DeviceProfile.load(Array(bad.utf8), file: "p.json")
        } catch {
            #expect(error.description.hasPrefix("p.json:4:5: unknown field 'imie'"))
        }
        do {
            _ = try DeviceProfile.load(Array("{\"location\": {\"latitude\": \"47\"}}".utf8), file: "q.json")
        } catch {
            #expect(error.description.hasPrefix("q.json:1:27: 'latitude' must be a number"))
        }
        // A whole address book is refused with one clear line, before any automaton is built.
        let book = (0...DeviceProfile.maximumContacts).map { #"{"name":"C \#($0)","phones":["+33 6 12 34 \#($0 % 90 + 10) 00"]}"# }
        do {
            _ = try DeviceProfile.load(Array(#"{"contacts": [\#(book.joined(separator: ","))]}"#.utf8), file: "book.json")
            Issue.record("a profile over the contact limit loaded")
        } catch {
            #expect(error.description.hasPrefix("book.json:1:14: too many contacts (1001; at most 1000"))
        }
        let macs = (0...DeviceProfile.maximumValues).map { "\"02:00:00:\(String(format: "%02x:%02x:%02x", $0 >> 16, ($0 >> 8) & 255, $0 & 255))\"" }
        do {
            _ = try DeviceProfile.load(Array(#"{"identifiers": {"mac": [\#(macs.joined(separator: ","))]}}"#.utf8), file: "m.json")
            Issue.record("a profile over the value limit loaded")
        } catch {
            #expect(error.description.hasPrefix("m.json:1:1: too many values (5001"))
        }
        let wide = (0..<300).map { #"{"name":"\#(String(repeating: "n", count: 240)) \#($0)"}"# }
        do {
            _ = try DeviceProfile.load(Array(#"{"contacts": [\#(wide.joined(separator: ","))]}"#.utf8), file: "w.json")
            Issue.record("a profile over the byte budget loaded")
        } catch {
            #expect(error.description.contains("the values add up to"))
        }
        let long = String(repeating: "x", count: 300)
        #expect(throws: ConfigFileError.self) { try DeviceProfile.load(Array(#"{"owner": {"name": "\#(long)"}}"#.utf8), file: "l.json") }
    }
}
import MouchardFlow

@Suite("Known values: split names and cookie coordinates")
struct SplitNameTests {
    @Test func firstAndLastNameInSeparateFields() throws {
        let inspector = Inspector(rules: try TestSupport.rules(), profile: try TestSupport.profile())
        let ds = inspector.detect(TestSupport.request("POST", "https://crm.example/u", text: #"{"given":"Margot","family":"QUINTIN","city":"Berlin"}"#))
        #expect(ds.contains { $0.category == .name && $0.origin.location == "body:$.family" })
        let one = inspector.detect(TestSupport.request("POST", "https://crm.example/u", text: #"{"given":"Margot","city":"Berlin"}"#))
        #expect(!one.contains { $0.category == .name })
        let c = inspector.detect(TestSupport.request("GET", "https://w.example/", headers: [("Cookie", "geo_a=52.5170; geo_b=13.3890")]))
        #expect(c.contains { $0.category == .location })
    }

    /// Two names split over fields in one request come out in profile order (owner, then
    /// contacts), the same in every run.
    @Test func splitNamesComeOutInProfileOrder() throws {
        let inspector = Inspector(rules: try TestSupport.rules(), profile: try TestSupport.profile())
        let r = TestSupport.request("POST", "https://crm.example/u", headers: [("Content-Type", "application/x-www-form-urlencoded")],
                                    text: "cf=Ulrich&cl=Brandt&first=Margot&last=Quintin")
        let names = inspector.detect(r).filter { $0.type == "name" || $0.type == "contact-name" }.map(\.type)
        #expect(names == ["name", "contact-name"])
    }
}

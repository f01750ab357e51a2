import Foundation
import MouchardCodec
import MouchardFlow
import Testing
@testable import MouchardInspection

/// Pattern mode on encodings the SDK corpus showed missing: split names, national phones, path-segment
/// coordinates, `[lng, lat]` pairs, hashed names and e-mail lists, someone else's details.
@Suite("Pattern rules: encoding families")
struct PatternFamiliesTests {
    func categories(_ r: MouchardFlow.HTTPRequest) throws -> Set<String> {
        Set(Inspector(rules: try TestSupport.rules()).detect(r).map(\.category.rawValue))
    }

    func json(_ text: String) -> MouchardFlow.HTTPRequest {
        TestSupport.request("POST", "https://api.family.example/v1/u", headers: [("Content-Type", "application/json")], text: text)
    }

    @Test func plausiblePhoneUnderAPhoneName() {
        for ok in ["+49 1520 3456789", "0049 1520 3456789", "01520 3456789", "(303) 555-0147", "(51) 99876-5432", "4915203456789"] {
            #expect(plausiblePhone(ok), "\(ok)")
        }
        for bad in ["12345678", "(303) 555-01", "7700900123456789", "1520 3456789", "0123"] {
            #expect(!plausiblePhone(bad), "\(bad)")
        }
    }

    @Test func nationalPhonesAndSplitNames() throws {
        #expect(try categories(json(#"{"attributes":{"phone":"(303) 555-0147"}}"#)) == ["phone-number"])
        #expect(try categories(json(#"{"USER_ATTRIBUTE_USER_MOBILE":"13035550147"}"#)) == ["phone-number"])
        #expect(try categories(json(#"{"first_name":"Zo\u00eb","last_name":"O'CONNOR"}"#)) == ["name"])
        // A product's or event's name is not a person's, whatever its field.
        #expect(try categories(json(#"{"product":{"first_name":"Season Pass"},"event":"Add To Cart"}"#)).isEmpty)
        let fn = DigestAlgorithm.sha256.hexDigest("zoe")
        #expect(try categories(json(#"{"ud":{"fn":"\#(fn)"}}"#)) == ["name"])
    }

    @Test func hashedEmailListAndSomeoneElsesCard() throws {
        let h = DigestAlgorithm.sha256.hexDigest("zoe@mailbox.example")
        #expect(try categories(json(#"{"user_emails":[{"sha256_el_arr":["\#(h)"]}]}"#)) == ["email"])
        #expect(try categories(json(#"{"ocr":{"name":"Ingrid Halvorsen","email":"i.h@clinic.example","phone":"+47 22 55 01 23"}}"#)).isEmpty)
        #expect(try categories(json(#"{"to":"hilfe@hafen.example","hotline":"+49 40 55512300"}"#)).isEmpty)
    }

    @Test func typedIdentifierIsNotFreeText() throws {
        let idfv = "5E9A7C31-2B4D-4F60-8A1E-C3D5F7092B46"
        #expect(try categories(json(#"{"$distinct_id":"$device:\#(idfv)"}"#)) == ["device-id"])
        #expect(try categories(json(#"{"distinct_id":"user seen on \#(idfv)"}"#)).isEmpty)
        #expect(try categories(TestSupport.request("GET", "https://w.example/a", headers: [("X-Device", idfv)])) == ["device-id"])
        #expect(try categories(TestSupport.request("GET", "https://w.example/a", headers: [("X-Device", idfv.lowercased())])).isEmpty)
    }

    @Test func hashedContactsToAnInviteEndpoint() throws {
        let hashes = ["a@x.example", "b@y.example"].map { DigestAlgorithm.sha256.hexDigest($0) }
        let body = #"{"variables":{"hashes":["\#(hashes[0])","\#(hashes[1])"]}}"#
        #expect(try categories(TestSupport.request("POST", "https://api.family.example/graphql/invite", headers: [("Content-Type", "application/json")], text: body)) == ["contacts"])
        #expect(try categories(TestSupport.request("POST", "https://api.family.example/graphql/search", headers: [("Content-Type", "application/json")], text: body)).isEmpty)
    }

    @Test func coordinatesInAPathSegment() throws {
        #expect(try categories(TestSupport.request("GET", "https://w.example/v3/forecast/53.5513,9.9931?units=metric")) == ["location"])
        // Versions and two-decimal prices in a path are not places.
        #expect(try categories(TestSupport.request("GET", "https://w.example/v3/sdk/4.12,2.10/config")).isEmpty)
    }

    @Test func consensusReadsAPairInBothOrders() throws {
        let home = [Coordinate(latitude: -30.033, longitude: -51.230), Coordinate(latitude: -30.034, longitude: -51.229),
                    Coordinate(latitude: -30.032, longitude: -51.231)]
        let consensus = try #require(LocationConsensus(home))
        #expect(consensus.keeps(Coordinate(latitude: -51.2301, longitude: -30.0331)))
        #expect(!consensus.keeps(Coordinate(latitude: -23.5505, longitude: -46.6333)))
        #expect(!consensus.keeps(Coordinate(latitude: -46.6333, longitude: -23.5505)))
    }
}

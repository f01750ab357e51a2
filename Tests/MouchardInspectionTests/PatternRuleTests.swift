import Foundation
import MouchardCodec
import Testing
@testable import MouchardInspection

/// Pattern mode (no profile) on held-out traffic: other SDK names, keys and encodings than the dev corpus.
@Suite("Pattern rules")
struct PatternRuleTests {
    func detect(_ r: MouchardFlow.HTTPRequest) throws -> [Detection] { Inspector(rules: try TestSupport.rules()).detect(r) }
    func categories(_ r: MouchardFlow.HTTPRequest) throws -> Set<String> { Set(try detect(r).map(\.category.rawValue)) }

    @Test func advertisingIdsByKeyNotByShapeAlone() throws {
        let id = "3F2504E0-4F89-41D3-9A0C-0305E82C3301"
        #expect(try categories(TestSupport.request("GET", "https://t.adnet.example/i?advertisingIdentifier=\(id)")) == ["device-id"])
        #expect(try categories(TestSupport.request("GET", "https://t.adnet.example/i?gps_adid=\(id.lowercased())")) == ["device-id"])
        #expect(try categories(TestSupport.request("GET", "https://t.adnet.example/i?correlation_id=\(id)&request_uuid=\(id)")).isEmpty)
        #expect(try categories(TestSupport.request("GET", "https://t.adnet.example/i?idfa=00000000-0000-0000-0000-000000000000")).isEmpty)
    }

    @Test func oneValueAtOnePlaceGetsItsBestReadingOnly() throws {
        // An uppercase UUID under `ifa`, inside base64 JSON: an IDFA, not also a weaker IDFV guess.
        let blob = TestSupport.base64(#"{"device":{"ifa":"3F2504E0-4F89-41D3-9A0C-0305E82C3301"}}"#)
        let found = try detect(TestSupport.request("POST", "https://e.adnet.example/e", headers: [("Content-Type", "application/json")],
                                                   text: #"{"payload":"\#(blob)"}"#))
        #expect(found.filter { $0.category == .deviceID }.map(\.type) == ["idfa"])
    }

    @Test func imeiNeedsLuhnAndAName() throws {
        #expect(try categories(TestSupport.request("GET", "https://a.example/r?imei=490154203237518")) == ["device-id"])
        #expect(try categories(TestSupport.request("GET", "https://a.example/r?imei=490154203237519")).isEmpty)
        #expect(try categories(TestSupport.request("GET", "https://a.example/r?order=490154203237518")).isEmpty)
    }

    @Test func protobufBodyWithNamedFieldsIsWalked() throws {
        // Strings in a protobuf body carry no names: an e-mail is still an e-mail.
        let mail = Array("jane.roe@mailbox.example".utf8)
        let body: [UInt8] = [0x0A, UInt8(mail.count)] + mail + [0x10, 0x01]
        #expect(try categories(TestSupport.request("POST", "https://b.example/log", headers: [("Content-Type", "application/x-protobuf")], body: body)).contains("email"))
    }

    @Test func locationPairsNeedNamesOrAFriendlyContainer() throws {
        #expect(try categories(TestSupport.request("GET", "https://w.example/a?latitude=40.4168&longitude=-3.7038")) == ["location"])
        #expect(try categories(TestSupport.request("GET", "https://w.example/a", headers: [("X-Geo-Position", "40.4168,-3.7038")])) == ["location"])
        #expect(try categories(TestSupport.request("GET", "https://w.example/a?v=40.41&build=3.70")).isEmpty)
        #expect(try categories(TestSupport.request("GET", "https://w.example/a?lat=40.4&lon=-3.7")).isEmpty)
    }

    @Test func emailsPhonesNamesAndRoleAccounts() throws {
        #expect(try categories(TestSupport.request("POST", "https://s.example/u", headers: [("Content-Type", "application/x-www-form-urlencoded")],
                                                   text: "contact_email=jane.roe%40mailbox.example")) == ["email"])
        #expect(try categories(TestSupport.request("POST", "https://s.example/u", headers: [("Content-Type", "application/x-www-form-urlencoded")],
                                                   text: "to=support%40shop.example")).isEmpty)
        #expect(try categories(TestSupport.request("POST", "https://s.example/u", text: #"{"msisdn":"+44 7700 900123"}"#)) == ["phone-number"])
        #expect(try categories(TestSupport.request("POST", "https://s.example/u", text: #"{"customer":{"name":"Jane Roe"},"app_name":"Super App"}"#)) == ["name"])
        let hashed = DigestAlgorithm.sha256.hexDigest("jane.roe@mailbox.example")
        #expect(try categories(TestSupport.request("GET", "https://s.example/u?hashed_email=\(hashed)")) == ["email"])
    }

    @Test func contactsUploadAndVCard() throws {
        let body = #"{"addressBook":[{"n":"Ann Lee","tel":["+1 415 555 0101"],"mail":["ann@lee.example"]}]}"#
        #expect(try categories(TestSupport.request("POST", "https://s.example/sync", text: body)).contains("contacts"))
        #expect(try categories(TestSupport.request("POST", "https://s.example/v", text: "BEGIN:VCARD\nVERSION:3.0\nFN:Ann Lee\nEND:VCARD")).contains("contacts"))
    }

    @Test func hashedListToAnAddressBookEndpoint() throws {
        let h = (1...3).map { DigestAlgorithm.sha256.hexDigest("+1415555010\($0)") }
        let body = #"{"numbers":["\#(h[0])","\#(h[1])","\#(h[2])"]}"#
        #expect(try categories(TestSupport.request("POST", "https://m.example/api/addressbook/lookup", text: body)).contains("contacts"))
        #expect(try !categories(TestSupport.request("POST", "https://m.example/api/files/check", text: body)).contains("contacts"))
    }

    @Test func credentialsOnlyOverCleartext() throws {
        let basic = "Basic " + TestSupport.base64("user:hunter2")
        #expect(try categories(TestSupport.request("GET", "http://old.example/api", headers: [("Authorization", basic)])).contains("credentials"))
        #expect(try !categories(TestSupport.request("GET", "https://old.example/api", headers: [("Authorization", basic)])).contains("credentials"))
        #expect(try categories(TestSupport.request("POST", "http://old.example/login", headers: [("Content-Type", "application/x-www-form-urlencoded")],
                                                   text: "user=a&password=hunter2")).contains("credentials"))
    }

    @Test func ruleFileErrorsAreLocated() {
        func error(_ text: String) -> String {
            do { _ = try RuleFileLoader.load(Array(text.utf8), file: "r.json"); return "no error" } catch { return error.description }
        }
        #expect(error(#"{"category":"x","rules":[{"id":"a","type":"t","match":{"shape":"uuid"},"wieght":1}]}"#).hasPrefix("r.json:1:72: unknown field 'wieght' in a rule"))
        #expect(error("{\n \"rules\": [\n  {\"id\":\"a\",\"type\":\"t\",\"category\":\"c\",\"match\":{\"shape\":\"blob\"}}]}").hasPrefix("r.json:3:56: unknown shape 'blob'"))
        #expect(error(#"{"rules":[{"id":"a","type":"t","category":"c","match":{"regex":"("}}]}"#).contains("invalid regex"))
        #expect(error(#"{"rules":[{"id":"a","type":"t","category":"c","match":{"shape":"hex"},"threshold":3}]}"#).contains("threshold must be between 0 and 1"))
        #expect(error("{\"rules\": [").hasPrefix("r.json:1:12: invalid JSON"))
    }

    @Test func bundledRulesLoad() throws {
        let rules = try TestSupport.rules()
        #expect(Set(rules.rules.map(\.category)).isSuperset(of: [.deviceID, .location, .email, .phoneNumber, .name, .contacts]))
    }
}
import MouchardFlow

@Suite("Pattern rules: names are people, not events")
struct PersonNameTests {
    @Test func eventAndScreenNamesAreNotPeople() throws {
        let inspector = Inspector(rules: try TestSupport.rules())
        let events = #"{"events":[{"name":"Add To Cart"},{"name":"Home Screen"}],"screen":{"name":"Order Details"}}"#
        #expect(!inspector.detect(TestSupport.request("POST", "https://a.example/e", text: events)).contains { $0.category == .name })
        #expect(inspector.detect(TestSupport.request("POST", "https://a.example/u", text: #"{"user":{"name":"Jane Roe"}}"#)).contains { $0.category == .name })
    }
}

import Foundation
import MouchardCodec
import MouchardFlow
import MouchardTestSupport
import MouchardWire
@testable import MouchardInspection

/// Builders shared by the inspection tests: requests, flows, the repo's rule set.
enum TestSupport {
    static func request(_ method: String = "GET", _ url: String, headers: [(String, String)] = [], body: [UInt8] = []) -> HTTPRequest {
        let parts = URLParts(absolute: url)!
        var h = HTTPHeaders()
        h.add(name: "Host", value: parts.authority)
        for (n, v) in headers { h.add(name: n, value: v) }
        return HTTPRequest(head: HTTPRequestHead(method: method, target: parts.pathAndQuery, headers: h), scheme: parts.scheme, body: body)
    }

    static func request(_ method: String = "POST", _ url: String, headers: [(String, String)] = [], text: String) -> HTTPRequest {
        request(method, url, headers: headers, body: Array(text.utf8))
    }

    static func flow(_ request: HTTPRequest, id: Int = 1) -> Flow {
        Flow(id: id, source: .har, transport: request.scheme == "http" ? .http : .https, request: request)
    }

    static func rules() throws -> RuleSet {
        let dir = TestFiles.rules
        var sets: [RuleSet] = []
        for name in try FileManager.default.contentsOfDirectory(atPath: dir.path).sorted() where name.hasSuffix(".json") && name != "trackers.json" {
            sets.append(try RuleFileLoader.load([UInt8](try Data(contentsOf: dir.appendingPathComponent(name))), file: name))
        }
        return try RuleFileLoader.merge(sets)
    }

    /// A profile unrelated to the dev corpus (our own held-out values).
    static let profileJSON = """
    {
      "name": "held-out test phone",
      "platform": "android",
      "identifiers": {
        "idfa": "1E2D3C4B-5A69-4788-9A0B-C1D2E3F40516",
        "android_id": "5b1e9c07a3d24f18",
        "advertising_id": "0f8e7d6c-5b4a-4392-8190-a1b2c3d4e5f6",
        "imei": "356938035643809",
        "serial": "ZX81SPEC128K",
        "mac": ["0a:1b:2c:3d:4e:5f"]
      },
      "owner": { "name": "Margot Quintin", "email": ["Margot.Quintin@Example.COM "], "phone": ["+49 151 23456789"] },
      "location": { "latitude": 52.5163, "longitude": 13.3777 },
      "contacts": [ { "name": "Ulrich Brandt", "phones": ["030 12345678"], "emails": ["ulrich.b@example.de"] } ]
    }
    """

    static func profile() throws -> DeviceProfile { try DeviceProfile.load(Array(profileJSON.utf8), file: "test.json") }

    /// The profile of a fixture phone (Tests/Fixtures/<device>/device.json).
    static func fixtureProfile(_ device: String) -> DeviceProfile {
        let url = TestFiles.fixture(device, "device.json")
        do { return try DeviceProfile.load([UInt8](try Data(contentsOf: url)), file: "device.json") } catch {
            fatalError("\(url.path): \(error)")
        }
    }

    /// A profile file's profile and its session's flows: `dir` holds device.json and traffic.har.
    static func session(_ dir: URL) throws -> (profile: DeviceProfile, flows: [Flow]) {
        let profile = try DeviceProfile.load([UInt8](try Data(contentsOf: dir.appendingPathComponent("device.json"))), file: "device.json")
        return (profile, try HARReader.read(Data(contentsOf: dir.appendingPathComponent("traffic.har"))))
    }

    static func base64(_ s: String) -> String { Data(s.utf8).base64EncodedString() }
    static func base64url(_ s: String) -> String {
        base64(s).replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
    }
    static func percent(_ s: String) -> String { s.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? s }
}

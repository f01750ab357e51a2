import Foundation
import MouchardFlow
import MouchardTestSupport
import MouchardWire
import Testing
@testable import MouchardInspection

/// Differential check of the span-scan promise: on random requests that plant profile values in
/// random places under random encodings (`PlantedRequestGenerator`), the inspector with
/// `rawPrefilter` on finds exactly what the full walk finds (same category, type, place, encoding
/// and evidence, in the same order).
///
/// `MOUCHARD_FUZZ_ITERATIONS=N` runs N requests per seed instead of the small CI default.
@Suite struct PruningDifferentialTests {
    static let iterations = ByteMutator.iterations(default: 300, environment: ProcessInfo.processInfo.environment)

    static let seeds: [UInt64] = [0xD1FF_0001, 0xD1FF_0002, 0xD1FF_0003]

    /// The held-out profile and the two fixture phones'.
    static func profiles() throws -> [DeviceProfile] {
        [try TestSupport.profile()] + TestFiles.fixtureDevices.map(TestSupport.fixtureProfile)
    }

    @Test(arguments: seeds)
    func prunedFindingsAreThoseOfTheFullWalk(seed: UInt64) throws {
        let profiles = try Self.profiles()
        try checkPrunedFindingsAreThoseOfTheFullWalk(seed: seed, profile: profiles[Int(seed % UInt64(profiles.count))])
    }

    /// The same with the dev corpus's profiles (ios, android, and ios again).
    @Test(.requires(.dev), arguments: seeds)
    func prunedFindingsAreThoseOfTheFullWalkForTheDevProfiles(seed: UInt64) throws {
        let device = ["ios", "android", "ios"][Int(seed % 3)]
        let file = OutsideCorpus.dev.file("\(device)/device.json")
        try checkPrunedFindingsAreThoseOfTheFullWalk(seed: seed, profile: try DeviceProfile.load([UInt8](try Data(contentsOf: file)), file: "device.json"))
    }

    func checkPrunedFindingsAreThoseOfTheFullWalk(seed: UInt64, profile: DeviceProfile) throws {
        let rules = try TestSupport.rules()
        let pruned = Inspector(rules: rules, profile: profile)
        var full = pruned
        full.rawPrefilter = false
        var generator = PlantedRequestGenerator(seed: seed, profile: profile, matcher: try #require(pruned.knownValues))
        var found = 0, binaryPairs = 0
        for k in 0..<Self.iterations {
            let (request, planted) = generator.request()
            let flow = TestSupport.flow(request, id: k + 1)
            let a = pruned.inspect(flow), b = full.inspect(flow)
            found += b.count
            binaryPairs += b.filter { $0.encoding.contains("float") }.count
            if a != b {
                let missing = b.filter { !a.contains($0) }.map { "\($0.category)/\($0.type) \($0.where) \($0.encoding) \($0.evidence)" }
                let extra = a.filter { !b.contains($0) }.map { "\($0.category)/\($0.type) \($0.where) \($0.encoding) \($0.evidence)" }
                Issue.record("""
                    seed \(seed) iteration \(k): pruned findings differ (planted: \(planted))
                    missing when pruned: \(missing)
                    extra when pruned: \(extra)
                    \(PlantedRequestGenerator.describe(request))
                    """)
            }
        }
        // The generator really plants findable values.
        #expect(found >= Self.iterations / 2, "seed \(seed): only \(found) findings in \(Self.iterations) requests")
        // Float pairs in binary records (whose walk the profile's latitude prunes) are among them.
        #expect(binaryPairs > 0, "seed \(seed): no float pair of a binary record found")
    }

    /// Mismatches the random requests found, one each, with what the full walk finds there.
    static let regressions: [(name: String, request: HTTPRequest, expected: (type: String, where: String))] = {
        let idfa = "1E2D3C4B-5A69-4788-9A0B-C1D2E3F40516"
        func hex(_ bytes: [UInt8]) -> String { bytes.map { String(format: "%02x", $0) }.joined() }
        let json = [("Content-Type", "application/json")]
        return [
            // Cleartext: the password keys are a header name, a cookie name, a key inside a header
            // value, a JSON-escaped key (the scan read the body and target as written only).
            // Percent-encoded keys were found before: their escapes are spans.
            ("password key as a header name",
             TestSupport.request("GET", "http://t.example/a", headers: [("X-Password", "hunter22")]), ("password", "header:X-Password")),
            ("password key as a cookie name",
             TestSupport.request("GET", "http://t.example/a", headers: [("Cookie", "a=1; passwd=hunter22")]), ("password", "cookie:passwd")),
            ("password key in a form inside a header value",
             TestSupport.request("GET", "http://t.example/a", headers: [("X-Data", "user=bob&password=hunter22")]), ("password", "header:X-Data")),
            ("JSON-escaped password key",
             TestSupport.request("POST", "http://t.example/a", headers: json, text: #"{"x":1,"p\u0061ssword":"hunter22"}"#),
             ("password", "body:$.password")),
            // A body typed as binary is read as protobuf even when it looks like text: the hex of
            // the IDFA follows its length byte 0x48 (`H`), which glues it to a letter as text.
            ("protobuf body that looks like text",
             TestSupport.request("POST", "https://t.example/pb", headers: [("Content-Type", "application/x-protobuf")],
                                 body: [0x0A, 0x48] + Array(hex(Array(idfa.utf8)).utf8) + [0x10, 0x01]),
             ("idfa", "body:pb.1")),
            // The same in a multipart part typed as binary.
            ("multipart part typed as binary",
             TestSupport.request("POST", "https://t.example/up", headers: [("Content-Type", "multipart/form-data; boundary=XyZ")],
                                 body: Array("--XyZ\r\nContent-Disposition: form-data; name=\"d\"\r\nContent-Type: application/octet-stream\r\n\r\n".utf8)
                                     + [0x0A, 0x48] + Array(hex(Array(idfa.utf8)).utf8) + Array("\r\n--XyZ--\r\n".utf8)),
             ("idfa", "multipart:d")),
            // A phone number that is a whole path segment ends at `/`, not in the next segment.
            ("phone number as a path segment",
             TestSupport.request("GET", "https://t.example/+49-151-23456789/v1/e"), ("phone", "url")),
            // Base64 with padding is a walk candidate from 12 bytes with the `=`: 10 alphabet
            // characters here, all lower case (the name is split over two fields).
            ("short padded base64",
             TestSupport.request("POST", "https://t.example/f", headers: [("Content-Type", "application/x-www-form-urlencoded")],
                                 text: "a=1&first=Margot&last=cXVpbnRpbg==&b=2"),
             ("name", "form:last")),
            // Hex of text with a control byte (the walk's text test allows one in ten).
            ("hex text with a control byte",
             TestSupport.request("GET", "https://t.example/a", headers: [("X-D", hex([0x01] + Array("margot.quintin%40example.com".utf8)))]),
             ("email", "header:X-D")),
        ]
    }()

    @Test(arguments: 0..<regressions.count)
    func regressionFoundByRandomRequests(index: Int) throws {
        let (name, request, expected) = Self.regressions[index]
        let pruned = Inspector(rules: try TestSupport.rules(), profile: try TestSupport.profile())
        var full = pruned
        full.rawPrefilter = false
        let flow = TestSupport.flow(request)
        let a = pruned.inspect(flow), b = full.inspect(flow)
        #expect(a == b, "\(name): pruned \(a.map { "\($0.type) \($0.where) \($0.encoding)" }), full \(b.map { "\($0.type) \($0.where) \($0.encoding)" })")
        #expect(b.contains { $0.type == expected.type && $0.where == expected.where },
                "\(name): full walk finds \(b.map { "\($0.type) \($0.where) \($0.encoding)" })")
    }
}

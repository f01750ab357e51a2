import Testing
@testable import MouchardInspection

/// `FieldPlace.bit` reads a location's place from its first byte and the bytes up to its `:`; the
/// reference is the definition: the place is the text before the first `:`, one of the rule files'.
@Suite struct FieldPlaceTests {
    static func reference(_ location: String) -> UInt8 {
        let place = location.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false).first.map(String.init) ?? ""
        guard let i = RuleFileLoader.places.firstIndex(of: place) else { return 0 }
        return 1 << UInt8(i)
    }

    @Test func placesAreReadAsTheirDefinitionSays() {
        var locations = ["", ":", "url", "url:", "urlx", "ur", "u", "query:advertiserId", "query", "queryx:a", "quer:a", "header:User-Agent",
                         "cookie:sid", "form:email", "multipart:file", "body", "body:$.a.b[2]", "body:pb.1.3", "bodyy", "b:ody",
                         "ws:/chat → message[3] (client)", "grpc:/pkg.Service/Method", "sse:/feed", "hé:x", "Header:X", "body\u{301}:x"]
        for name in RuleFileLoader.places {
            locations += [name, name + ":", name + ":x:y", String(name.dropLast()), name + "s", name.uppercased()]
        }
        for location in locations {
            #expect(FieldPlace.bit(of: location) == Self.reference(location), "\(location)")
        }
        #expect(FieldPlace.bit(of: "header:User-Agent") != 0)
    }
}

import Testing
@testable import MouchardInspection

/// Large bodies (a 4 MiB form or JSON document) are inspected to the end without error, with the
/// work bounded by the extractor's field cap and the findings bounded too. (How long it takes is
/// measured by `bench/inspect.sh`, not here.)
@Suite struct LargeBodyTests {
    static let size = 4 << 20

    /// `email=…&k0=v0…&k1=…` up to `size` bytes: the owner's e-mail first, then plain pairs.
    static func formBody() -> [UInt8] {
        var out = Array("email=margot.quintin%40example.com".utf8)
        out.reserveCapacity(size + 64)
        var i = 0
        while out.count < size {
            out.append(contentsOf: Array("&k\(i)=value\(i)x".utf8))
            i += 1
        }
        return out
    }

    /// `{"user":{"email":…},"items":[{"id":…,"name":…,"score":…},…]}` up to `size` bytes.
    static func jsonBody() -> [UInt8] {
        var out = Array(#"{"user":{"email":"Margot.Quintin@Example.COM"},"items":["#.utf8)
        out.reserveCapacity(size + 64)
        var i = 0
        while out.count < size {
            if i > 0 { out.append(UInt8(ascii: ",")) }
            out.append(contentsOf: Array(#"{"id":\#(100_000 + i),"name":"item number \#(i)","score":0.\#(i % 97)}"#.utf8))
            i += 1
        }
        out.append(contentsOf: Array("]}".utf8))
        return out
    }

    @Test(arguments: ["form", "json"])
    func fourMebibyteBodyIsInspectedWithBoundedFindings(kind: String) throws {
        let body = kind == "form" ? Self.formBody() : Self.jsonBody()
        #expect(body.count >= Self.size)
        let contentType = kind == "form" ? "application/x-www-form-urlencoded" : "application/json"
        let request = TestSupport.request("POST", "https://collect.example.net/v1/batch", headers: [("Content-Type", contentType)], body: body)

        let profiled = Inspector(rules: try TestSupport.rules(), profile: try TestSupport.profile())
        let findings = profiled.inspect(TestSupport.flow(request))
        let emails = findings.filter { $0.type == "email" }
        #expect(emails.count == 1)
        #expect(emails.first?.where == (kind == "form" ? "form:email" : "body:$.user.email"))
        #expect(findings.count <= 8)

        let pattern = Inspector(rules: try TestSupport.rules())
        let patternFindings = pattern.inspect(TestSupport.flow(request))
        #expect(patternFindings.count <= FieldExtractor().maxFields)
        #expect(patternFindings.contains { $0.type == "email" })
    }
}

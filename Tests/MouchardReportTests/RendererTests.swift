import Foundation
import Testing
import MouchardInspection
import MouchardTestSupport
@testable import MouchardReport

/// Validates SARIF bytes against Tests/MouchardReportTests/Resources/sarif-2.1.0-subset.schema.json.
func sarifSchemaErrors(_ bytes: [UInt8]) throws -> [String] {
    let schemaURL = TestFiles.repositoryRoot.appendingPathComponent("Tests/MouchardReportTests/Resources/sarif-2.1.0-subset.schema.json")
    let schema = try JSONSchemaSubset(bytes: Array(try Data(contentsOf: schemaURL)))
    return schema.validate(try JSONValue.parse(bytes))
}

@Suite struct RendererTests {
    @Test func htmlIsSelfContainedWithStrictCSP() {
        let (s, _) = ReportFixtures.smallSummary()
        let html = HTMLReport.render(s)
        #expect(html.hasPrefix("<!DOCTYPE html>"))
        #expect(html.contains("<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'; img-src data:"))
        for forbidden in ["<script", "<link", " src=", "url(", "@import", "<iframe", "<img", "http-equiv=\"refresh\""] {
            #expect(!html.lowercased().contains(forbidden), "found \(forbidden)")
        }
        for section in ["verdict", "findings", "data-flows", "destinations", "timeline", "metadata-only", "methodology"] {
            #expect(html.contains("id=\"\(section)\""))
        }
        #expect(html.contains(MarkupEscaping.html(s.verdict.headline)))
        #expect(html.contains("@media print"))
        #expect(html.contains("<svg xmlns=\"http://www.w3.org/2000/svg\""))
        #expect(html.contains("6D92…E7DC"))
        #expect(!html.contains("6D92078A-8246-4BA4-AE5B-76104861E7DC</code></td></tr>"))  // profile value never shown whole
        #expect(html.contains("TLS not decrypted (pinned or ignored)"))
        #expect(html.contains("QUIC"))
        #expect(html.contains("unused.cdn.example"))
    }

    @Test func markdownHasVerdictTablesAndEscapes() {
        let (s, _) = ReportFixtures.smallSummary()
        let md = MarkdownReport.render(s)
        #expect(md.hasPrefix("# Privacy report: Flashly\n"))
        #expect(md.contains("> **Device identifiers and precise location left the device, to 2 companies\\.**"))
        #expect(md.contains("| Device IDs | 3 | 3 | 2 | 2 | 2 |"))
        #expect(md.contains("## Data flows"))
        #expect(md.contains("t\\.tracker-one\\.example"))
        #expect(!md.contains("<"))
    }

    @Test func jsonKeepsTheFindingsContractAndAddsTheSummary() throws {
        let (s, findings) = ReportFixtures.smallSummary()
        let doc = try JSONValue.parse(try FindingsJSON.render(s, findings: findings))
        #expect(doc["tool"]?["name"]?.string == "mouchard")
        #expect(doc["tool"]?["version"]?.string == "0.1.0")
        #expect(doc["inputs"]?.array == [.string("captures/example.har")])
        #expect(doc["requests"]?.int == 4)
        let first = try #require(doc["findings"]?.array?.first)
        for key in ["category", "type", "request", "destination", "where", "encoding", "evidence", "rule", "transport"] {
            #expect(first[key] != nil, "finding lacks \(key)")
        }
        #expect(first["request"]?["url"]?.string == "http://t.tracker-one.example/v1/open?idfa=6D92078A-8246-4BA4-AE5B-76104861E7DC&t=1")
        #expect(first["destination"]?["third_party"] == .bool(true))
        #expect(first["destination"]?["tracker_category"]?.string == "advertising")
        for key in ["verdict", "categories", "destinations", "data_flows", "finding_groups", "timeline", "metadata_only_hosts", "methodology"] {
            #expect(doc[key] != nil, "document lacks \(key)")
        }
        #expect(doc["verdict"]?["cleartext_findings"]?.int == 2)
        #expect(doc["destinations"]?.array?.first?["transports"]?.array == [.string("cleartext")])
        // And it reads back.
        let loaded = try FindingsJSON.load(Data(try FindingsJSON.render(s, findings: findings)))
        #expect(loaded.findings == findings)
        #expect(loaded.requests == 4)
    }

    @Test func sarifIsValidAndHasOneResultPerFinding() throws {
        let (s, findings) = ReportFixtures.smallSummary()
        let rules = [RuleMetadata(id: "device-id.idfa", name: "AdvertisingIdentifier", shortDescription: "IDFA sent",
                                  help: "Do not send the IDFA without consent.", category: .deviceID, severity: .high)]
        let bytes = try SARIFReport.render(s, findings: findings, rules: rules)
        #expect(try sarifSchemaErrors(bytes) == [])
        let log = try JSONValue.parse(bytes)
        #expect(log["version"]?.string == "2.1.0")
        let run = try #require(log["runs"]?.array?.first)
        let results = try #require(run["results"]?.array)
        #expect(results.count == findings.count)
        let driverRules = try #require(run["tool"]?["driver"]?["rules"]?.array)
        #expect(driverRules.count == 2)
        for (r, f) in zip(results, findings) {
            let index = try #require(r["ruleIndex"]?.int)
            #expect(driverRules[index]["id"]?.string == f.rule)
            #expect(r["level"]?.string == "error")
            // The location is the request URL with its query values masked: SARIF is a report, never the full identifier.
            let uri = r["locations"]?.array?.first?["physicalLocation"]?["artifactLocation"]?["uri"]?.string
            #expect(uri == MarkupEscaping.uriReference(MaskedURL.display(f.request.url)))
            #expect(uri?.contains("6D92078A-8246") == false)
        }
        let idfa = try #require(driverRules.first { $0["id"]?.string == "device-id.idfa" })
        #expect(idfa["name"]?.string == "AdvertisingIdentifier")
        #expect(idfa["help"]?["text"]?.string == "Do not send the IDFA without consent.")
        #expect(idfa["properties"]?["category"]?.string == "device-id")
        #expect(idfa["properties"]?["severity"]?.string == "high")
        let derived = try #require(driverRules.first { $0["id"]?.string == "location.coordinates" })
        #expect(derived["shortDescription"]?["text"]?.string?.contains("precise location") == true)
    }

    @Test func schemaValidatorRejectsBrokenSARIF() throws {
        let broken = """
        {"version":"2.0.0","runs":[{"tool":{"driver":{}},"results":[{"ruleIndex":-2,"level":"fatal","locations":[{"physicalLocation":{"artifactLocation":{"uri":"http://a b"}}}],"extra":1}]}]}
        """
        let errors = try sarifSchemaErrors(Array(broken.utf8))
        #expect(errors.contains { $0.contains("$.version") })
        #expect(errors.contains { $0.contains("missing required 'name'") })
        #expect(errors.contains { $0.contains("missing required 'message'") })
        #expect(errors.contains { $0.contains("ruleIndex") })
        #expect(errors.contains { $0.contains(".level") })
        #expect(errors.contains { $0.contains("not a uri-reference") })
        #expect(errors.contains { $0.contains("'extra' not allowed") })
    }

    @Test func formatsFromNamesAndExtensions() {
        #expect(ReportFormat(path: "out/report.html") == .html)
        #expect(ReportFormat(path: "r.MD") == .markdown)
        #expect(ReportFormat(path: "r.json") == .json)
        #expect(ReportFormat(path: "r.sarif") == .sarif)
        #expect(ReportFormat(path: "r.sarif.json") == .sarif)
        #expect(ReportFormat(path: "dir.d/report") == nil)
        #expect(ReportFormat(name: "markdown") == .markdown)
    }

    @Test func emptyAuditSaysNothingLeft() throws {
        let s = AuditSummary.build(flows: [ReportFixtures.flow(1, "https://api.flashly.example/x", at: 0)], findings: [],
                                   context: ReportFixtures.context)
        #expect(s.verdict.headline == "No personal data of the device or its owner was seen leaving the device.")
        for format in ReportFormat.allCases {
            let bytes = try ReportRenderer.render(format, summary: s, findings: [])
            #expect(!bytes.isEmpty)
        }
        #expect(try sarifSchemaErrors(try SARIFReport.render(s, findings: [])) == [])
    }
}

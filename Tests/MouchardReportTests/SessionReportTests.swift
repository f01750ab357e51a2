import Foundation
import MouchardFindings
import Testing
import MouchardFlow
import MouchardInspection
import MouchardTestSupport
@testable import MouchardReport

/// Reports of a test phone's session in every format, with the real inspector, rules and tracker
/// directory: what an auditor gets. On the fixture phones everywhere, on the dev corpus's when it is there.
@Suite struct SessionReportTests {
    struct Run {
        var summary: AuditSummary
        var findings: [Finding]
        var flows: [Flow]
    }

    static func audit(_ dir: URL, name: String) throws -> Run {
        let flows = try HARReader.read(try Data(contentsOf: dir.appendingPathComponent("traffic.har")))
        let profile = try DeviceProfile.load(Array(try Data(contentsOf: dir.appendingPathComponent("device.json"))), file: "device.json")
        let rulesDir = TestFiles.rules
        var sets: [RuleSet] = []
        for name in try FileManager.default.contentsOfDirectory(atPath: rulesDir.path).sorted()
        where name.hasSuffix(".json") && name != "trackers.json" {
            sets.append(try RuleFileLoader.load(Array(try Data(contentsOf: rulesDir.appendingPathComponent(name))), file: name))
        }
        let trackers = try TrackerDirectory(jsonData: try Data(contentsOf: rulesDir.appendingPathComponent("trackers.json")))
        let attribution = TrackerAttribution(trackers: trackers, firstParty: [], flows: flows)
        let inspector = Inspector(rules: try RuleFileLoader.merge(sets), profile: profile, attribution: attribution)
        let findings = inspector.inspect(flows)
        let context = AuditContext(toolVersion: "0.1.0", inputs: ["traffic.har"], source: "HAR file traffic.har",
                                   app: name, deviceName: profile.name,
                                   deviceProfile: profile.identifiers.prefix(1).map { MaskedValue(field: "identifiers.\($0.type)", value: $0.value) },
                                   rulesVersion: "Rules/ (test)")
        let summary = AuditSummary.build(flows: flows, findings: findings, context: context, attribute: attribution)
        return Run(summary: summary, findings: findings, flows: flows)
    }

    @Test(arguments: TestFiles.fixtureDevices) func fixtureSessionInEveryFormat(device: String) throws {
        let run = try Self.audit(TestFiles.fixtures.appendingPathComponent(device), name: "fixture \(device)")
        try Self.checkEveryFormat(run, requests: 35, minimumFindings: 40)
    }

    @Test(.requires(.dev), arguments: ["ios", "android"]) func devCorpusInEveryFormat(device: String) throws {
        let run = try Self.audit(OutsideCorpus.dev.file(device), name: "dev corpus (\(device))")
        try Self.checkEveryFormat(run, requests: 182, minimumFindings: 101)
    }

    static func checkEveryFormat(_ run: Run, requests: Int, minimumFindings: Int) throws {
        let s = run.summary
        #expect(s.verdict.requests == requests)
        #expect(run.findings.count >= minimumFindings)
        #expect(s.verdict.findings == run.findings.count)
        #expect(Set(s.verdict.categoriesFound).isSuperset(of: [.deviceID, .location, .email, .phoneNumber, .contacts, .name]))
        #expect(s.verdict.companies.count >= 4)
        #expect(s.verdict.cleartextFindings > 0 && s.verdict.encryptedFindings > 0)
        #expect(s.verdict.cleartextFindings + s.verdict.encryptedFindings + s.verdict.metadataFindings == run.findings.count)
        // Matrix and groups account for every finding.
        #expect(s.dataFlows.cells.flatMap { $0 }.reduce(0, +) == run.findings.count)
        #expect(s.findingGroups.reduce(0) { $0 + $1.findings } == run.findings.count)
        #expect(s.destinations.reduce(0) { $0 + $1.requests } == requests)
        #expect(s.destinations.contains { $0.company != nil && $0.thirdParty && $0.findings > 0 })

        let html = String(decoding: try ReportRenderer.render(.html, summary: s, findings: run.findings), as: UTF8.self)
        #expect(html.contains(MarkupEscaping.html(s.verdict.headline)))
        #expect(html.utf8.count < 5_000_000)
        for company in s.verdict.companies { #expect(html.contains(MarkupEscaping.html(company))) }
        let md = String(decoding: try ReportRenderer.render(.markdown, summary: s, findings: run.findings), as: UTF8.self)
        #expect(md.contains("## Data flows") && md.contains("## Destinations"))
        let json = try ReportRenderer.render(.json, summary: s, findings: run.findings)
        #expect(try FindingsJSON.load(Data(json)).findings == run.findings)
        let sarif = try ReportRenderer.render(.sarif, summary: s, findings: run.findings)
        #expect(try sarifSchemaErrors(sarif) == [])
        #expect(try JSONValue.parse(sarif)["runs"]?.array?.first?["results"]?.array?.count == run.findings.count)
    }
}

import Foundation
import MouchardFindings
import Testing
import MouchardFlow
import MouchardInspection
@testable import MouchardReport

@Suite struct AuditSummaryTests {
    @Test func verdictCountsWhatLeftAndToWhom() {
        let (s, _) = ReportFixtures.smallSummary()
        let v = s.verdict
        #expect(v.requests == 4)
        #expect(v.flows == 6)
        #expect(v.findings == 4)
        #expect(v.leakingRequests == 3)
        #expect(v.categoriesFound == [.deviceID, .location])
        #expect(v.companies == ["Tracker One", "Tracker Two"])
        #expect(v.unattributedHosts == 0)
        #expect(v.cleartextFindings == 2)
        #expect(v.encryptedFindings == 2)
        #expect(v.undecryptedHosts == 2)
        #expect(v.headline == "Device identifiers and precise location left the device, to 2 companies.")
        #expect(v.detail.hasPrefix("2 findings were sent in clear text"))
    }

    @Test func destinationsCarryTransportPartyAndBytes() throws {
        let (s, _) = ReportFixtures.smallSummary()
        let hosts = s.destinations.map(\.host)
        #expect(hosts.first == "t.tracker-one.example")
        let one = try #require(s.destinations.first { $0.host == "t.tracker-one.example" })
        #expect(one.transports == [.cleartext])
        #expect(one.requests == 2 && one.findings == 2)
        #expect(one.company == "Tracker One" && one.thirdParty)
        #expect(one.bytesReceived > 200 && one.bytesSent > 100)
        let api = try #require(s.destinations.first { $0.host == "api.flashly.example" })
        #expect(!api.thirdParty)
        #expect(api.transports == [.interceptedTLS])
        #expect(s.destinations.first { $0.host == "pinned.bank.example" }?.transports == [.tlsNotDecrypted])
        #expect(s.destinations.first { $0.host == "quic.video.example" }?.transports == [.quic])
    }

    @Test func matrixCategoriesAndGroups() {
        let (s, _) = ReportFixtures.smallSummary()
        #expect(s.dataFlows.categories == [.deviceID, .location])
        #expect(s.dataFlows.companies == ["Tracker One", "Tracker Two"])
        #expect(s.dataFlows.cells == [[2, 1], [0, 1]])
        #expect(s.categories.map(\.findings) == [3, 1])
        let first = s.findingGroups[0]
        #expect(first.host == "t.tracker-one.example" && first.findings == 2)
        #expect(first.patterns.count == 1 && first.patterns[0].occurrences == 2)
        #expect(first.patterns[0].firstSeen == ReportTime.iso(ReportFixtures.t0))
        #expect(first.patterns[0].lastSeen == ReportTime.iso(ReportFixtures.t0.addingTimeInterval(30)))
    }

    @Test func metadataOnlyHostsComeFromDNSAndSNI() {
        let (s, _) = ReportFixtures.smallSummary()
        let byHost = Dictionary(uniqueKeysWithValues: s.metadataOnlyHosts.map { ($0.host, $0) })
        #expect(byHost["pinned.bank.example"]?.seenIn == ["dns", "sni"])
        #expect(byHost["unused.cdn.example"]?.seenIn == ["dns"])
        #expect(byHost["quic.video.example"]?.seenIn == ["sni"])
        #expect(byHost["t.tracker-one.example"] == nil)
    }

    @Test func timelineAndMethodology() {
        let (s, _) = ReportFixtures.smallSummary()
        #expect(s.timeline.points.reduce(0) { $0 + $1.requests } == 4)
        #expect(s.timeline.points.reduce(0) { $0 + $1.findings } == 4)
        #expect(s.methodology.captureStart == ReportTime.iso(ReportFixtures.t0))
        #expect(s.methodology.durationSeconds == 50)
        #expect(s.methodology.deviceProfile.map(\.masked) == ["6D92…E7DC", "cami….org"])
    }

    @Test func sourceOnlyChangesTheSourceLine() throws {
        let a = ReportFixtures.smallAudit()
        var other = ReportFixtures.context
        other.source = "session ios-1 (SQLite)"
        let viaSession = a.flows.map { f -> Flow in var f = f; f.source = .proxy; return f }
        let s1 = AuditSummary.build(flows: a.flows, findings: a.findings, dns: a.dns, context: ReportFixtures.context)
        let s2 = AuditSummary.build(flows: viaSession, findings: a.findings, dns: a.dns, context: other)
        let h1 = HTMLReport.render(s1).split(separator: "\n")
        let h2 = HTMLReport.render(s2).split(separator: "\n")
        let differing = zip(h1, h2).filter { $0 != $1 }
        #expect(h1.count == h2.count)
        #expect(differing.count == 2) // masthead and methodology source line
        #expect(differing.allSatisfy { $0.0.contains("HAR file example.har") && $0.1.contains("session ios-1") })
    }

    @Test func findingsOnlyInputStillSummarizes() {
        let a = ReportFixtures.smallAudit()
        let s = AuditSummary.build(flows: [], findings: a.findings, context: ReportFixtures.context)
        #expect(s.verdict.requests == 3)
        #expect(s.destinations.count == 2)
        #expect(s.timeline.points.reduce(0) { $0 + $1.findings } == 4)
    }

    @Test func capsKeepListsBoundedAndCountTheRest() {
        var flows: [Flow] = []
        var findings: [Finding] = []
        for i in 0..<300 {
            let f = ReportFixtures.flow(i + 1, "http://h\(i).example/p?x=\(i)", at: Double(i))
            flows.append(f)
            findings.append(ReportFixtures.finding(f, .deviceID, "type\(i % 40)", where: "query:k\(i)", tracker: "Co\(i % 30)"))
        }
        let limits = AuditSummaryLimits(destinations: 50, metadataOnlyHosts: 10, patternsPerGroup: 5, patternsTotal: 100,
                                        matrixCompanies: 8, timelineBuckets: 30)
        let s = AuditSummary.build(flows: flows, findings: findings, context: ReportFixtures.context, limits: limits)
        #expect(s.destinations.count == 50 && s.omitted.destinations == 250)
        #expect(s.findingGroups.flatMap(\.patterns).count == 100)
        #expect(s.omitted.findingPatterns == 200)
        #expect(s.dataFlows.companies.count == 8)
        #expect(s.dataFlows.cells[0].reduce(0, +) == 300)
        #expect(s.timeline.points.count == 30)
    }
}

import Foundation
import MouchardFindings
import MouchardFlow
import MouchardStore
import MouchardTestSupport
import MouchardWire
import Synchronization
import Testing

func sampleFinding(_ flow: Int?, _ type: String, confidence: Double?) -> Finding {
    Finding(category: .deviceID, type: type, request: FindingRequest(method: "GET", url: "https://a.example/?id=x"),
            destination: FindingDestination(host: "a.example", tracker: "Ads Inc", trackerCategory: "advertising", thirdParty: true),
            where: "query:id", encoding: "base64+url", evidence: "9F55…8C22", rule: "device-id.idfa", transport: "https",
            flow: flow, confidence: confidence, severity: .high, description: "IDFA sent to Ads Inc.",
            time: "2026-10-05T07:41:40.215Z", inner: "$.ifa")
}

/// The session-store contract: the same cases against every `SessionStoring` (SQLite and PostgreSQL).
@Suite struct StoreContractTests {
    @Test(arguments: StoreKind.available)
    func flowsRoundTripExactly(_ kind: StoreKind) throws {
        let (store, cleanUp) = try kind.make()
        defer { cleanUp() }
        var expected: [Flow] = []
        for (k, var f) in StoreSamples.flows().enumerated() {
            let id = try store.append(f)
            #expect(id == k + 1)
            f.id = id
            expected.append(f)
        }
        #expect(try store.flows() == expected)
        #expect(try store.flowCount() == 4)
        #expect(try store.flow(id: 3) == expected[2])
        #expect(try store.flow(id: 99) == nil)
        var visited: [Int] = []
        try store.forEachFlow(pageSize: 3) { visited.append($0.id) }
        #expect(visited == [1, 2, 3, 4])

        // Explicit ids are kept; a taken id is refused with a clear error.
        var explicit = expected[0]
        explicit.id = 10
        #expect(try store.append(explicit) == 10)
        #expect(try store.append(StoreSamples.flows()[1]) == 11)
        do {
            try store.append(explicit)
            Issue.record("a taken flow id was stored again")
        } catch {
            #expect(error.message == "flow id 10 is already in the session")
        }
        // A batch is one transaction: a failing flow leaves none of the batch.
        #expect(throws: StoreError.self) { try store.append(flows: [StoreSamples.flows()[0], explicit]) }
        #expect(try store.flowCount() == 6)
        #expect(try store.append(flows: StoreSamples.flows()) == [12, 13, 14, 15])
        #expect(try store.lastFlowID() == 15)

        let summaries = try store.flowSummaries()
        #expect(summaries.map(\.id) == [1, 2, 3, 4, 10, 11, 12, 13, 14, 15])
        #expect(summaries[0].requestBodySize == 256 && summaries[0].responseBodySize == 4 && summaries[0].status == 200)
        #expect(summaries[0].url == "https://api.example.com/v1/e?a=%20b" && summaries[0].method == "POST")
        #expect(summaries[0].started == StoreSamples.started)
        #expect(summaries[2].method == nil && summaries[2].serverName == "tracker.example" && summaries[2].host == "tracker.example")
        #expect(summaries[1].error == "connection reset after 12 bytes" && summaries[1].status == nil)
    }

    @Test(arguments: StoreKind.available)
    func findingsDNSAndMetadataRoundTrip(_ kind: StoreKind) throws {
        let (store, cleanUp) = try kind.make()
        defer { cleanUp() }
        let findings = StoreSamples.findings()
        let dns = StoreSamples.dns()
        try store.append(flows: StoreSamples.flows())
        try store.append(findings: Array(findings.prefix(2)))
        try store.append(findings: Array(findings.suffix(1)))
        try store.append(dns: dns)
        try store.setMetadata("proxy", for: SessionStore.MetadataKey.source)
        try store.setMetadata("iphone.json", for: SessionStore.MetadataKey.deviceProfile)
        try store.setMetadata("Lumo", for: SessionStore.MetadataKey.app)
        try store.setMetadata("x", for: "temporary")
        try store.setMetadata(nil, for: "temporary")
        try store.setMetadata("{\"a\":[1,\"é\"]}", for: "json-ish")

        #expect(try store.findings() == findings)
        #expect(try store.findings(flow: 2) == [findings[2]])
        #expect(try store.findings(flow: 3).isEmpty)
        #expect(try store.dnsObservations() == dns)
        let meta = try store.allMetadata()
        #expect(meta["source"] == "proxy" && meta["device_profile"] == "iphone.json" && meta["temporary"] == nil)
        #expect(meta["app"] == "Lumo" && meta["json-ish"] == "{\"a\":[1,\"é\"]}")
        #expect(try store.metadata("source") == "proxy")
        #expect(try store.metadata("nothing") == nil)
        #expect(try store.schemaVersion() >= 1)
    }

    @Test(arguments: StoreKind.available)
    func appendsFromManyThreads(_ kind: StoreKind) throws {
        let (store, cleanUp) = try kind.make()
        defer { cleanUp() }
        let sample = StoreSamples.flows()[0]
        let failures = Mutex<[String]>([])
        DispatchQueue.concurrentPerform(iterations: 4) { worker in
            for k in 0..<50 {
                var f = sample
                f.extras = ["worker": "\(worker)-\(k)"]
                do {
                    try store.append(f)
                    if k % 10 == 0 { try store.append(dns: [DNSObservation(time: Date(), name: "w\(worker).example")]) }
                } catch {
                    failures.withLock { $0.append("\(error)") }
                }
            }
        }
        #expect(failures.withLock { $0 } == [])
        let flows = try store.flows()
        #expect(flows.map(\.id) == Array(1...200))
        #expect(Set(flows.compactMap { $0.extras["worker"] }).count == 200)
        #expect(try store.dnsObservations().count == 20)
    }

    @Test(arguments: StoreKind.available)
    func hostileValuesComeBackExactly(_ kind: StoreKind) throws {
        let (store, cleanUp) = try kind.make()
        defer { cleanUp() }
        // Bytes a hostile peer chooses: every byte value in bodies and header values, long and
        // non-ASCII text, quotes and backslashes where SQL and JSON escaping could go wrong.
        let text = "'; DROP TABLE flows; -- \\ \" \u{7F} é 𝄞 \u{202E}"
        var headers = HTTPHeaders([HTTPField(name: "X-Bytes", valueBytes: (0...255).map { UInt8($0) })])
        headers.add(name: "X-Text", value: text)
        let flow = Flow(id: 0, source: .proxy, transport: .https,
                        request: HTTPRequest(head: HTTPRequestHead(method: "POST", target: "/" + String(repeating: "é", count: 3000),
                                                                   headers: headers),
                                             scheme: "https", body: (0..<70_000).map { UInt8(truncatingIfNeeded: $0 &* 31) }),
                        timings: FlowTimings(started: Date(timeIntervalSinceReferenceDate: -1.5)),
                        tls: TLSFacts(serverName: text, alpn: [text]), error: text, extras: [text: text])
        let id = try store.append(flow)
        var expected = flow
        expected.id = id
        #expect(try store.flow(id: id) == expected)
        var finding = sampleFinding(id, text, confidence: 0.5)
        finding.evidence = text
        try store.append(findings: [finding])
        #expect(try store.findings() == [finding])
        try store.setMetadata(text, for: text)
        #expect(try store.metadata(text) == text)
    }
}

/// Says when the PostgreSQL half of the contract cases is skipped, and checks the server starts.
@Suite(.requiresPostgres) struct PostgresContractTests {
    @Test func theTestServerStartsAndTheContractRunsAgainstIt() throws {
        #expect(StoreKind.available.contains(.postgres))
        _ = try FleetDatabase.shared()
    }
}

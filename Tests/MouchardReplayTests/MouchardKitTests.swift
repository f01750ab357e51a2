import Foundation
import MouchardKit
import Testing

/// The kit as a test suite uses it, and the text a failed expectation shows.
@Suite(.serialized) struct MouchardKitTests {
    static let repo = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    static let har = repo.appendingPathComponent("captures/example/traffic.har").path
    static let device = repo.appendingPathComponent("captures/example/device.json").path

    @Test func auditsARecordedHARByCategoryAndParty() throws {
        let flows = try Flows.load(Self.har)
        #expect(flows.count == 16)
        #expect(flows.filter(host: "lumotorch.example").count == 10)
        #expect(flows.filter(host: "lumotorch.example").allSatisfy { $0.host.hasSuffix(".lumotorch.example") })
        #expect(flows.filter(host: "lumotorch.example", method: "post").allSatisfy { $0.request?.method == "POST" })
        #expect(flows.filter(path: "/v2/").allSatisfy { $0.request?.path.hasPrefix("/v2/") == true })

        let audit = try Audit(flows, profile: Rules.profile(Self.device))
        let toThirdParties = audit.findings(.deviceID, to: .thirdParty)
        #expect(!toThirdParties.isEmpty)
        #expect(toThirdParties.allSatisfy { $0.finding.destination.thirdParty && $0.finding.category == .deviceID })
        #expect(!audit.findings(.deviceID, to: .company("Google")).isEmpty)
        #expect(audit.findings(to: .firstParty).allSatisfy { !$0.finding.destination.thirdParty })
        #expect(audit.byCompany["AppsFlyer"]?.isEmpty == false)
        #expect(audit.byDestination.keys.contains("googleads.g.doubleclick.net"))
        #expect(audit.byCategory.keys.allSatisfy { $0.isBuiltIn })
    }

    /// What `#expect(audit.findings(.deviceID, to: .thirdParty).isEmpty)` prints when the app leaks:
    /// the offending requests and, for each finding, its evidence chain.
    @Test func aFailureNamesTheRequestAndItsEvidence() throws {
        let flows = try Flows.load(Self.har).filter(host: "doubleclick.net")
        let audit = try Audit(flows, profile: Rules.profile(Self.device))
        let leaks = audit.findings(.deviceID, to: .thirdParty)
        let text = String(describing: leaks)
        #expect(text.hasPrefix("\(leaks.count) finding"))
        #expect(text.contains("GET https://googleads.g.doubleclick.net/mads/gma?"))
        #expect(text.contains("device-id idfa → googleads.g.doubleclick.net (Google) query:rdid"))
        #expect(text.contains("value 8C1F…0B13"))
        #expect(text.contains("rule profile.idfa"))
        #expect(!text.contains("8C1F6A2E-5B3D-4E7F-A9C1-2D4E6F8A0B13"))  // never the whole identifier
        #expect(String(describing: audit.findings(.contacts, to: .company("Nobody"))) == "no findings")
    }

    @Test func recordingProxyStopsIntoAnAudit() throws {
        let origin = try RawOrigin()
        defer { origin.stop() }
        let proxy = try RecordingProxy(upstreamCA: origin.originCA)
        let env = proxy.environment
        #expect(env["https_proxy"] == proxy.url && env["http_proxy"] == proxy.url)
        let idfa = "8C1F6A2E-5B3D-4E7F-A9C1-2D4E6F8A0B13"
        // A subprocess that only knows the environment (curl reads https_proxy and CURL_CA_BUNDLE).
        let child = Process()
        child.executableURL = URL(fileURLWithPath: try RawOrigin.which("curl"))
        child.arguments = ["-sS", "--max-time", "20", "-o", "/dev/null", "https://localhost:\(origin.httpsPort)/ads?adid=\(idfa)"]
        child.environment = env
        try child.run()
        child.waitUntilExit()
        #expect(child.terminationStatus == 0)
        let audit = try proxy.stop(profile: Rules.profile(Self.device))
        #expect(audit.flows.count == 1)
        #expect(audit.flows.first?.transport == .https)
        let found = audit.findings(.deviceID)
        #expect(found.signatures.contains("device-id idfa → localhost query:adid"))
    }

    @Test func mockServerAndReplayerAreUsableFromTests() throws {
        let flows = try Flows.load(Self.har).filter(host: "api.lumotorch.example", method: "GET")
        let home = NSTemporaryDirectory() + "mouchard-kit-mock-\(UUID().uuidString)"
        let sink = CollectingFlowSink()
        let mock = try MockServer(flows: Array(flows), options: MockServer.Options(authorityDirectory: home, threads: 1), sink: sink)
        let address = try mock.start()
        defer { mock.stop() }
        // The client under test is pointed at the mock; the replayer stands in for it here.
        let replayer = Replayer(options: Replayer.Options(routing: ReplayRouting(to: .init(tls: false, host: "127.0.0.1", port: address.port)),
                                                          compare: true))
        let results = try replayer.run(Array(flows))
        #expect(results.count == flows.count)
        #expect(results.allSatisfy { !$0.failed && $0.differences.isEmpty })
        mock.stop()
        // What the app sent to the mock is audited like any traffic.
        let sent = try Audit(Flows(sink.flows), profile: Rules.profile(Self.device))
        #expect(!sent.findings(.deviceID).isEmpty)
        #expect(sink.flows.allSatisfy { $0.extras["_replay"]?.hasPrefix("\"served flow") == true })
    }
}

import Foundation
import Testing
import LumoClient
import MouchardKit

/// The three ways an app team keeps an audit's result fixed in its tests.
@Suite(.serialized) struct PrivacyTests {
    /// Mouchard's bundled example: a recorded session of the app and the test phone's profile.
    static let example = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("captures/example")
    static var phone: DeviceProfile { get throws { try Rules.profile(example.appendingPathComponent("device.json").path) } }

    /// 1. Audit a recorded HAR: the known leaks of version 2.4.0 stay known, nothing more.
    @Test func recordedSessionLeaksOnlyWhatIsKnown() throws {
        let audit = try Audit(Flows.load(Self.example.appendingPathComponent("traffic.har").path), profile: Self.phone)
        // The app's own back end receives no contacts...
        #expect(audit.findings(.contacts, to: .host("ads.lumotorch.example")).isEmpty)
        // ...and the ad networks that get the advertising ID are exactly these.
        let companies = Set(audit.findings(.deviceID, to: .thirdParty).compactMap(\.finding.destination.tracker))
        #expect(companies == ["Amplitude", "AppsFlyer", "Google", "Meta"])
    }

    /// 2. Run the client against the mock (answers recorded in the HAR) and assert what it sent.
    @Test func clientSendsItsDeviceIDToItsOwnBackEndOnly() async throws {
        let recorded = try Flows.load(Self.example.appendingPathComponent("traffic.har").path)
            .filter(host: "api.lumotorch.example", method: "GET")
        let sink = CollectingFlowSink()
        let mock = try MockServer(flows: Array(recorded), options: MockServer.Options(
            authorityDirectory: NSTemporaryDirectory() + "lumo-mock-\(UUID().uuidString)", threads: 1), sink: sink)
        let address = try mock.start()
        defer { mock.stop() }
        let client = LumoClient(baseURL: URL(string: "http://\(address)")!, deviceID: "5E9A7C31-2B4D-4F60-8A1E-C3D5F7092B46")
        let (config, _) = try await client.start()
        #expect(String(decoding: config, as: UTF8.self).contains("\"modes\""))  // the recorded body
        mock.stop()
        // The mock stands for the app's own back end: its address is first party.
        let sent = try Audit(Flows(sink.flows), profile: Self.phone, firstParty: ["lumotorch.example", "127.0.0.1"])
        #expect(sent.findings(.deviceID, to: .thirdParty).isEmpty)
        #expect(sent.findings(.deviceID).signatures.contains { $0.hasPrefix("device-id idfv ") })
    }

    /// 3. Proxy a client (here curl, as a subprocess would be) and assert no third party got the advertising ID.
    @Test func noThirdPartyGetsTheAdvertisingID() throws {
        let proxy = try RecordingProxy()
        let origin = try MockServer(flows: Array(try Flows.load(Self.example.appendingPathComponent("traffic.har").path)
                                        .filter(host: "api.lumotorch.example", method: "GET")),
                                    options: MockServer.Options(authorityDirectory: NSTemporaryDirectory() + "lumo-origin-\(UUID().uuidString)",
                                                                threads: 1))
        let address = try origin.start()
        defer { origin.stop() }
        let curl = Process()
        curl.executableURL = URL(fileURLWithPath: "/usr/bin/curl")
        curl.arguments = ["-sS", "-o", "/dev/null", "--max-time", "20",
                          "http://\(address)/v2/config?app=com.lumo.torch&v=2.4.0"]
        curl.environment = proxy.environment
        try curl.run()
        curl.waitUntilExit()
        #expect(curl.terminationStatus == 0)
        let audit = try proxy.stop(profile: Self.phone)
        #expect(audit.flows.count == 1)
        #expect(audit.findings(.deviceID, to: .thirdParty).isEmpty)
    }
}

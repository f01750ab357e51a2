import Foundation
import MouchardTestSupport
import Testing

@testable import MouchardCLI

/// What recording through the proxy needs: the tools of the decryption tests and the `mouchard`
/// executable (the proxy runs as its own process).
enum ProxiedRecording {
    /// The `mouchard` executable built beside this test bundle.
    static let mouchard: String? = {
        guard let exe = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe") else { return nil }
        var dir = URL(fileURLWithPath: exe).deletingLastPathComponent()
        for _ in 0..<4 {
            let candidate = dir.appendingPathComponent("mouchard").path
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
            dir = dir.deletingLastPathComponent()
        }
        return nil
    }()

    static let unavailableReason: String? = {
        if let missing = DecryptionTools.unavailableReason { return missing }
        return mouchard == nil ? "needs the mouchard executable built beside the tests (swift build)" : nil
    }()
}

/// The same requests (planted values of the example device in a query, a JSON body, a header,
/// base64, a form and a gzip body; TLS 1.3 and 1.2, AES-GCM and ChaCha20) made directly and
/// recorded by tcpdump with the client's key log, and made through `mouchard proxy`
/// (scripts/record-direct-and-proxied.sh): the decrypted capture and the proxy's session give the
/// same findings, transport facts aside (ports, timings, TLS versions, where the flow came from);
/// over HTTP/1.1, and over HTTP/2 on both sides.
@Suite(.serialized, .enabled(if: ProxiedRecording.unavailableReason == nil, "\(ProxiedRecording.unavailableReason ?? "")"))
struct DecryptedAndProxiedFindingsTests {
    static let device = TestFiles.repositoryRoot.appendingPathComponent("captures/example/device.json").path
    static var mouchard: String? { ProxiedRecording.mouchard }

    /// A finding, without what depends on the way the request travelled.
    static func findingKeys(_ json: String) -> [String] {
        let doc = (try? JSONSerialization.jsonObject(with: Data(json.utf8))) as? [String: Any] ?? [:]
        return (doc["findings"] as? [[String: Any]] ?? []).map { f in
            let r = f["request"] as? [String: Any] ?? [:]
            return [f["category"], f["type"], r["method"], r["url"], f["where"], f["encoding"], f["evidence"], f["transport"]]
                .map { "\($0 ?? "")" }.joined(separator: "|")
        }.sorted()
    }

    /// The HTTP versions of a session's flows, from its HAR export.
    static func httpVersions(_ session: String) -> [String] {
        let har = run(["export", session, "--har", "-", "--quiet"])
        let doc = (try? JSONSerialization.jsonObject(with: Data(har.out.utf8))) as? [String: Any] ?? [:]
        let entries = (doc["log"] as? [String: Any])?["entries"] as? [[String: Any]] ?? []
        return entries.map { ($0["request"] as? [String: Any])?["httpVersion"] as? String ?? "" }
    }

    @Test(.timeLimit(.minutes(3)))
    func decryptedCaptureFindsWhatTheProxyFinds() throws {
        try compare(recordingOptions: [], httpVersion: "HTTP/1.1")
    }

    /// The same over HTTP/2 on both sides (an h2 origin, curl --http2): the capture's decrypted
    /// streams and the proxy's streams give the same findings.
    @Test(.timeLimit(.minutes(3)), .requires(.nginx))
    func decryptedHTTP2CaptureFindsWhatTheProxyFinds() throws {
        try compare(recordingOptions: ["--h2"], httpVersion: "HTTP/2.0")
    }

    func compare(recordingOptions: [String], httpVersion: String) throws {
        let dir = try TestFiles.temporaryDirectory("direct-and-proxied")
        defer { try? FileManager.default.removeItem(at: dir) }
        let script = TestFiles.repositoryRoot.appendingPathComponent("scripts/record-direct-and-proxied.sh").path
        let recorded = DecryptionCommandsTests.shell("/bin/bash", [script, dir.path, try #require(Self.mouchard)] + recordingOptions)
        try #require(recorded != nil, "recording failed")
        let requests = try String(contentsOf: dir.appendingPathComponent("requests.txt"), encoding: .utf8)
            .split(separator: "\n").count
        let capture = dir.appendingPathComponent("capture.pcap").path
        let keys = dir.appendingPathComponent("keys.log").path
        let proxySession = dir.appendingPathComponent("proxy-session").path

        let direct = run(["scan", capture, "--keylog", keys, "--device", Self.device, "--rules", DecryptionCommandsTests.rules, "--format", "json"])
        #expect(direct.status == 0, "\(direct.err)")
        #expect(direct.err.contains("TLS: \(requests) connections decrypted"), "\(direct.err)")
        let proxied = run(["scan", proxySession, "--device", Self.device, "--rules", DecryptionCommandsTests.rules, "--format", "json"])
        #expect(proxied.status == 0, "\(proxied.err)")

        // Both ways spoke the version asked for.
        let imported = dir.appendingPathComponent("capture-session").path
        #expect(run(["import", capture, "--keylog", keys, "--session", imported, "--quiet"]).status == 0)
        #expect(Self.httpVersions(imported) == Array(repeating: httpVersion, count: requests))
        #expect(Self.httpVersions(proxySession) == Array(repeating: httpVersion, count: requests))

        let fromCapture = Self.findingKeys(direct.out)
        let fromProxy = Self.findingKeys(proxied.out)
        #expect(fromCapture == fromProxy, "only in the capture: \(Set(fromCapture).subtracting(fromProxy))\nonly through the proxy: \(Set(fromProxy).subtracting(fromCapture))")
        // Every planted place was found, each in its own request.
        let urls = Set(fromCapture.map { $0.split(separator: "|")[3] })
        #expect(urls.count == requests, "\(urls)")
        let categories = Set(fromCapture.map { String($0.split(separator: "|")[0]) })
        #expect(categories == ["device-id", "email", "phone-number", "location"], "\(fromCapture)")
        let encodings = Set(fromCapture.map { String($0.split(separator: "|")[5]) })
        #expect(encodings.isSuperset(of: ["plain", "base64", "gzip"]), "\(fromCapture)")
    }
}

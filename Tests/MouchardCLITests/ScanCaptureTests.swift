import Foundation
import MouchardTestSupport
import Testing
@testable import MouchardCLI

/// `scan` on pcap/pcapng captures: same findings and JSON shape as the HAR's cleartext part, plus
/// destinations; a cut file gives one error line with the byte offset after the report.
@Suite struct ScanCaptureTests {
    static let rules = TestFiles.rules.path

    static func findings(_ json: String) throws -> (keys: [String], document: [String: Any]) {
        let doc = try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any] ?? [:]
        let list = doc["findings"] as? [[String: Any]] ?? []
        let keys = list.map { f -> String in
            let r = f["request"] as? [String: Any] ?? [:]
            return [f["category"], f["type"], r["method"], r["url"], f["where"], f["encoding"], f["evidence"], f["rule"], f["transport"]]
                .map { "\($0 ?? "")" }.joined(separator: "|")
        }
        return (keys.sorted(), doc)
    }

    @Test(arguments: ["traffic.pcap", "traffic.pcapng", "traffic-sll2.pcap"])
    func captureFindingsEqualTheHARsCleartextFindings(_ file: String) throws {
        try Self.checkCaptureFindingsEqualTheHARsCleartextFindings(TestFiles.fixtures.appendingPathComponent("android"), file)
    }

    @Test(.requires(.dev), arguments: ["traffic.pcap", "traffic.pcapng"])
    func devCorpusCaptureFindingsEqualTheHARsCleartextFindings(_ file: String) throws {
        try Self.checkCaptureFindingsEqualTheHARsCleartextFindings(OutsideCorpus.dev.file("android"), file)
    }

    /// `dir` holds device.json, traffic.har and the capture `file` of the same session.
    static func checkCaptureFindingsEqualTheHARsCleartextFindings(_ dir: URL, _ file: String) throws {
        let device = dir.appendingPathComponent("device.json").path
        let har = run(["scan", dir.appendingPathComponent("traffic.har").path, "--device", device,
                       "--rules", Self.rules, "--format", "json"])
        let pcap = run(["scan", dir.appendingPathComponent(file).path, "--device", device,
                        "--rules", Self.rules, "--format", "json"])
        #expect(har.status == 0 && pcap.status == 0)
        let h = try Self.findings(har.out), p = try Self.findings(pcap.out)
        let cleartext = h.keys.filter { $0.contains("|http://") }
        #expect(!p.keys.isEmpty)
        #expect(p.keys == cleartext)
        // Same top-level fields, plus destinations.
        #expect(Set(p.document.keys) == Set(h.document.keys).union(["destinations"]))
        let destinations = p.document["destinations"] as? [[String: Any]] ?? []
        // The shared summary's destinations: TLS the capture could not read is `tls-not-decrypted`.
        #expect(destinations.contains { ($0["transports"] as? [String])?.contains("tls-not-decrypted") == true })
        #expect(destinations.contains { !(($0["addresses"] as? [String]) ?? []).isEmpty })
    }

    @Test func cutCaptureReportsWhatCameBeforeAndTheOffset() throws {
        let dir = NSTemporaryDirectory() + "mouchard-scan-cut-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let whole = try Data(contentsOf: TestFiles.fixture("ios", "traffic.pcap"))
        let cutPath = dir + "/cut.bin"  // no extension: detected by content
        try whole.prefix(whole.count / 2).write(to: URL(fileURLWithPath: cutPath))
        let r = run(["scan", cutPath, "--rules", Self.rules])
        #expect(r.status == 1)
        #expect(r.out.hasPrefix("mouchard scan: "))
        #expect(!r.out.hasPrefix("mouchard scan: 0 requests"))
        let lines = r.err.split(separator: "\n")
        #expect(lines.count == 1)
        #expect(r.err.hasPrefix("mouchard: error: \(cutPath): file cut short at byte "))
    }
}

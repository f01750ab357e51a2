import Foundation
import MouchardTestSupport
import Testing
@testable import MouchardCLI

/// `mouchard scan`: formats, exit codes, one-line errors for bad profiles and rules.
@Suite struct ScanCommandTests {
    static let rules = TestFiles.rules.path
    static let har = TestFiles.fixture("android", "traffic.har").path
    static let device = TestFiles.fixture("android", "device.json").path
    /// Requests in the fixture HAR.
    static let requests = 35

    func temp(_ name: String, _ text: String) throws -> String {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("mouchard-scan-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        let url = dir.appendingPathComponent(name)
        try text.write(to: url, atomically: true, encoding: .utf8)
        return url.path
    }

    @Test func jsonDocumentFollowsTheSpec() throws {
        try Self.checkJSONDocument(har: Self.har, device: Self.device, requests: Self.requests, minimumFindings: 40)
    }

    @Test(.requires(.dev)) func devCorpusJSONDocumentFollowsTheSpec() throws {
        try Self.checkJSONDocument(har: OutsideCorpus.dev.file("android/traffic.har").path,
                                   device: OutsideCorpus.dev.file("android/device.json").path, requests: 182, minimumFindings: 101)
    }

    static func checkJSONDocument(har: String, device: String, requests: Int, minimumFindings: Int) throws {
        let r = run(["scan", har, "--device", device, "--rules", Self.rules, "--format", "json"])
        #expect(r.status == 0, "\(r.err)")
        let doc = try #require(try JSONSerialization.jsonObject(with: Data(r.out.utf8)) as? [String: Any])
        #expect((doc["tool"] as? [String: Any])?["name"] as? String == "mouchard")
        #expect(doc["requests"] as? Int == requests)
        let findings = try #require(doc["findings"] as? [[String: Any]])
        #expect(findings.count >= minimumFindings)
        for f in findings {
            for key in ["category", "type", "request", "destination", "where", "encoding", "evidence", "rule", "transport"] {
                #expect(f[key] != nil, "missing \(key)")
            }
        }
        // Evidence is masked: no evidence holds a full identifier (the request URL is kept as sent).
        for f in findings {
            let evidence = f["evidence"] as? String ?? ""
            #expect(evidence.contains("…") || evidence.allSatisfy { $0 == "•" }, "\(evidence)")
        }
    }

    @Test func textAndJSONLinesAndFailOn() {
        let text = run(["scan", Self.har, "--rules", Self.rules])
        #expect(text.status == 0)
        #expect(text.out.contains("per destination"))
        let lines = run(["scan", Self.har, "--device", Self.device, "--rules", Self.rules, "--format", "jsonl"])
        #expect(lines.out.split(separator: "\n").allSatisfy { $0.hasPrefix("{") })
        #expect(run(["scan", Self.har, "--device", Self.device, "--rules", Self.rules, "--fail-on", "location,email"]).status == 3)
        #expect(run(["scan", Self.har, "--device", Self.device, "--rules", Self.rules, "--fail-on", "bogus"]).status == 64)
    }

    @Test func invalidProfileIsOneLineExit1() throws {
        let path = try temp("device.json", "{\n  \"owner\": {\"mail\": \"a@b.c\"}\n}\n")
        let r = run(["scan", Self.har, "--device", path, "--rules", Self.rules])
        #expect(r.status == 1)
        #expect(r.err.split(separator: "\n").count == 1)
        #expect(r.err.contains("device.json:2:13: unknown field 'mail'"))
    }

    @Test func invalidRuleFileIsOneLineExit1() throws {
        let path = try temp("device-id.json", "{\"rules\": [{\"id\": \"x\", \"type\": \"t\", \"category\": \"c\", \"match\": {\"shape\": \"uuid\"}, \"keys\": [{\"name\": \"a\"}]}]}")
        let dir = URL(fileURLWithPath: path).deletingLastPathComponent().path
        let r = run(["scan", Self.har, "--rules", dir])
        #expect(r.status == 1)
        #expect(r.err.contains("device-id.json:1:"))
        #expect(r.err.contains("missing 'weight'"))
    }

    @Test func scansASessionByName() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("mouchard-scan-session-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let c = Captured()
        var io = c.io
        io.currentDirectory = dir.path
        #expect(Mouchard.main(["import", Self.har, "--session", "dev"], io: io) == 0)
        let out = Captured()
        var io2 = out.io
        io2.currentDirectory = dir.path
        #expect(Mouchard.main(["scan", "dev", "--device", Self.device, "--rules", Self.rules, "--fail-on", "device-id"], io: io2) == 3)
        #expect(out.out.contains("\(Self.requests) requests inspected"))
    }
}

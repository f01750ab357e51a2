import Foundation
import MouchardAudit
import MouchardFlow
import MouchardInspection
import MouchardReport
import MouchardSniffer
import MouchardTestSupport
import Testing
@testable import MouchardCLI

/// `scan --format json|jsonl` streams findings as they are produced and builds the summary
/// incrementally; its content must equal the non-streamed audit (all flows loaded, inspected
/// together, summary built at once) on the fixtures' HAR and captures, and the dev corpus's when it is there.
@Suite struct StreamedScanTests {
    static let rules = ScanCaptureTests.rules
    static let files = ["android/traffic.har", "android/traffic.pcap", "ios/traffic.pcapng", "ios/traffic-sll.pcap"]

    /// The non-streamed document: flows loaded whole, `Inspector.inspect([Flow])`, `AuditSummary.build`.
    static func reference(_ path: String, device: String) throws -> [String: Any] {
        var parsed = ParsedArguments()
        parsed.values = ["--device": [device], "--rules": [rules]]
        parsed.positionals = [path]
        let io = CommandIO(out: { _ in }, err: { _ in }, currentDirectory: FileManager.default.currentDirectoryPath)
        let setup = try AuditSetup.load(parsed, io: io)
        let flows: [Flow]
        var dns: [DNSObservation] = []
        let source: String
        if path.hasSuffix(".har") {
            flows = try HARReader.read(Data(contentsOf: URL(fileURLWithPath: path)))
            source = "HAR file traffic.har"
        } else {
            let x = try CaptureFileExtractor.extract(path: path, limits: AuditInputs.captureLimits)
            flows = x.flows
            dns = x.dns
            source = "\(x.format ?? "") file \((path as NSString).lastPathComponent)"
        }
        let attribution = setup.attribution(for: flows)
        let findings = Inspector(rules: setup.rules, profile: setup.profile, attribution: attribution).inspect(flows)
        var inputs = AuditInputs([path])
        inputs.sources = [source]
        let summary = AuditSummary.build(flows: flows, findings: findings, dns: dns, context: setup.context(inputs: inputs),
                                         attribute: attribution)
        let bytes = try FindingsJSON.render(summary, findings: findings)
        return try #require(try JSONSerialization.jsonObject(with: Data(bytes)) as? [String: Any])
    }

    /// Each finding as canonical JSON text, sorted: the multiset of findings.
    static func multiset(_ list: [Any]) throws -> [String] {
        try list.map { String(decoding: try JSONSerialization.data(withJSONObject: $0, options: [.sortedKeys]), as: UTF8.self) }.sorted()
    }

    static func canonical(_ object: [String: Any]) throws -> String {
        String(decoding: try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys]), as: UTF8.self)
    }

    @Test(arguments: files)
    func streamedOutputEqualsTheWholeAudit(_ file: String) throws {
        try Self.checkStreamedOutputEqualsTheWholeAudit(TestFiles.fixtures, file)
    }

    @Test(.requires(.dev), arguments: files)
    func devCorpusStreamedOutputEqualsTheWholeAudit(_ file: String) throws {
        try Self.checkStreamedOutputEqualsTheWholeAudit(OutsideCorpus.dev.url, file)
    }

    static func checkStreamedOutputEqualsTheWholeAudit(_ root: URL, _ file: String) throws {
        let path = root.appendingPathComponent(file).path
        let device = root.appendingPathComponent(file.hasPrefix("ios") ? "ios/device.json" : "android/device.json").path
        let expected = try Self.reference(path, device: device)
        let json = run(["scan", path, "--device", device, "--rules", Self.rules, "--format", "json"])
        let jsonl = run(["scan", path, "--device", device, "--rules", Self.rules, "--format", "jsonl"])
        #expect(json.status == 0 && jsonl.status == 0, "\(json.err) \(jsonl.err)")
        var doc = try #require(try JSONSerialization.jsonObject(with: Data(json.out.utf8)) as? [String: Any])
        let expectedFindings = try Self.multiset(expected["findings"] as? [Any] ?? [])
        #expect(!expectedFindings.isEmpty)
        #expect(try Self.multiset(doc["findings"] as? [Any] ?? []) == expectedFindings)
        let lines = try jsonl.out.split(separator: "\n").map { try JSONSerialization.jsonObject(with: Data($0.utf8)) }
        #expect(try Self.multiset(lines) == expectedFindings)
        // Everything else (summary sections, tool, inputs, requests) is the same.
        var rest = expected
        rest["findings"] = nil
        doc["findings"] = nil
        #expect(Set(doc.keys) == Set(rest.keys))
        for key in rest.keys {
            #expect(try Self.canonical([key: doc[key] ?? NSNull()]) == Self.canonical([key: rest[key] ?? NSNull()]), "\(key)")
        }
    }
}

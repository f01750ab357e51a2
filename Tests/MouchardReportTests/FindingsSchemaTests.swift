import Foundation
import MouchardCLI
import MouchardTestSupport
import Testing

/// The findings JSON that `scan --format json|jsonl` and `report --format json` write follows
/// docs/findings.schema.json: checked on the output of the real commands over the bundled example
/// (captures/example, HAR and pcap, with and without its device profile), the test fixtures and,
/// when it is beside the repository, the dev corpus. Documents broken on purpose must be rejected, so the check can fail.
@Suite struct FindingsSchemaTests {
    static let repo = TestFiles.repositoryRoot
    static let example = repo.appendingPathComponent("captures/example")

    static func schema() throws -> JSONSchemaSubset {
        try JSONSchemaSubset(bytes: Array(try Data(contentsOf: repo.appendingPathComponent("docs/findings.schema.json"))))
    }

    /// Runs `mouchard ARGS` in-process from the repository root; status, standard output and error.
    static func mouchard(_ args: [String]) -> (status: Int32, out: String, err: String) {
        let output = Output()
        let io = CommandIO(out: { output.append(out: $0) }, err: { output.append(err: $0) }, currentDirectory: repo.path)
        let status = Mouchard.main(args, io: io)
        return (status, output.out, output.err)
    }

    /// Every violation in the three JSON outputs of one input: the `scan --format json` document, each
    /// `scan --format jsonl` line (a finding), and the `report --format json` document. Also returns
    /// how many findings the scan found, so a test can tell a checked document from an empty one.
    static func violations(input: String, device: String?) throws -> (errors: [String], findings: Int) {
        let schema = try schema()
        let profile = device.map { ["--device", $0] } ?? []
        var errors: [String] = []

        let scan = mouchard(["scan", input, "--format", "json"] + profile)
        #expect(scan.status == 0, "\(scan.err)")
        let document = try JSONValue.parse(Array(scan.out.utf8))
        errors += schema.validate(document).map { "scan json: \($0)" }
        let findings = document["findings"]?.array?.count ?? 0

        let lines = mouchard(["scan", input, "--format", "jsonl"] + profile)
        #expect(lines.status == 0, "\(lines.err)")
        let rows = lines.out.split(separator: "\n", omittingEmptySubsequences: false).dropLast()
        #expect(rows.count == findings, "jsonl has \(rows.count) lines, json \(findings) findings")
        for (i, row) in rows.enumerated() {
            errors += schema.validate(try JSONValue.parse(Array(row.utf8)), against: "#/$defs/finding").map { "scan jsonl line \(i + 1): \($0)" }
        }

        let out = FileManager.default.temporaryDirectory.appendingPathComponent("mouchard-schema-\(UUID().uuidString).json")
        defer { try? FileManager.default.removeItem(at: out) }
        let report = mouchard(["report", input, "--out", out.path] + profile)
        #expect(report.status == 0, "\(report.err)")
        errors += schema.validate(try JSONValue.parse(Array(try Data(contentsOf: out)))).map { "report json: \($0)" }
        return (errors, findings)
    }

    @Test func schemaUsesOnlyKeywordsTheValidatorChecks() throws {
        #expect(try Self.schema().unsupportedKeywords() == [])
        #expect(try sarifSchema().unsupportedKeywords() == [])
    }

    @Test(arguments: ["traffic.har", "traffic.pcap"], [true, false])
    func exampleOutputFollowsTheSchema(file: String, withProfile: Bool) throws {
        let input = "captures/example/\(file)"
        let result = try Self.violations(input: input, device: withProfile ? "captures/example/device.json" : nil)
        #expect(result.errors == [])
        #expect(result.findings > 5, "the example leaks: an almost empty document checks little")
    }

    @Test(arguments: TestFiles.fixtureDevices, ["traffic.har", "traffic.pcapng", "traffic-sll2.pcap"])
    func fixtureOutputFollowsTheSchema(device: String, file: String) throws {
        let dir = TestFiles.fixtures.appendingPathComponent(device)
        let result = try Self.violations(input: dir.appendingPathComponent(file).path,
                                         device: dir.appendingPathComponent("device.json").path)
        #expect(result.errors == [])
        #expect(result.findings > 15)
    }

    @Test(.requires(.dev), arguments: ["ios", "android"], ["traffic.har", "traffic.pcapng", "traffic-sll.pcap"])
    func devCorpusOutputFollowsTheSchema(device: String, file: String) throws {
        let dir = OutsideCorpus.dev.file(device)
        let result = try Self.violations(input: dir.appendingPathComponent(file).path,
                                         device: dir.appendingPathComponent("device.json").path)
        #expect(result.errors == [])
        #expect(result.findings > 50)
    }

    /// A real document with one thing broken: each must be rejected, at the place broken.
    @Test func brokenDocumentsAreRejected() throws {
        let schema = try Self.schema()
        let scan = Self.mouchard(["scan", "captures/example/traffic.har", "--device", "captures/example/device.json", "--format", "json"])
        let valid = try JSONValue.parse(Array(scan.out.utf8))
        try #require(schema.validate(valid) == [])
        let cases: [(path: [PathStep], value: JSONValue?, expected: String)] = [
            ([.key("findings"), .index(0), .key("category")], nil, "$.findings[0]: missing required 'category'"),
            ([.key("findings"), .index(0), .key("transport")], .string("carrier-pigeon"), "$.findings[0].transport: "),
            ([.key("findings"), .index(1), .key("destination"), .key("third_party")], .string("yes"),
             "$.findings[1].destination.third_party: expected boolean"),
            ([.key("findings"), .index(0), .key("confidence")], .number(1.5), "$.findings[0].confidence: 1.5 > maximum"),
            ([.key("findings"), .index(0), .key("where")], .string("somewhere"), "$.findings[0].where: "),
            ([.key("findings"), .index(0), .key("encoding")], .string("Base64 then URL"), "$.findings[0].encoding: "),
            ([.key("findings"), .index(0), .key("time")], .string("yesterday"), "$.findings[0].time: not a date-time"),
            ([.key("findings"), .index(0), .key("request"), .key("url")], .string("/v1/open"), "$.findings[0].request.url: "),
            ([.key("findings"), .index(2), .key("severity")], .string("critical"), "$.findings[2].severity: "),
            ([.key("findings"), .index(0), .key("evidence_full")], .string("6D92078A-8246-4BA4-AE5B-76104861E7DC"),
             "$.findings[0]: property 'evidence_full' not allowed"),
            ([.key("tool"), .key("name")], .string("other"), "$.tool.name: "),
            ([.key("requests")], .integer(-1), "$.requests: -1.0 < minimum"),
            ([.key("verdict")], nil, "$: missing required 'verdict'"),
            ([.key("destinations"), .index(0), .key("transports")], .array([.string("carrier-pigeon")]), "$.destinations[0].transports[0]: "),
            ([.key("timeline"), .key("points")], .string("none"), "$.timeline.points: expected array"),
        ]
        for c in cases {
            let broken = valid.replacing(c.path, with: c.value)
            #expect(broken != valid, "\(c.path) changed nothing")
            let errors = schema.validate(broken)
            #expect(errors.contains { $0.hasPrefix(c.expected) }, "\(c.expected): got \(errors)")
        }
        // A JSON Lines row is one finding: the same checks apply to it alone.
        let row = try #require(valid["findings"]?.array?.first)
        #expect(schema.validate(row, against: "#/$defs/finding") == [])
        #expect(schema.validate(row.replacing([.key("rule")], with: nil), against: "#/$defs/finding") == ["$: missing required 'rule'"])
    }

    /// The validator itself: keywords it does not know are reported rather than ignored.
    @Test func unknownKeywordsAreReported() throws {
        let schema = try JSONSchemaSubset(bytes: Array(#"{"type":"object","properties":{"a":{"oneOf":[{"type":"string"}]},"b":{"format":"email"}}}"#.utf8))
        #expect(schema.unsupportedKeywords() == ["#/properties/a: oneOf", "#/properties/b: format email"])
    }

    func sarifSchema() throws -> JSONSchemaSubset {
        let url = Self.repo.appendingPathComponent("Tests/MouchardReportTests/Resources/sarif-2.1.0-subset.schema.json")
        return try JSONSchemaSubset(bytes: Array(try Data(contentsOf: url)))
    }
}

/// A step of a path into a JSON value.
enum PathStep: CustomStringConvertible {
    case key(String), index(Int)
    var description: String {
        switch self {
        case .key(let k): k
        case .index(let i): "[\(i)]"
        }
    }
}

extension JSONValue {
    /// This value with the member or element at `path` set to `value` (removed when nil).
    func replacing(_ path: [PathStep], with value: JSONValue?) -> JSONValue {
        guard let step = path.first else { return value ?? .null }
        let rest = Array(path.dropFirst())
        switch (self, step) {
        case (.object(var members), .key(let key)):
            if rest.isEmpty, value == nil {
                members[key] = nil
            } else {
                members[key] = (members[key] ?? .null).replacing(rest, with: value)
            }
            return .object(members)
        case (.array(var items), .index(let i)) where items.indices.contains(i):
            items[i] = items[i].replacing(rest, with: value)
            return .array(items)
        default:
            return self
        }
    }
}

/// What a command printed, collected from any thread.
private final class Output: @unchecked Sendable {
    private let lock = NSLock()
    private var outText = "", errText = ""
    var out: String { lock.withLock { outText } }
    var err: String { lock.withLock { errText } }
    func append(out s: String) { lock.withLock { outText += s } }
    func append(err s: String) { lock.withLock { errText += s } }
}

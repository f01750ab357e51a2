import Foundation
import MouchardFindings
import MouchardInspection

/// The findings JSON document (`scan --format json`, `report --format json`; docs/findings.md): the
/// contract fields (`tool`, `inputs`, `requests`, `findings`) plus the summary sections as extra
/// top-level fields (`verdict`, `categories`, `destinations`, `data_flows`, `finding_groups`,
/// `timeline`, `metadata_only_hosts`, `methodology`, `omitted`). Keys are snake_case.
public enum FindingsJSON {
    /// The document as UTF-8 JSON (sorted keys, so equal inputs give equal bytes).
    public static func render(_ summary: AuditSummary, findings: [Finding]) throws -> [UInt8] {
        let doc = document(summary)
        let encoder = encoder()
        // Findings are written by hand (fast for 100,000+), spliced in place of the marker.
        let rows = JSONText.array(findings, indent: "  ") { f, out in JSONText.finding(f, into: &out) }
        var bytes = JSONText.splice(Array(try encoder.encode(doc)), marker: marker, with: rows)
        bytes.append(0x0A)
        return bytes
    }

    static let marker = "@@mouchard-findings@@"

    /// Streaming form of `render`: `streamHead`, then `streamElement` for each finding as it is
    /// found, then `streamTail` with the summary — the same document (the `findings` key comes
    /// first instead of in sorted order), without holding the findings in memory.
    public static let streamHead = "{\n  \"findings\" : ["

    /// Appends one finding of the streamed `findings` array (`index` counts from 0).
    public static func streamElement(_ f: Finding, index: Int, into out: inout String) {
        out += index == 0 ? "\n    " : ",\n    "
        JSONText.finding(f, into: &out)
    }

    /// Closes the findings array (of `count` elements) and writes the other fields, then the final newline.
    public static func streamTail(_ summary: AuditSummary, count: Int) throws -> String {
        var doc = document(summary)
        doc.findings = nil
        var rest = String(decoding: try encoder().encode(doc), as: UTF8.self)
        // `{\n  "categories" : ...}` → `  "categories" : ...}`
        if rest.hasPrefix("{\n") { rest.removeFirst(2) }
        return (count == 0 ? "],\n" : "\n  ],\n") + rest + "\n"
    }

    static func document(_ summary: AuditSummary) -> Document {
        Document(
            tool: .init(name: summary.methodology.tool, version: summary.methodology.toolVersion),
            inputs: summary.methodology.inputs, requests: summary.verdict.requests, findings: marker,
            verdict: summary.verdict, categories: summary.categories, destinations: summary.destinations,
            dataFlows: summary.dataFlows, findingGroups: summary.findingGroups, timeline: summary.timeline,
            metadataOnlyHosts: summary.metadataOnlyHosts, methodology: summary.methodology, omitted: summary.omitted)
    }

    static func encoder() -> JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        encoder.keyEncodingStrategy = .convertToSnakeCase
        encoder.nonConformingFloatEncodingStrategy = .convertToString(positiveInfinity: "inf", negativeInfinity: "-inf", nan: "nan")
        return encoder
    }

    /// One finding as one compact JSON line (`scan --format jsonl`), newline included.
    public static func line(_ f: Finding, into out: inout String) {
        JSONText.finding(f, into: &out)
        out += "\n"
    }

    /// What a findings document read back gives: enough to rebuild a summary without the flows.
    public struct Loaded: Sendable {
        public var toolVersion: String?
        public var inputs: [String]
        public var requests: Int?
        public var findings: [Finding]
    }

    /// Reads a findings document (ours or any producer following the spec); extra fields are ignored.
    public static func load(_ data: Data) throws -> Loaded {
        let decoder = JSONDecoder()
        let doc = try decoder.decode(Minimal.self, from: data)
        return Loaded(toolVersion: doc.tool?.version, inputs: doc.inputs ?? [], requests: doc.requests, findings: doc.findings)
    }

    struct Tool: Codable { var name: String; var version: String }

    struct Document: Encodable {
        var tool: Tool
        var inputs: [String]
        var requests: Int
        /// The marker replaced by the findings array; nil when the findings were streamed before.
        var findings: String?
        var verdict: AuditSummary.Verdict
        var categories: [AuditSummary.CategoryCount]
        var destinations: [AuditSummary.Destination]
        var dataFlows: AuditSummary.DataFlowMatrix
        var findingGroups: [FindingGroup]
        var timeline: AuditSummary.Timeline
        var metadataOnlyHosts: [AuditSummary.MetadataOnlyHost]
        var methodology: AuditSummary.Methodology
        var omitted: AuditSummary.Omitted
    }

    struct Minimal: Decodable {
        var tool: Tool?
        var inputs: [String]?
        var requests: Int?
        var findings: [Finding]
    }
}

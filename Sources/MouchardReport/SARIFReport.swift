import Foundation
import MouchardFindings
import MouchardInspection

/// Renders findings as SARIF 2.1.0 (one run, one result per finding) for code-scanning dashboards:
/// rule metadata (id, name, short description, help, `properties.category`/`severity`), the level
/// from the severity, and the request URL (percent-encoded into a valid URI reference) as the
/// result's `artifactLocation.uri`. Finding details go in `result.properties`.
public enum SARIFReport {
    public static let schemaURI = "https://json.schemastore.org/sarif-2.1.0.json"
    /// Longest URL kept in a location; longer ones are cut (and `properties.url_truncated` is set).
    public static let maxURIBytes = 4096

    public static func render(_ summary: AuditSummary, findings: [Finding], rules known: [RuleMetadata] = []) throws -> [UInt8] {
        var byID: [String: RuleMetadata] = [:]
        for r in known { byID[r.id] = r }
        var rules: [RuleMetadata] = []
        var index: [String: Int] = [:]
        for f in findings where index[f.rule] == nil {
            index[f.rule] = rules.count
            rules.append(byID[f.rule] ?? .derived(id: f.rule, category: f.category, type: f.type, severity: f.severity))
        }
        let descriptors = rules.map { r in
            Descriptor(id: r.id, name: r.name, shortDescription: .init(text: r.shortDescription),
                       fullDescription: r.fullDescription.map { .init(text: $0) }, help: .init(text: r.help),
                       defaultConfiguration: .init(level: RuleMetadata.sarifLevel(r.severity)),
                       properties: .init(category: r.category, severity: r.severity, tags: ["privacy", r.category.rawValue]))
        }
        let rows = JSONText.array(findings, indent: "      ") { f, out in
            result(f, ruleIndex: index[f.rule] ?? 0, rules: rules, into: &out)
        }
        let v = summary.verdict
        let log = Log(
            schema: schemaURI, version: "2.1.0",
            runs: [Run(
                tool: .init(driver: .init(name: summary.methodology.tool, version: summary.methodology.toolVersion,
                                          rules: descriptors)),
                invocations: [.init(executionSuccessful: true)],
                results: marker,
                properties: .init(verdict: v.headline, requests: v.requests, findings: v.findings,
                                  companies: v.companies, source: summary.methodology.source,
                                  rulesVersion: summary.methodology.rulesVersion))])
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        var bytes = JSONText.splice(Array(try encoder.encode(log)), marker: marker, with: rows)
        bytes.append(0x0A)
        return bytes
    }

    static let marker = "@@mouchard-results@@"

    /// One SARIF `result` as compact JSON (written by hand: fast for 100,000+ findings).
    static func result(_ f: Finding, ruleIndex: Int, rules: [RuleMetadata], into out: inout String) {
        let severity = f.severity ?? (rules.indices.contains(ruleIndex) ? rules[ruleIndex].severity : .medium)
        let shown = { (s: String, n: Int) in VisibleText.shown(s, limit: n) }
        var text = "\(shown(f.type, 60)) (\(shown(f.category.rawValue, 40))) sent to \(shown(f.destination.host, 120))"
        var who: [String] = []
        if let t = f.destination.tracker { who.append(shown(t, 60)) }
        who.append(f.destination.thirdParty ? "third party" : "first party")
        text += " (" + who.joined(separator: ", ") + ")"
        text += " in \(shown(f.where, 80)), encoding \(shown(f.encoding, 40)), over \(shown(f.transport, 20)): \(shown(f.evidence, 60))."
        let shownURL = MaskedURL.display(f.request.url)
        let raw = Array(shownURL.utf8)
        var cut = raw.count > maxURIBytes
        var url = cut ? String(decoding: raw.prefix(maxURIBytes), as: UTF8.self) : shownURL
        if url.isEmpty { url = "unknown:"; cut = false }

        out += "{\"level\":\"\(RuleMetadata.sarifLevel(severity))\",\"locations\":[{\"physicalLocation\":{\"artifactLocation\":{\"uri\":"
        JSONText.string(MarkupEscaping.uriReference(url), into: &out)
        out += "}}}],\"message\":{\"text\":"
        JSONText.string(text, into: &out)
        out += "},\"properties\":{\"category\":"
        JSONText.string(f.category.rawValue, into: &out)
        if let v = f.confidence { out += ",\"confidence\":\(JSONText.number(v))" }
        JSONText.field("encoding", f.encoding, into: &out)
        JSONText.field("evidence", f.evidence, into: &out)
        if let v = f.flow { out += ",\"flow\":\(v)" }
        JSONText.field("host", f.destination.host, into: &out)
        if let v = f.inner { JSONText.field("inner", v, into: &out) }
        JSONText.field("method", f.request.method, into: &out)
        JSONText.field("severity", severity.rawValue, into: &out)
        out += ",\"third_party\":\(f.destination.thirdParty)"
        if let v = f.time { JSONText.field("time", v, into: &out) }
        if let v = f.destination.tracker { JSONText.field("tracker", v, into: &out) }
        JSONText.field("transport", f.transport, into: &out)
        JSONText.field("type", f.type, into: &out)
        if cut { out += ",\"url_truncated\":true" }
        JSONText.field("where", f.where, into: &out)
        out += "},\"ruleId\":"
        JSONText.string(f.rule, into: &out)
        out += ",\"ruleIndex\":\(ruleIndex)}"
    }

    // The SARIF 2.1.0 subset Mouchard writes (property names as the standard spells them).
    struct Log: Encodable {
        var schema: String
        var version: String
        var runs: [Run]
        enum CodingKeys: String, CodingKey { case schema = "$schema", version, runs }
    }
    struct Run: Encodable {
        var tool: Tool
        var invocations: [Invocation]
        /// The marker replaced by the results array.
        var results: String
        var properties: RunProperties
    }
    struct Tool: Encodable { var driver: Driver }
    struct Driver: Encodable {
        var name: String
        var version: String
        var rules: [Descriptor]
    }
    struct Text: Encodable { var text: String }
    struct Descriptor: Encodable {
        var id: String
        var name: String
        var shortDescription: Text
        var fullDescription: Text?
        var help: Text
        var defaultConfiguration: Configuration
        var properties: RuleProperties
    }
    struct Configuration: Encodable { var level: String }
    struct RuleProperties: Encodable { var category: FindingCategory; var severity: Severity; var tags: [String] }
    struct Invocation: Encodable { var executionSuccessful: Bool }
    struct RunProperties: Encodable {
        var verdict: String
        var requests: Int
        var findings: Int
        var companies: [String]
        var source: String
        var rulesVersion: String
        enum CodingKeys: String, CodingKey {
            case verdict, requests, findings, companies, source, rulesVersion = "rules_version"
        }
    }
}

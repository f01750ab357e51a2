import MouchardFindings
import MouchardInspection

/// The formats `mouchard report` writes, chosen by `--format` or the output file's extension.
public enum ReportFormat: String, Sendable, CaseIterable {
    case html, markdown = "md", json, sarif

    /// The format named by `--format` (`html`, `md`/`markdown`, `json`, `sarif`).
    public init?(name: String) {
        switch name.lowercased() {
        case "html", "htm": self = .html
        case "md", "markdown": self = .markdown
        case "json": self = .json
        case "sarif", "sarif.json": self = .sarif
        default: return nil
        }
    }

    /// The format of an output path by its extension (`.sarif.json` is SARIF).
    public init?(path: String) {
        let lower = path.lowercased()
        if lower.hasSuffix(".sarif.json") || lower.hasSuffix(".sarif") { self = .sarif; return }
        guard let dot = lower.lastIndex(of: "."), !lower[dot...].contains("/") else { return nil }
        self.init(name: String(lower[lower.index(after: dot)...]))
    }
}

/// Renders a report in any format from the shared summary and the findings: the one entry point
/// of the CLI (`report`, `scan`, `demo`). Pure: values in, bytes out.
public enum ReportRenderer {
    public static func render(_ format: ReportFormat, summary: AuditSummary, findings: [Finding],
                              rules: [RuleMetadata] = []) throws -> [UInt8] {
        switch format {
        case .html: Array(HTMLReport.render(summary).utf8)
        case .markdown: Array(MarkdownReport.render(summary).utf8)
        case .json: try FindingsJSON.render(summary, findings: findings)
        case .sarif: try SARIFReport.render(summary, findings: findings, rules: rules)
        }
    }
}

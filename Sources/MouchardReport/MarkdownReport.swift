/// Renders an `AuditSummary` as GitHub-flavoured Markdown for issues and pull requests: the verdict,
/// per-category counts, the data-flow matrix, findings (patterns) and destinations, capped.
///
/// Every captured string is shown through `VisibleText` and backslash-escaped (`MarkupEscaping.markdown`)
/// so it cannot open a link, an HTML tag, an image or break a table.
public enum MarkdownReport {
    /// Rows of each long table shown in Markdown (the HTML and JSON reports hold more).
    public static let rowLimit = 40

    public static func render(_ s: AuditSummary) -> String {
        let v = s.verdict
        var md = "# Privacy report"
        if let app = s.methodology.app { md += ": " + MarkupEscaping.markdownShown(app, limit: 80) }
        md += "\n\n"
        md += "> **\(MarkupEscaping.markdownShown(v.headline, limit: 1000))**\n>\n> \(MarkupEscaping.markdownShown(v.detail, limit: 1000))\n\n"
        md += "| findings | companies | hosts receiving data | in clear text | requests inspected |\n|---:|---:|---:|---:|---:|\n"
        md += "| \(v.findings) | \(v.companies.count) | \(v.hostsReceivingData) (\(v.thirdPartyHostsReceivingData) third-party) | \(v.cleartextFindings) | \(v.requests) (\(v.leakingRequests) leaking) |\n\n"
        if !v.companies.isEmpty {
            md += "Companies: " + v.companies.map { MarkupEscaping.markdownShown($0, limit: 60) }.joined(separator: ", ") + "\n\n"
        }

        if !s.categories.isEmpty {
            md += "## Categories\n\n| category | findings | requests | hosts | companies | in clear text |\n|---|---:|---:|---:|---:|---:|\n"
            for c in s.categories {
                md += "| \(MarkupEscaping.markdown(CategoryNames.title(c.category))) | \(c.findings) | \(c.requests) | \(c.hosts) | \(c.companies) | \(c.cleartext) |\n"
            }
            md += "\n## Data flows (findings per category and company)\n\n"
            let m = s.dataFlows
            md += "| data | " + m.companies.map { MarkupEscaping.markdownShown($0, limit: 40) }.joined(separator: " | ") + " |\n"
            md += "|---|" + String(repeating: "---:|", count: m.companies.count) + "\n"
            for (i, cat) in m.categories.enumerated() {
                md += "| \(MarkupEscaping.markdown(CategoryNames.title(cat))) | " + m.cells[i].map { $0 == 0 ? "·" : String($0) }.joined(separator: " | ") + " |\n"
            }
            md += "\n## Findings\n\n| category | host | company | data | where | encoding | evidence | transport | seen |\n|---|---|---|---|---|---|---|---|---:|\n"
            var rows = 0
            var total = 0
            for g in s.findingGroups {
                for p in g.patterns {
                    total += 1
                    guard rows < rowLimit else { continue }
                    rows += 1
                    md += "| \(MarkupEscaping.markdown(CategoryNames.title(g.category))) | \(MarkupEscaping.markdownShown(g.host, limit: 80)) | "
                    md += "\(g.company.map { MarkupEscaping.markdownShown($0, limit: 40) } ?? "—") | \(MarkupEscaping.markdownShown(p.type, limit: 40)) | "
                    md += "\(MarkupEscaping.markdownShown(p.where, limit: 60)) | \(MarkupEscaping.markdownShown(p.encoding, limit: 40)) | "
                    md += "\(MarkupEscaping.markdownShown(p.evidence, limit: 60)) | \(MarkupEscaping.markdownShown(p.transports.joined(separator: ", "), limit: 60)) | \(p.occurrences) |\n"
                }
                total += g.omittedPatterns
            }
            if total > rows {
                md += "\n_\(total - rows) more finding patterns in the HTML, JSON or SARIF report._\n"
            }
            md += "\n"
        }

        let owners = s.recipientsByOwner
        if !owners.isEmpty {
            md += "## Recipients by owner\n\n| owner | country | brands | hosts | findings | data |\n|---|---|---|---|---:|---|\n"
            for g in owners.prefix(rowLimit) {
                md += "| \(MarkupEscaping.markdownShown(g.owner, limit: 60))\(g.known ? "" : " _(not in the directory)_") | "
                md += "\(g.country.map { MarkupEscaping.markdown($0) } ?? "—") | "
                md += "\(g.brands.isEmpty ? "—" : MarkupEscaping.markdownShown(g.brands.joined(separator: ", "), limit: 120)) | "
                md += "\(MarkupEscaping.markdownShown(g.hosts.joined(separator: ", "), limit: 200)) | \(g.findings) | "
                md += "\(MarkupEscaping.markdownShown(g.categories.map(\.rawValue).joined(separator: ", "), limit: 120)) |\n"
            }
            if owners.count > rowLimit { md += "\n_\(owners.count - rowLimit) more owners in the HTML or JSON report._\n" }
            md += "\n"
        }

        md += "## Destinations\n\n"
        if s.destinations.isEmpty {
            md += "No traffic.\n\n"
        } else {
            md += "| host | company | party | transport | requests | findings | data |\n|---|---|---|---|---:|---:|---|\n"
            for d in s.destinations.prefix(rowLimit) {
                let who = d.companyAndOwner ?? d.service
                let unverified = d.attributionBasis == "unverified" ? " _(unverified)_" : ""
                md += "| \(MarkupEscaping.markdownShown(d.host, limit: 80)) | \(who.map { MarkupEscaping.markdownShown($0, limit: 80) } ?? "—")\(unverified) | "
                md += "\(d.thirdParty ? "third" : "first") | \(MarkupEscaping.markdown(d.transports.map(\.label).joined(separator: ", "))) | "
                md += "\(d.requests) | \(d.findings) | \(MarkupEscaping.markdownShown(d.categories.map(\.rawValue).joined(separator: ", "), limit: 120)) |\n"
            }
            let more = max(0, s.destinations.count - rowLimit) + s.omitted.destinations
            if more > 0 { md += "\n_\(more) more hosts in the HTML or JSON report._\n" }
            md += "\n"
        }

        if !s.metadataOnlyHosts.isEmpty {
            md += "## Hosts seen only in DNS or TLS SNI\n\n"
            md += s.metadataOnlyHosts.prefix(rowLimit).map {
                "- \(MarkupEscaping.markdownShown($0.host, limit: 80)) (\(MarkupEscaping.markdown($0.seenIn.joined(separator: ", "))))"
                    + ($0.company.map { " — " + MarkupEscaping.markdownShown($0, limit: 40) } ?? "")
            }.joined(separator: "\n") + "\n"
            let more = max(0, s.metadataOnlyHosts.count - rowLimit) + s.omitted.metadataOnlyHosts
            if more > 0 { md += "- _and \(more) more_\n" }
            md += "\n"
        }

        let m = s.methodology
        md += "## Methodology\n\n"
        md += "- Source: \(MarkupEscaping.markdownShown(m.source, limit: 200))\n"
        if let a = m.captureStart.flatMap(ReportTime.parse) {
            md += "- Capture: \(MarkupEscaping.markdown(ReportTime.readable(a))), \(MarkupEscaping.markdown(ReportTime.duration(m.durationSeconds)))\n"
        }
        md += "- Rules: \(MarkupEscaping.markdownShown(m.rulesVersion, limit: 80))\n"
        if m.deviceProfile.isEmpty {
            md += "- Device profile: none (pattern detection only)\n"
        } else {
            md += "- Device profile" + (m.deviceName.map { " " + MarkupEscaping.markdownShown($0, limit: 80) } ?? "") + " (masked): "
            md += m.deviceProfile.map { "\(MarkupEscaping.markdownShown($0.field, limit: 40)) \(MarkupEscaping.markdownShown($0.masked, limit: 40))" }.joined(separator: "; ") + "\n"
        }
        if !m.warnings.isEmpty {
            md += "- Input warnings:\n"
            for w in m.warnings { md += "  - \(MarkupEscaping.markdownShown(w, limit: 600))\n" }
        }
        md += "- Tool: \(MarkupEscaping.markdown(m.tool)) \(MarkupEscaping.markdown(m.toolVersion))\n"
        return md
    }
}

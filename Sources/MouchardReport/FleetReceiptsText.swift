import MouchardFindings

/// The fleet report's section: per app version, which companies received each category of data
/// (from the findings the live audits stored in the fleet store). Captured strings are escaped as
/// everywhere in the reports.
public enum FleetReceiptsText {
    static let title = "Who received what, per app and version"

    /// A Markdown section: one table per app version; `note` says where the findings come from.
    public static func markdown(_ receipts: [FleetReceipt], note: String) -> String {
        func md(_ s: String, _ limit: Int = 60) -> String { MarkupEscaping.markdownShown(s, limit: limit) }
        var out = "## \(title)\n\n\(MarkupEscaping.markdown(note))\n\n"
        if receipts.isEmpty { return out + "No findings were stored for these sessions.\n\n" }
        for (app, rows) in grouped(receipts) {
            out += "### \(md(app.name)) \(md(app.version))\n\n| data | company | hosts | party | findings | sessions |\n|---|---|---|---|---|---|\n"
            for r in rows {
                out += "| \(MarkupEscaping.markdown(CategoryNames.title(r.category))) | \(md(r.company)) | "
                out += "\(r.hosts.prefix(5).map { md($0) }.joined(separator: ", "))\(r.hosts.count > 5 ? " …" : "") | "
                out += "\(r.thirdParty ? "third" : "first") | \(r.findings) | \(r.sessions) |\n"
            }
            out += "\n"
        }
        return out
    }

    /// An HTML `<section>`.
    public static func html(_ receipts: [FleetReceipt], note: String) -> String {
        func h(_ s: String, _ limit: Int = 60) -> String { MarkupEscaping.htmlShown(s, limit: limit) }
        var out = "<section id=\"fleet\"><h2>\(title)</h2>\n<p>\(MarkupEscaping.html(note))</p>\n"
        if receipts.isEmpty { return out + "<p>No findings were stored for these sessions.</p></section>\n" }
        for (app, rows) in grouped(receipts) {
            out += "<h3>\(h(app.name)) \(h(app.version))</h3>\n<table><thead><tr><th>data</th><th>company</th><th>hosts</th>"
            out += "<th>party</th><th>findings</th><th>sessions</th></tr></thead><tbody>\n"
            for r in rows {
                out += "<tr><td>\(h(CategoryNames.title(r.category)))</td><td>\(h(r.company))</td>"
                out += "<td>\(r.hosts.prefix(5).map { h($0) }.joined(separator: ", "))\(r.hosts.count > 5 ? " …" : "")</td>"
                out += "<td>\(r.thirdParty ? "third" : "first")</td><td>\(r.findings)</td><td>\(r.sessions)</td></tr>\n"
            }
            out += "</tbody></table>\n"
        }
        return out + "</section>\n"
    }

    /// Lines for a terminal: per app version, each category and who received it.
    public static func text(_ receipts: [FleetReceipt]) -> String {
        func t(_ s: String, _ limit: Int = 60) -> String { VisibleText.shown(s, limit: limit) }
        var out = ""
        for (app, rows) in grouped(receipts) {
            out += "\(t(app.name)) \(t(app.version)):\n"
            for r in rows {
                out += "  \(r.category.rawValue)  \(t(r.company)) (\(r.thirdParty ? "third" : "first") party: "
                out += "\(r.hosts.prefix(3).map { t($0) }.joined(separator: ", "))\(r.hosts.count > 3 ? ", …" : ""))"
                out += "  \(r.findings) finding\(r.findings == 1 ? "" : "s") in \(r.sessions) session\(r.sessions == 1 ? "" : "s")\n"
            }
        }
        return out
    }

    /// The receipts of `findings`, each attributed to its session's app and version by `session`
    /// (nil: left out): per app version and category, the company (or host) with its hosts,
    /// findings and sessions; most findings first.
    public static func aggregate(_ findings: [Finding], session: (Finding) -> (id: String, app: String, version: String)?) -> [FleetReceipt] {
        struct Key: Hashable {
            var app, version, company: String
            var category: FindingCategory
        }
        var rows: [Key: (receipt: FleetReceipt, hosts: Set<String>, sessions: Set<String>)] = [:]
        for f in findings {
            guard let s = session(f) else { continue }
            let key = Key(app: s.app, version: s.version, company: f.destination.tracker ?? f.destination.host, category: f.category)
            var row = rows[key] ?? (FleetReceipt(app: s.app, appVersion: s.version, category: f.category, company: key.company, hosts: [],
                                                 thirdParty: false, findings: 0, sessions: 0), [], [])
            row.receipt.findings += 1
            row.receipt.thirdParty = row.receipt.thirdParty || f.destination.thirdParty
            row.hosts.insert(f.destination.host)
            row.sessions.insert(s.id)
            rows[key] = row
        }
        return rows.values.map { r in
            var receipt = r.receipt
            receipt.hosts = r.hosts.sorted()
            receipt.sessions = r.sessions.count
            return receipt
        }.sorted { a, b in
            (a.app, a.appVersion, a.category.rawValue, -a.findings, a.company) < (b.app, b.appVersion, b.category.rawValue, -b.findings, b.company)
        }
    }

    /// The receipts per app version, in the order given.
    static func grouped(_ receipts: [FleetReceipt]) -> [(app: (name: String, version: String), rows: [FleetReceipt])] {
        var out: [(app: (name: String, version: String), rows: [FleetReceipt])] = []
        for r in receipts {
            let name = r.app.isEmpty ? "(app not named)" : r.app
            if let last = out.last, last.app.name == name, last.app.version == r.appVersion {
                out[out.count - 1].rows.append(r)
            } else {
                out.append(((name, r.appVersion), [r]))
            }
        }
        return out
    }
}

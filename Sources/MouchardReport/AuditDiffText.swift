import Foundation

/// Renders an `AuditDiff`: plain text (terminal), Markdown (a pull request, or a section of the
/// Markdown report), HTML (a section of the HTML report) and JSON. Captured strings (hosts,
/// companies, URLs, evidence) go through `VisibleText` and the format's escaping.
public enum AuditDiffText {
    public static func text(_ d: AuditDiff, old: String, new: String) -> String {
        func shown(_ s: String) -> String { VisibleText.shown(s, limit: 200) }
        var out = "changes from \(shown(old)) to \(shown(new)):\n"
        if d.isEmpty { return out + "  nothing changed: the same leaks, destinations and companies\n" }
        func leak(_ l: AuditDiff.Leak) -> String {
            var s = "\(l.key.category) → \(shown(l.key.host))"
            if let c = l.key.company { s += " (\(shown(c)))" }
            s += l.thirdParty ? ", third party" : ", first party"
            s += ": \(l.types.map(shown).joined(separator: ", ")) in \(l.places.map(shown).joined(separator: ", "))"
            s += "; \(l.findings) finding\(l.findings == 1 ? "" : "s"), e.g. \(l.exampleFlow.map { "flow \($0) " } ?? "")"
            s += "\(shown(l.exampleRequest)) evidence \(shown(l.exampleEvidence))"
            return s
        }
        for l in d.newLeaks { out += "  NEW leak: \(leak(l))\n" }
        for c in d.changedLeaks {
            out += "  CHANGED leak: \(leak(c.new))\n"
            out += "    was: \(c.old.types.map(shown).joined(separator: ", ")) in \(c.old.places.map(shown).joined(separator: ", "))\n"
        }
        for l in d.goneLeaks { out += "  gone leak: \(leak(l))\n" }
        for h in d.newDestinations { out += "  new destination: \(shown(h))\n" }
        for h in d.goneDestinations { out += "  gone destination: \(shown(h))\n" }
        for c in d.newCompanies { out += "  new company: \(shown(c))\n" }
        for c in d.goneCompanies { out += "  gone company: \(shown(c))\n" }
        out += "\(d.newLeaks.count) new, \(d.changedLeaks.count) changed, \(d.goneLeaks.count) gone leak\(d.goneLeaks.count == 1 ? "" : "s"); "
        out += "\(d.newDestinations.count) new destination\(d.newDestinations.count == 1 ? "" : "s"), \(d.newCompanies.count) new compan\(d.newCompanies.count == 1 ? "y" : "ies")\n"
        return out
    }

    /// A Markdown section (`## Changes since OLD`), tables of leaks and lists of destinations.
    public static func markdown(_ d: AuditDiff, old: String, new: String, level: Int = 2) -> String {
        func md(_ s: String, _ limit: Int = 80) -> String { MarkupEscaping.markdownShown(s, limit: limit) }
        let hashes = String(repeating: "#", count: level)
        var out = "\(hashes) Changes since \(md(old))\n\n"
        if d.isEmpty { return out + "Nothing changed: the same leaks, destinations and companies as \(md(old)).\n\n" }
        let rows: [(String, AuditDiff.Leak, AuditDiff.Leak?)] = d.newLeaks.map { ("new", $0, nil) }
            + d.changedLeaks.map { ("changed", $0.new, $0.old) } + d.goneLeaks.map { ("gone", $0, nil) }
        if !rows.isEmpty {
            out += "| change | data | host | company | party | types | where | example |\n|---|---|---|---|---|---|---|---|\n"
            for (what, l, was) in rows {
                var types = l.types.map { md($0, 40) }.joined(separator: ", ")
                if let was { types += " (was " + was.types.map { md($0, 40) }.joined(separator: ", ") + ")" }
                out += "| **\(what)** | \(MarkupEscaping.markdown(CategoryNames.title(l.key.category))) | \(md(l.key.host)) | "
                out += "\(l.key.company.map { md($0, 40) } ?? "—") | \(l.thirdParty ? "third" : "first") | \(types) | "
                out += "\(l.places.map { md($0, 60) }.joined(separator: ", ")) | \(md(l.exampleRequest, 100)) |\n"
            }
            out += "\n"
        }
        func list(_ title: String, _ items: [String]) {
            guard !items.isEmpty else { return }
            out += "\(title): " + items.map { md($0) }.joined(separator: ", ") + "\n\n"
        }
        list("New destinations", d.newDestinations)
        list("Gone destinations", d.goneDestinations)
        list("New companies", d.newCompanies)
        list("Gone companies", d.goneCompanies)
        return out
    }

    /// An HTML `<section>` for the HTML report.
    public static func html(_ d: AuditDiff, old: String, new: String) -> String {
        func h(_ s: String, _ limit: Int = 80) -> String { MarkupEscaping.htmlShown(s, limit: limit) }
        var out = "<section id=\"diff\"><h2>Changes since \(h(old))</h2>\n"
        if d.isEmpty { return out + "<p>Nothing changed: the same leaks, destinations and companies.</p></section>\n" }
        let rows: [(String, AuditDiff.Leak)] = d.newLeaks.map { ("new", $0) } + d.changedLeaks.map { ("changed", $0.new) }
            + d.goneLeaks.map { ("gone", $0) }
        if !rows.isEmpty {
            out += "<table><thead><tr><th>change</th><th>data</th><th>host</th><th>company</th><th>types</th><th>where</th><th>example</th></tr></thead><tbody>\n"
            for (what, l) in rows {
                out += "<tr><td><strong>\(what)</strong></td><td>\(h(CategoryNames.title(l.key.category)))</td><td>\(h(l.key.host))</td>"
                out += "<td>\(l.key.company.map { h($0, 40) } ?? "—")</td><td>\(l.types.map { h($0, 40) }.joined(separator: ", "))</td>"
                out += "<td>\(l.places.map { h($0, 60) }.joined(separator: ", "))</td><td>\(h(l.exampleRequest, 100))</td></tr>\n"
            }
            out += "</tbody></table>\n"
        }
        for (title, items) in [("New destinations", d.newDestinations), ("Gone destinations", d.goneDestinations),
                               ("New companies", d.newCompanies), ("Gone companies", d.goneCompanies)] where !items.isEmpty {
            out += "<p>\(title): \(items.map { h($0) }.joined(separator: ", "))</p>\n"
        }
        return out + "</section>\n"
    }

    public static func json(_ d: AuditDiff, old: String, new: String) -> [UInt8] {
        struct Document: Encodable {
            var old: String
            var new: String
            var diff: AuditDiff
        }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        return Array((try? encoder.encode(Document(old: old, new: new, diff: d))) ?? Data("{}".utf8)) + [0x0A]
    }
}

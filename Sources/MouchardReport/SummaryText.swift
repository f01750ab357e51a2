/// The shared summary as terminal text (what `scan` and `report` print): the verdict, per-category
/// counts and the hosts that received data. Captured strings are shown through `VisibleText`, so
/// escape sequences and bidi controls cannot act on the terminal.
public enum SummaryText {
    public static func render(_ s: AuditSummary, hostLimit: Int = 10) -> String {
        let v = s.verdict
        var t = "\(VisibleText.shown(v.headline, limit: 1000))\n\(VisibleText.shown(v.detail, limit: 1000))\n"
        if !s.categories.isEmpty {
            t += "\n"
            let width = s.categories.map { CategoryNames.title($0.category).count }.max() ?? 0
            for c in s.categories {
                let title = CategoryNames.title(c.category)
                t += "  \(title)\(String(repeating: " ", count: max(0, width - title.count)))  \(counted(c.findings, "finding")), "
                t += "\(counted(c.requests, "request")), \(counted(c.hosts, "host"))\(c.cleartext > 0 ? ", \(c.cleartext) in clear text" : "")\n"
            }
            let receiving = s.destinations.filter { $0.findings > 0 }
            if !receiving.isEmpty && hostLimit > 0 {
                t += "\n  receiving hosts:\n"
                for d in receiving.prefix(hostLimit) {
                    t += "    \(VisibleText.shown(d.host, limit: 80))"
                    t += d.companyAndOwner.map { " (\(VisibleText.shown($0, limit: 80)))" } ?? ""
                    t += " \(counted(d.findings, "finding")) [\(d.categories.map { VisibleText.shown($0.rawValue, limit: 40) }.joined(separator: ", "))]"
                    t += " \(d.transports.map(\.label).joined(separator: ", "))\n"
                }
                if receiving.count > hostLimit { t += "    … and \(receiving.count - hostLimit) more\n" }
            }
        }
        return t
    }
}

import Foundation
import MouchardFindings
import MouchardStore

extension PostgresFleet {
    /// Separates the hosts of one receipt in the query's text aggregate (no host holds it).
    static let hostSeparator = "\u{1F}"

    /// Per app version and category, the companies (or hosts) that received it, from the findings
    /// the live audits stored, over the sessions `filter` selects: most findings first.
    public func receipts(_ filter: FleetFilter) throws(StoreError) -> [FleetReceipt] {
        let (condition, parameters) = filter.sql(firstParameter: 1, prefix: "s.")
        // Rows of sessions started before `since` are in older partitions: say so, so that they are not read.
        let pruning = filter.since.map { " AND f.session_start >= '\(FleetBatchWriter.timestampText(PGTime.microseconds($0)))'::timestamptz" } ?? ""
        let separator = Self.hostSeparator
        return try link.locked { c throws(StoreError) in
            try c.query("""
                SELECT coalesce(s.app, ''), coalesce(s.app_version, ''), f.category, coalesce(f.company, f.host),
                       string_agg(DISTINCT f.host, E'\\x1F'), bool_or(coalesce(f.third_party, true)),
                       count(*), count(DISTINCT f.session_id)
                FROM mouchard.findings f JOIN mouchard.sessions s ON s.id = f.session_id AND s.started = f.session_start
                WHERE \(condition)\(pruning)
                GROUP BY 1, 2, 3, 4
                ORDER BY 1, 2, 3, 7 DESC, 4
                """, parameters).rows { r throws(StoreError) in
                FleetReceipt(app: r.text(0), appVersion: r.text(1), category: FindingCategory(rawValue: r.text(2)), company: r.text(3),
                             hosts: r.text(4).split(separator: Character(separator)).map(String.init).sorted(),
                             thirdParty: r.int(5) != 0, findings: r.int(6), sessions: r.int(7))
            }
        }
    }
}

import MouchardFindings
import MouchardInspection

extension AuditSummary {
    /// The hosts that received personal data, grouped by the tracker's company family (its top owner):
    /// `AppLovin` gathers the hosts of AppLovin MAX and of Adjust. Hosts without a directory entry are
    /// grouped under their own name, first party or not. Most findings first.
    public struct OwnerGroup: Sendable, Hashable {
        /// Company family (`AppLovin`), or the host when the directory does not know it.
        public var owner: String
        /// ISO 3166-1 alpha-2 country of the owner, nil when unknown.
        public var country: String?
        /// Brands of the owner seen in the capture (`Adjust`, `AppLovin`), sorted.
        public var brands: [String]
        public var hosts: [String]
        public var findings: Int
        /// Data categories received, sorted as the report sorts them.
        public var categories: [FindingCategory]
        /// False when the group is an unattributed host (not in the directory).
        public var known: Bool
        public var thirdParty: Bool
    }

    /// See `OwnerGroup`.
    public var recipientsByOwner: [OwnerGroup] {
        var groups: [String: OwnerGroup] = [:]
        for d in destinations where d.findings > 0 {
            let key = d.owner ?? d.company ?? d.host
            var g = groups[key] ?? OwnerGroup(owner: key, country: d.ownerCountry, brands: [], hosts: [], findings: 0,
                                              categories: [], known: d.company != nil, thirdParty: d.thirdParty)
            if let brand = d.company, !g.brands.contains(brand) { g.brands.append(brand) }
            g.hosts.append(d.host)
            g.findings += d.findings
            g.categories = CategoryNames.sorted(Set(g.categories).union(d.categories))
            g.thirdParty = g.thirdParty || d.thirdParty
            groups[key] = g
        }
        return groups.values.map { g in
            var g = g
            g.brands.sort()
            g.hosts.sort()
            return g
        }.sorted { $0.findings != $1.findings ? $0.findings > $1.findings : $0.owner < $1.owner }
    }
}

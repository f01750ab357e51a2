import MouchardFindings
import MouchardInspection

/// What changed between two audits of an app (version 1.2 → 1.3): leaks, each a category of data
/// going to a destination host (and the company behind it), that are new, gone or changed (other
/// data types, other places in the request, other encodings), and destinations and companies the
/// new version talks to that the old one did not (and the reverse). A pure value: two summaries
/// and their findings in, the differences out, rendered by `AuditDiffText`.
public struct AuditDiff: Sendable, Hashable, Codable {
    /// One category × destination × company.
    public struct LeakKey: Sendable, Hashable, Codable, Comparable {
        public var category: FindingCategory
        public var host: String
        public var company: String?

        public static func < (a: LeakKey, b: LeakKey) -> Bool {
            (a.category.rawValue, a.host, a.company ?? "") < (b.category.rawValue, b.host, b.company ?? "")
        }
    }

    /// What one audit shows of a leak: the data types, where and how they were sent, how often, an example.
    public struct Leak: Sendable, Hashable, Codable {
        public var key: LeakKey
        public var thirdParty: Bool
        public var types: [String]
        /// `query:advertiserId [base64]`, sorted.
        public var places: [String]
        public var findings: Int
        /// The first request it was seen in, and its flow id.
        public var exampleRequest: String
        public var exampleFlow: Int?
        /// The evidence (masked) of the first finding.
        public var exampleEvidence: String
    }

    public struct Change: Sendable, Hashable, Codable {
        public var old: Leak
        public var new: Leak
    }

    public var newLeaks: [Leak]
    public var goneLeaks: [Leak]
    public var changedLeaks: [Change]
    public var newDestinations: [String]
    public var goneDestinations: [String]
    public var newCompanies: [String]
    public var goneCompanies: [String]

    public init(old: AuditSummary, oldFindings: [Finding], new: AuditSummary, newFindings: [Finding]) {
        let before = Self.leaks(oldFindings), after = Self.leaks(newFindings)
        newLeaks = after.keys.filter { before[$0] == nil }.sorted().compactMap { after[$0] }
        goneLeaks = before.keys.filter { after[$0] == nil }.sorted().compactMap { before[$0] }
        changedLeaks = after.keys.sorted().compactMap { key in
            guard let a = before[key], let b = after[key], a.types != b.types || a.places != b.places else { return nil }
            return Change(old: a, new: b)
        }
        let oldHosts = Set(old.destinations.map(\.host)), newHosts = Set(new.destinations.map(\.host))
        newDestinations = newHosts.subtracting(oldHosts).sorted()
        goneDestinations = oldHosts.subtracting(newHosts).sorted()
        let oldCompanies = Set(old.destinations.compactMap(\.company) + oldFindings.compactMap(\.destination.tracker))
        let newCompanies = Set(new.destinations.compactMap(\.company) + newFindings.compactMap(\.destination.tracker))
        self.newCompanies = newCompanies.subtracting(oldCompanies).sorted()
        goneCompanies = oldCompanies.subtracting(newCompanies).sorted()
    }

    /// True when nothing differs.
    public var isEmpty: Bool {
        newLeaks.isEmpty && goneLeaks.isEmpty && changedLeaks.isEmpty && newDestinations.isEmpty && goneDestinations.isEmpty
            && newCompanies.isEmpty && goneCompanies.isEmpty
    }

    /// What `--fail-on` can name: `new` (new leaks), `changed`, `gone`, `destinations` (new
    /// destinations or companies), `any`.
    public static let failConditions = ["new", "changed", "gone", "destinations", "any"]

    public func matches(failOn conditions: Set<String>) -> Bool {
        (conditions.contains("new") && !newLeaks.isEmpty)
            || (conditions.contains("changed") && !changedLeaks.isEmpty)
            || (conditions.contains("gone") && !goneLeaks.isEmpty)
            || (conditions.contains("destinations") && (!newDestinations.isEmpty || !newCompanies.isEmpty))
            || (conditions.contains("any") && !isEmpty)
    }

    static func leaks(_ findings: [Finding]) -> [LeakKey: Leak] {
        var out: [LeakKey: Leak] = [:]
        var types: [LeakKey: Set<String>] = [:], places: [LeakKey: Set<String>] = [:]
        for f in findings {
            let key = LeakKey(category: f.category, host: f.destination.host, company: f.destination.tracker)
            types[key, default: []].insert(f.type)
            places[key, default: []].insert(f.encoding == "plain" ? f.where : "\(f.where) [\(f.encoding)]")
            if out[key] == nil {
                out[key] = Leak(key: key, thirdParty: f.destination.thirdParty, types: [], places: [], findings: 0,
                                exampleRequest: "\(f.request.method) \(MaskedURL.display(f.request.url))", exampleFlow: f.flow,
                                exampleEvidence: f.evidence)
            }
            out[key]?.findings += 1
        }
        for key in out.keys {
            out[key]?.types = types[key, default: []].sorted()
            out[key]?.places = places[key, default: []].sorted()
        }
        return out
    }
}

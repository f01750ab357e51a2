import MouchardFlow
import MouchardInspection

/// What leaked in a set of flows: every finding with the request it was seen in, and the
/// questions a test asks of them.
///
///     let audit = try Audit(Flows.load("app.har"), profile: Rules.profile("phone.json"))
///     #expect(audit.findings(.deviceID, to: .thirdParty).isEmpty)
///
/// When such an expectation fails, Swift Testing shows the `FindingList`: each offending request
/// with its evidence chain.
public struct Audit: Sendable, CustomStringConvertible {
    public let flows: Flows
    public let findings: FindingList

    /// Inspects `flows` with `rules` (Mouchard's own by default) and, when given, the device
    /// profile's known values; `firstParty` names the app's own domains (else inferred from the flows).
    public init(_ flows: Flows, profile: DeviceProfile? = nil, firstParty: [String] = [], rules: Rules? = nil) throws {
        let rules = try rules ?? Rules.standard()
        let attribution = TrackerAttribution(trackers: rules.trackers, firstParty: firstParty, flows: flows.all)
        let inspector = Inspector(rules: rules.patterns, profile: profile, attribution: attribution)
        let byID = Dictionary(flows.all.map { ($0.id, $0) }, uniquingKeysWith: { a, _ in a })
        self.flows = flows
        findings = FindingList(inspector.inspect(flows.all).map { AuditedFinding($0, flow: $0.flow.flatMap { byID[$0] }) })
    }

    /// The findings of `category` (all when nil) that went `to` whom.
    public func findings(_ category: FindingCategory? = nil, to party: Party = .anyone) -> FindingList {
        FindingList(findings.items.filter { f in
            (category.map { $0 == f.finding.category } ?? true) && party.includes(f.finding.destination)
        })
    }

    /// Findings per category, destination host, company (`(unknown owner)` when unknown).
    public var byCategory: [FindingCategory: FindingList] { grouped { $0.category } }
    public var byDestination: [String: FindingList] { grouped { $0.destination.host } }
    public var byCompany: [String: FindingList] { grouped { $0.destination.tracker ?? "(unknown owner)" } }

    private func grouped<Key: Hashable>(_ key: (Finding) -> Key) -> [Key: FindingList] {
        Dictionary(grouping: findings.items, by: { key($0.finding) }).mapValues(FindingList.init)
    }

    public var description: String { "audit of \(flows.count) flows: \(findings)" }
}

/// Who received a finding's data.
public enum Party: Sendable, Hashable {
    case anyone
    /// Not the app's own company.
    case thirdParty
    case firstParty
    /// A company of the tracker directory (`AppsFlyer`), compared without case.
    case company(String)
    /// A host or any host under a domain.
    case host(String)

    func includes(_ d: FindingDestination) -> Bool {
        switch self {
        case .anyone: return true
        case .thirdParty: return d.thirdParty
        case .firstParty: return !d.thirdParty
        case .company(let c): return d.tracker?.lowercased() == c.lowercased()
        case .host(let h): return d.host == h.lowercased() || d.host.hasSuffix("." + h.lowercased())
        }
    }
}

/// One finding with the flow it came from.
public struct AuditedFinding: Sendable, Hashable, CustomStringConvertible {
    public let finding: Finding
    public let flow: Flow?

    public init(_ finding: Finding, flow: Flow?) {
        self.finding = finding
        self.flow = flow
    }

    /// `device-id idfa → t.appsflyer.com (AppsFlyer) query:advertiserId [base64]`: what a test can pin.
    public var signature: String {
        let f = finding
        let company = f.destination.tracker.map { " (\($0))" } ?? ""
        return "\(f.category) \(f.type) → \(f.destination.host)\(company) \(f.where)" + (f.encoding == "plain" ? "" : " [\(f.encoding)]")
    }

    /// How the value was found, step by step: the request, the place in it, each decoding, the
    /// path inside the decoded value, the (masked) value, the rule.
    public var evidenceChain: [String] {
        let f = finding
        var chain = ["request \(f.flow.map { "#\($0) " } ?? "")\(f.request.method) \(MaskedURL.display(f.request.url)) (\(f.transport))"]
        chain.append("in \(f.where)")
        if f.encoding != "plain" { chain.append("decoded " + f.encoding.split(separator: "+").joined(separator: " → ")) }
        if let inner = f.inner { chain.append("at \(inner)") }
        chain.append("value \(f.evidence)")
        chain.append("rule \(f.rule)" + (f.confidence.map { String(format: ", confidence %.2f", $0) } ?? ""))
        return chain
    }

    public var description: String {
        let party = finding.destination.thirdParty ? "third party" : "first party"
        return "\(signature), \(party)\n" + evidenceChain.map { "      \($0)" }.joined(separator: "\n")
    }
}

/// Findings, printed as the requests that carried them and their evidence (what a failed
/// `#expect(… .isEmpty)` shows).
public struct FindingList: Sendable, Hashable, RandomAccessCollection, CustomStringConvertible {
    public let items: [AuditedFinding]

    public init(_ items: [AuditedFinding]) { self.items = items }

    public var startIndex: Int { items.startIndex }
    public var endIndex: Int { items.endIndex }
    public subscript(position: Int) -> AuditedFinding { items[position] }

    /// The findings' signatures, sorted and without repeats (what `export --format swift-test` pins).
    public var signatures: [String] { Array(Set(items.map(\.signature))).sorted() }

    /// The requests (method and masked URL) that carried these findings, in order, without repeats.
    public var requests: [String] {
        var seen = Set<String>(), out: [String] = []
        for f in items {
            let r = "\(f.finding.request.method) \(MaskedURL.display(f.finding.request.url))"
            if seen.insert(r).inserted { out.append(r) }
        }
        return out
    }

    public var description: String {
        guard !items.isEmpty else { return "no findings" }
        var s = "\(items.count) finding\(items.count == 1 ? "" : "s") in \(requests.count) request\(requests.count == 1 ? "" : "s"):"
        for f in items.prefix(30) { s += "\n  - " + f.description }
        if items.count > 30 { s += "\n  … and \(items.count - 30) more" }
        return s
    }
}

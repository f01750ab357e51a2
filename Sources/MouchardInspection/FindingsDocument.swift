/// The `scan --format json` document (../shared/spec/findings.md): the tool, the inputs, how many
/// requests were inspected and every finding. Reports and CI gates read this shape.
public struct FindingsDocument: Sendable, Codable, Hashable {
    public struct Tool: Sendable, Codable, Hashable {
        public var name: String
        public var version: String
        public init(name: String = "mouchard", version: String) { self.name = name; self.version = version }
    }

    public var tool: Tool
    public var inputs: [String]
    public var requests: Int
    public var findings: [Finding]

    public init(tool: Tool, inputs: [String], requests: Int, findings: [Finding]) {
        self.tool = tool
        self.inputs = inputs
        self.requests = requests
        self.findings = findings
    }
}

/// Findings rolled up for humans and reports: per category, per destination.
public struct InspectionSummary: Sendable, Hashable {
    /// One destination host and what it received.
    public struct Destination: Sendable, Hashable {
        public var host: String
        public var company: String?
        public var thirdParty: Bool
        /// Category → data types seen (sorted).
        public var categories: [String: [String]]
        public var findings: Int
        /// Distinct requests that leaked something to this host.
        public var requests: Int
    }

    public var requests: Int
    public var leakingRequests: Int
    /// Category → number of findings.
    public var findingsPerCategory: [String: Int]
    /// Category → distinct requests leaking it.
    public var requestsPerCategory: [String: Int]
    /// Destinations, most findings first.
    public var destinations: [Destination]

    public init(findings: [Finding], requests: Int) {
        self.requests = requests
        var perCat: [String: Int] = [:]
        var reqPerCat: [String: Set<String>] = [:]
        var leaking = Set<String>()
        var dests: [String: Destination] = [:]
        var destReqs: [String: Set<String>] = [:]
        for f in findings {
            let key = "\(f.request.method) \(f.request.url)"
            perCat[f.category, default: 0] += 1
            reqPerCat[f.category, default: []].insert(key)
            leaking.insert(key)
            var d = dests[f.destination.host] ?? Destination(host: f.destination.host, company: f.destination.tracker,
                                                             thirdParty: f.destination.thirdParty, categories: [:], findings: 0, requests: 0)
            d.findings += 1
            var types = Set(d.categories[f.category] ?? [])
            types.insert(f.type)
            d.categories[f.category] = types.sorted()
            dests[f.destination.host] = d
            destReqs[f.destination.host, default: []].insert(key)
        }
        for (h, r) in destReqs { dests[h]?.requests = r.count }
        self.leakingRequests = leaking.count
        self.findingsPerCategory = perCat
        self.requestsPerCategory = reqPerCat.mapValues(\.count)
        self.destinations = dests.values.sorted { ($0.findings, $1.host) > ($1.findings, $0.host) }
    }
}

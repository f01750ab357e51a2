import MouchardFindings
import MouchardFlow

/// Attribution from the tracker directory (Rules/trackers.json) and a first-party policy: the
/// company and category behind a host, and whether it is the app's own.
public struct TrackerAttribution: DestinationAttributing {
    public let trackers: TrackerDirectory?
    public let policy: FirstPartyPolicy

    public init(trackers: TrackerDirectory?, policy: FirstPartyPolicy) {
        self.trackers = trackers
        self.policy = policy
    }

    /// The policy for a capture: explicit `firstParty` domains when given, else inferred from the
    /// capture's hosts and the app's User-Agent strings.
    public init(trackers: TrackerDirectory?, firstParty: [String], flows: [Flow]) {
        var perHost: [String: Int] = [:]
        var hints = Set<String>()
        for flow in flows {
            guard let r = flow.request else { continue }
            perHost[r.host, default: 0] += 1
            if let ua = r.headers["User-Agent"], hints.count < 50 { hints.insert(ua) }
        }
        self.init(trackers: trackers, policy: FirstPartyPolicy(explicitDomains: firstParty, requestsPerHost: perHost,
                                                               appHints: hints.sorted(), trackers: trackers))
    }

    public func attribute(host: String) -> DestinationInfo {
        let entry = trackers?.lookup(host: host)
        return DestinationInfo(company: entry?.company, category: entry?.category.rawValue, thirdParty: policy.isThirdParty(host: host))
    }
}

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
        // TLS server names of connections whose requests were not read still say where the app went.
        for flow in flows where flow.request == nil {
            if let sni = flow.tls?.serverName, !sni.isEmpty { perHost[sni, default: 0] += 1 }
        }
        self.init(trackers: trackers, policy: FirstPartyPolicy(explicitDomains: firstParty, requestsPerHost: perHost,
                                                               appHints: hints.sorted(), trackers: trackers))
    }

    /// A tracker host gets its brand, category and owner; an infrastructure or platform host (CDN, cloud,
    /// OS service) gets only `service`, so that it never reads as a tracker; every host gets its party
    /// decision with the reason.
    public func attribute(host: String) -> DestinationInfo {
        let decision = policy.decide(host: host)
        var info = DestinationInfo(thirdParty: !decision.isFirstParty, partyReason: decision.reason.description)
        guard let entry = trackers?.lookup(host: host) else { return info }
        info.attributionBasis = entry.basis.rawValue
        info.attributionChecked = entry.checked
        if entry.isTracker {
            info.company = entry.brand
            info.category = entry.category.rawValue
            info.owner = entry.company
            info.ownerCountry = entry.country
        } else {
            info.service = (entry.product.map { "\($0), " } ?? "") + "\(entry.brandAndCompany), \(entry.category.rawValue)"
        }
        return info
    }
}

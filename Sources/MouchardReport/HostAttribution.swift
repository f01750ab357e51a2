/// Who is behind a host, as the tracker directory and the first-party policy say: the summary asks
/// this for every destination (also those without findings) and every DNS/SNI-only host.
public struct HostAttribution: Sendable, Hashable, Codable {
    /// Company name (`Google`, `AppsFlyer`...), nil when the host is unknown.
    public var company: String?
    /// Tracker category: `advertising`, `analytics`, `attribution`...
    public var trackerCategory: String?
    public var thirdParty: Bool

    public init(company: String? = nil, trackerCategory: String? = nil, thirdParty: Bool) {
        self.company = company
        self.trackerCategory = trackerCategory
        self.thirdParty = thirdParty
    }

    /// Attribution from the first-party domains alone: a host equal to or under one of `firstParty`
    /// is first party, any other is a third party; no company is known.
    public static func byDomains(_ host: String, firstParty: [String]) -> HostAttribution {
        let h = host.lowercased()
        let first = firstParty.contains { d in
            let d = d.lowercased().trimmingPrefix(".")
            return !d.isEmpty && (h == d || h.hasSuffix("." + d))
        }
        return HostAttribution(thirdParty: !first)
    }
}

/// Looks up the attribution of a host (the CLI passes the tracker directory and first-party policy).
public typealias HostAttributor = @Sendable (String) -> HostAttribution

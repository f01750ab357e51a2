import MouchardFindings

extension FindingDestination {
    /// The destination of a finding, attributed: the tracker's company and category from the directory
    /// (nil for unknown hosts) and first/third party from the policy. The host is kept as given.
    public init(host: String, trackers: TrackerDirectory?, policy: FirstPartyPolicy) {
        let entry = trackers?.lookup(host: host).flatMap { $0.isTracker ? $0 : nil }
        self.init(host: host, tracker: entry?.brand, trackerCategory: entry?.category.rawValue,
                  thirdParty: policy.isThirdParty(host: host), owner: entry?.company)
    }
}

/// One domain of `Rules/trackers.json`: who runs it, what kind of tracker it is, and where we learned it.
public struct TrackerEntry: Sendable, Hashable {
    /// The domain as written in the file (lower case, no trailing dot); it matches itself and its subdomains.
    public var domain: String
    /// The company behind the domain, e.g. `Google`, `AppsFlyer`.
    public var company: String
    /// The SDK or service, e.g. `Firebase Crashlytics`; nil when the file does not say.
    public var product: String?
    public var category: TrackerCategory
    /// Where the fact comes from (the vendor's public documentation page that lists the hosts).
    public var source: String

    public init(domain: String, company: String, product: String? = nil, category: TrackerCategory, source: String) {
        self.domain = domain
        self.company = company
        self.product = product
        self.category = category
        self.source = source
    }
}

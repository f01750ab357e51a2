/// Who a destination host belongs to, as the tracker directory and the first-party policy say.
public struct DestinationInfo: Sendable, Hashable {
    /// The tracker's brand behind the host (nil when unknown or not a tracker), e.g. `Adjust`.
    public var company: String?
    /// `advertising`, `analytics`, `attribution`, `crash-reporting`, `push`, `social`, ...
    public var category: String?
    public var thirdParty: Bool
    /// The brand's company family (short name of its top owner), e.g. `AppLovin` for Adjust.
    public var owner: String?
    /// ISO 3166-1 alpha-2 country of the owner.
    public var ownerCountry: String?
    /// For infrastructure and platform hosts (CDN, cloud, OS services), which are not trackers: who runs
    /// them and what they are, e.g. `Amazon CloudFront, Amazon, infrastructure`. Nil otherwise.
    public var service: String?
    /// Why the host is first or third party (`PartyReason`), when the attributor knows.
    public var partyReason: String?
    /// How far the directory's attribution of the host was checked: `verified` (against its source) or
    /// `unverified` (named from knowledge); nil when the directory does not know the host.
    public var attributionBasis: String?
    /// The date (`YYYY-MM-DD`) a verified attribution was checked.
    public var attributionChecked: String?
    public init(company: String? = nil, category: String? = nil, thirdParty: Bool, owner: String? = nil,
                ownerCountry: String? = nil, service: String? = nil, partyReason: String? = nil,
                attributionBasis: String? = nil, attributionChecked: String? = nil) {
        self.company = company
        self.category = category
        self.thirdParty = thirdParty
        self.owner = owner
        self.ownerCountry = ownerCountry
        self.service = service
        self.partyReason = partyReason
        self.attributionBasis = attributionBasis
        self.attributionChecked = attributionChecked
    }
}

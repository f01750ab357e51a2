/// Who a destination host belongs to, as the tracker directory and the first-party policy say.
public struct DestinationInfo: Sendable, Hashable {
    /// Company behind the host (nil when unknown).
    public var company: String?
    /// `advertising`, `analytics`, `attribution`, `crash-reporting`, `push`, `social`, ...
    public var category: String?
    public var thirdParty: Bool
    public init(company: String? = nil, category: String? = nil, thirdParty: Bool) {
        self.company = company
        self.category = category
        self.thirdParty = thirdParty
    }
}

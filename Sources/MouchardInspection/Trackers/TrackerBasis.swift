/// How far an entry of the tracker directory can be defended (`basis` in `Rules/trackers.json`).
public enum TrackerBasis: String, Sendable, CaseIterable {
    /// The source (documentation page, privacy page or SDK code) was read and showed the domain in use by
    /// the brand, and the owner was confirmed; the entry carries the date and what was found.
    case verified
    /// The attribution and the source URL come from knowledge of the vendor's documentation and were not
    /// checked against a copy of it: plausible, not proven. Reports and `trackers lookup` say so.
    case unverified

    /// Shown next to an attribution: `verified 2026-12-02` or `unverified (source named from knowledge, not checked)`.
    public func label(checked: String?) -> String {
        switch self {
        case .verified: checked.map { "verified \($0)" } ?? "verified"
        case .unverified: "unverified (source named from knowledge, not checked)"
        }
    }
}

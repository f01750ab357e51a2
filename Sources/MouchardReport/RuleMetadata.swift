import MouchardFindings

/// What a report says about a detection rule (SARIF `reportingDescriptor`): the CLI fills it from
/// the rule files in Rules/; rules a finding names but no file describes get `RuleMetadata.derived`.
public struct RuleMetadata: Sendable, Hashable, Codable {
    /// `device-id.idfa`, `profile.email`...
    public var id: String
    /// PascalCase name, e.g. `DeviceIdIdfa`.
    public var name: String
    public var shortDescription: String
    public var fullDescription: String?
    /// How to fix or judge it (plain text).
    public var help: String
    /// Finding category: `device-id`, `location`...
    public var category: FindingCategory
    public var severity: Severity

    public init(id: String, name: String, shortDescription: String, fullDescription: String? = nil, help: String,
                category: FindingCategory, severity: Severity) {
        self.id = id
        self.name = name
        self.shortDescription = shortDescription
        self.fullDescription = fullDescription
        self.help = help
        self.category = category
        self.severity = severity
    }

    /// Metadata for a rule known only from a finding naming it.
    public static func derived(id: String, category: FindingCategory, type: String, severity: Severity?) -> RuleMetadata {
        let name = id.split(whereSeparator: { !$0.isLetter && !$0.isNumber }).map { $0.prefix(1).uppercased() + $0.dropFirst() }.joined()
        return RuleMetadata(
            id: id, name: name.isEmpty ? "Rule" : name,
            shortDescription: "The app sent \(CategoryNames.words(category)) (\(type)) off the device.",
            help: "Check whether this data must leave the device, whether the user consented, and whether the receiver needs it. "
                + "Send it only over TLS, to first parties, and prefer resettable or coarse values.",
            category: category, severity: severity ?? .medium)
    }

    /// SARIF level of a severity: high → error, medium → warning, low → note.
    public static func sarifLevel(_ severity: Severity?) -> String {
        switch severity {
        case .high: "error"
        case .low: "note"
        case .medium, nil: "warning"
        }
    }
}

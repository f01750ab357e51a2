import MouchardInspection
/// What the summary needs to know about how the audit was made (its methodology section):
/// inputs, capture source, device profile (masked), rules version, app and first-party domains.
/// It holds no captured traffic.
public struct AuditContext: Sendable, Hashable {
    public var toolName: String
    public var toolVersion: String
    /// Input paths as given on the command line.
    public var inputs: [String]
    /// One line naming where the traffic came from, e.g. `HAR file traffic.har` or `session ios-1 (SQLite)`.
    public var source: String
    /// The app under audit, when named (`--app`).
    public var app: String?
    /// Domains treated as first party (`--first-party`).
    public var firstPartyDomains: [String]
    /// Device profile name (`name` field), if any.
    public var deviceName: String?
    /// Profile values, already masked (`MaskedValue.mask`); empty without `--device`.
    public var deviceProfile: [MaskedValue]
    /// Version or digest of the rules used.
    public var rulesVersion: String
    /// What the inputs could not give (skipped HAR entries, undecoded frames, cut files...): one line
    /// per class of problem with its count, in input order.
    public var warnings: [String]

    public init(toolName: String = "mouchard", toolVersion: String, inputs: [String], source: String,
                app: String? = nil, firstPartyDomains: [String] = [], deviceName: String? = nil,
                deviceProfile: [MaskedValue] = [], rulesVersion: String = "unknown", warnings: [String] = []) {
        self.toolName = toolName
        self.toolVersion = toolVersion
        self.inputs = inputs
        self.source = source
        self.app = app
        self.firstPartyDomains = firstPartyDomains
        self.deviceName = deviceName
        self.deviceProfile = deviceProfile
        self.rulesVersion = rulesVersion
        self.warnings = warnings
    }
}

/// One device-profile value as the report may show it: its field name and a masked form.
public struct MaskedValue: Sendable, Hashable, Codable {
    /// `identifiers.idfa`, `owner.email`, `location`, `contacts`...
    public var field: String
    public var masked: String

    public init(field: String, masked: String) { self.field = field; self.masked = masked }

    /// Masks `value` for display (the inspector's evidence masking: never the full value).
    public static func mask(_ value: String) -> String { maskEvidence(value) }

    /// A masked entry for `field` holding `value`.
    public init(field: String, value: String) { self.init(field: field, masked: MaskedValue.mask(value)) }
}

import MouchardFindings

/// Findings of one category sent to one host, folded into patterns: the same data type found at the
/// same place with the same encoding counts once, with how often, when and an example request.
/// This is how the reports stay short when an SDK sends the same identifier ten thousand times.
public struct FindingGroup: Sendable, Hashable, Codable {
    public var category: FindingCategory
    public var host: String
    public var company: String?
    public var thirdParty: Bool
    public var findings: Int
    public var patterns: [FindingPattern]
    /// Patterns of this group left out by the caps.
    public var omittedPatterns: Int
}

/// One kind of leak repeated: type, where, encoding, and the occurrences folded into it.
public struct FindingPattern: Sendable, Hashable, Codable {
    public var type: String
    public var `where`: String
    public var encoding: String
    /// Masked evidence of the first occurrence.
    public var evidence: String
    public var rule: String
    public var severity: Severity?
    public var description: String?
    public var inner: String?
    /// Transports seen for this pattern (`http`, `https`, `tls-metadata`).
    public var transports: [String]
    public var occurrences: Int
    /// ISO 8601 times of the first and last occurrence, when known.
    public var firstSeen: String?
    public var lastSeen: String?
    /// Method and URL of the first occurrence (as sent; renderers escape and truncate it).
    public var exampleMethod: String
    public var exampleURL: String
    /// Flow id of the first occurrence.
    public var exampleFlow: Int?
}

/// How grave a finding is. The raw values are the words findings and rule files use.
public enum Severity: String, Sendable, Hashable, Codable, CaseIterable {
    case high, medium, low
}

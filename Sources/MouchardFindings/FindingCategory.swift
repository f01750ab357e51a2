/// The kind of personal data a finding is about.
///
/// The built-in cases have stable raw values: the words of the findings JSON (docs/findings.md), of
/// rule files and of `--fail-on`. A rule file may name a category of its own; it is kept as `other`,
/// with its word as raw value, so no finding is ever lost for a category this build does not know.
public enum FindingCategory: Sendable, Hashable {
    case deviceID
    case location
    case contacts
    case phoneNumber
    case email
    case name
    case credentials
    /// A category a rule file added (its word, never one of the built-in words).
    case other(String)

    /// The built-in categories, in the order reports list them.
    public static let builtIn: [FindingCategory] = [
        .deviceID, .location, .contacts, .phoneNumber, .email, .name, .credentials,
    ]

    /// Whether this is one of the built-in categories (the ones `--fail-on` knows).
    public var isBuiltIn: Bool {
        if case .other = self { return false }
        return true
    }
}

extension FindingCategory: RawRepresentable {
    /// Any word is a category: a built-in word gives its case, any other word `other`.
    public init(rawValue: String) {
        switch rawValue {
        case "device-id": self = .deviceID
        case "location": self = .location
        case "contacts": self = .contacts
        case "phone-number": self = .phoneNumber
        case "email": self = .email
        case "name": self = .name
        case "credentials": self = .credentials
        default: self = .other(rawValue)
        }
    }

    public var rawValue: String {
        switch self {
        case .deviceID: "device-id"
        case .location: "location"
        case .contacts: "contacts"
        case .phoneNumber: "phone-number"
        case .email: "email"
        case .name: "name"
        case .credentials: "credentials"
        case .other(let word): word
        }
    }
}

extension FindingCategory: Codable {
    public init(from decoder: any Decoder) throws {
        self.init(rawValue: try decoder.singleValueContainer().decode(String.self))
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(rawValue)
    }
}

extension FindingCategory: Comparable {
    /// Report order: the built-in categories first, in `builtIn` order, then the others by word.
    public static func < (a: FindingCategory, b: FindingCategory) -> Bool {
        let ia = builtIn.firstIndex(of: a) ?? builtIn.count
        let ib = builtIn.firstIndex(of: b) ?? builtIn.count
        return ia != ib ? ia < ib : a.rawValue < b.rawValue
    }
}

extension FindingCategory: CustomStringConvertible {
    public var description: String { rawValue }
}

import MouchardFindings

/// Plain-words names of finding categories, for reports.
public enum CategoryNames {
    /// Words for a non-engineer: `device-id` → `device identifiers`.
    public static func words(_ category: FindingCategory) -> String {
        switch category {
        case .deviceID: "device identifiers"
        case .location: "precise location"
        case .contacts: "address-book contacts"
        case .phoneNumber: "phone number"
        case .email: "e-mail address"
        case .name: "name"
        case .credentials: "credentials"
        case .other(let word): VisibleText.shown(word, limit: 60)
        }
    }

    /// Short title for headings and table columns: `device-id` → `Device IDs`.
    public static func title(_ category: FindingCategory) -> String {
        switch category {
        case .deviceID: "Device IDs"
        case .location: "Location"
        case .contacts: "Contacts"
        case .phoneNumber: "Phone number"
        case .email: "E-mail"
        case .name: "Name"
        case .credentials: "Credentials"
        case .other(let word): VisibleText.shown(word, limit: 60)
        }
    }

    /// Categories in report order (`FindingCategory`'s order), each once.
    public static func sorted<S: Sequence>(_ categories: S) -> [FindingCategory] where S.Element == FindingCategory {
        Array(Set(categories)).sorted()
    }

    /// `a`, `a and b`, `a, b and c`.
    public static func list(_ items: [String]) -> String {
        switch items.count {
        case 0: ""
        case 1: items[0]
        default: items.dropLast().joined(separator: ", ") + " and " + items[items.count - 1]
        }
    }
}

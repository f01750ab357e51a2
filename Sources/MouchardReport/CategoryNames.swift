/// Report order and plain-words names of finding categories.
public enum CategoryNames {
    /// The built-in categories (docs/findings.md) in the order reports list them.
    public static let order = ["device-id", "location", "contacts", "phone-number", "email", "name", "credentials"]

    /// Words for a non-engineer: `device-id` → `device identifiers`.
    public static func words(_ category: String) -> String {
        switch category {
        case "device-id": "device identifiers"
        case "location": "precise location"
        case "contacts": "address-book contacts"
        case "phone-number": "phone number"
        case "email": "e-mail address"
        case "name": "name"
        case "credentials": "credentials"
        default: VisibleText.shown(category, limit: 60)
        }
    }

    /// Short title for headings and table columns: `device-id` → `Device IDs`.
    public static func title(_ category: String) -> String {
        switch category {
        case "device-id": "Device IDs"
        case "location": "Location"
        case "contacts": "Contacts"
        case "phone-number": "Phone number"
        case "email": "E-mail"
        case "name": "Name"
        case "credentials": "Credentials"
        default: VisibleText.shown(category, limit: 60)
        }
    }

    /// Sorts categories in report order, unknown ones after, alphabetically.
    public static func sorted<S: Sequence>(_ categories: S) -> [String] where S.Element == String {
        Array(Set(categories)).sorted { a, b in
            let ia = order.firstIndex(of: a) ?? order.count
            let ib = order.firstIndex(of: b) ?? order.count
            return ia != ib ? ia < ib : a < b
        }
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

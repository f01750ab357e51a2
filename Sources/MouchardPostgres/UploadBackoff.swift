/// When the uploader tries the fleet store again after a failure: at once after the first, then
/// waits doubling from `first` up to `limit` seconds; reset by a success.
struct UploadBackoff: Sendable, Hashable {
    static let first = 0.25
    static let limit = 5.0

    private(set) var failures = 0

    /// Seconds to wait before the next try.
    var delay: Double {
        failures <= 1 ? 0 : min(Self.limit, Self.first * Double(1 << min(failures - 2, 16)))
    }

    mutating func failed() { failures += 1 }
    mutating func succeeded() { failures = 0 }
}

extension StoreErrorKind {
    /// What the uploader does after an error: try again (the database is away, busy, or a
    /// transaction was chosen as a deadlock victim), or stop (the data or the schema is refused, and
    /// trying again would fail the same way).
    static func classify(_ sqlState: String?) -> StoreErrorKind {
        guard let s = sqlState else { return .permanent }
        if s.hasPrefix("08") || s.hasPrefix("57P") || s.hasPrefix("40") || s.hasPrefix("53") || s == "55P03" || s == "57014" {
            return .transient
        }
        return .permanent
    }
}

/// Whether an upload error is worth another try.
enum StoreErrorKind: Sendable, Hashable {
    case transient
    case permanent
}

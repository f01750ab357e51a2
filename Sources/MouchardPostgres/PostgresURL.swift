import Foundation

/// The `--store` value: a PostgreSQL URL (`postgresql://` or `postgres://`, as libpq reads them).
public enum PostgresURL {
    public static let schemes = ["postgresql://", "postgres://"]

    /// True when `text` names a PostgreSQL database rather than a local folder.
    public static func isPostgres(_ text: String) -> Bool {
        schemes.contains { text.lowercased().hasPrefix($0) }
    }

    /// The URL (of any scheme: a wrong one is shown in errors too) with its password, in the user
    /// part or a `password=` parameter, replaced by `***`, for messages and logs.
    public static func masked(_ url: String) -> String {
        var text = url
        if let schemeEnd = text.range(of: "://") {
            let scheme = text[..<schemeEnd.upperBound]
            let rest = text[schemeEnd.upperBound...]
            let authorityEnd = rest.firstIndex(where: { $0 == "/" || $0 == "?" }) ?? rest.endIndex
            let authority = rest[..<authorityEnd]
            if let at = authority.lastIndex(of: "@"), let colon = authority[..<at].firstIndex(of: ":") {
                text = String(scheme) + rest[..<colon] + ":***" + rest[at...]
            }
        }
        // password=... in the query string or a key=value connection string.
        var out = ""
        var remaining = Substring(text)
        while let r = remaining.range(of: "password=", options: .caseInsensitive) {
            let before = remaining[..<r.lowerBound]
            let isParameterStart = before.isEmpty || [" ", "?", "&"].contains(before.last!)
            out += remaining[..<r.upperBound]
            remaining = remaining[r.upperBound...]
            guard isParameterStart else { continue }
            let end = remaining.firstIndex(where: { $0 == "&" || $0 == " " }) ?? remaining.endIndex
            out += "***"
            remaining = remaining[end...]
        }
        return out + remaining
    }
}

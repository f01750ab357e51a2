/// A request URL as the human-facing reports show it: scheme, host, path and query keys stay
/// readable, but every query value and every identifier-like path segment is masked, so a report
/// never repeats a full identifier that the app put in a URL (the evidence column says what leaked).
///
/// The machine-readable findings JSON keeps the URL exactly as sent (the findings contract); reports,
/// SARIF and the proxy's flow log show this form.
public enum MaskedURL {
    /// `http://t.example/v1/u/6D92078A-8246-4BA4-AE5B-76104861E7DC?idfa=6D92…&n=3`
    /// → `http://t.example/v1/u/6D92…E7DC?idfa=6D92…E7DC&n=•`.
    public static func display(_ url: String) -> String {
        var rest = Substring(url)
        var out = ""
        if let schemeEnd = rest.range(of: "://") {
            let authorityStart = schemeEnd.upperBound
            let authorityEnd = rest[authorityStart...].firstIndex(where: { $0 == "/" || $0 == "?" || $0 == "#" })
                ?? rest.endIndex
            out += rest[..<authorityEnd]
            rest = rest[authorityEnd...]
        }
        let queryStart = rest.firstIndex(of: "?")
        let path = rest[..<(queryStart ?? rest.endIndex)]
        out += path.split(separator: "/", omittingEmptySubsequences: false)
            .map { looksLikeIdentifier($0) ? maskEvidence(String($0)) : String($0) }
            .joined(separator: "/")
        guard let q = queryStart else { return out }
        out += "?"
        let query = rest[rest.index(after: q)...]
        out += query.split(separator: "&", omittingEmptySubsequences: false).map { pair -> String in
            guard let eq = pair.firstIndex(of: "=") else { return String(pair) }
            let value = pair[pair.index(after: eq)...]
            return value.isEmpty ? String(pair) : String(pair[...eq]) + maskEvidence(String(value))
        }.joined(separator: "&")
        return out
    }

    /// A path segment worth masking: long, and made of identifier characters with digits in it
    /// (UUIDs, hex digests, base64 tokens), unlike words such as `envelope` or `v1`.
    static func looksLikeIdentifier(_ segment: Substring) -> Bool {
        guard segment.count >= 12 else { return false }
        var digits = 0
        for ch in segment.unicodeScalars {
            if ch.properties.numericType != nil { digits += 1; continue }
            if ch.isASCII, ch.properties.isAlphabetic || "-_.%=+:@".unicodeScalars.contains(ch) { continue }
            return false
        }
        return digits >= 3
    }
}

/// Masks a captured value for display: enough to recognise it, never the whole secret.
/// `6D92078A-8246-4BA4-AE5B-76104861E7DC` → `6D92…E7DC`; short values keep at most a quarter.
public func maskEvidence(_ value: String) -> String {
    let chars = Array(value.replacingOccurrences(of: "\n", with: " "))
    let n = chars.count
    if n <= 4 { return String(repeating: "•", count: n) }
    let keep = n >= 16 ? 4 : max(1, n / 4)
    return String(chars.prefix(keep)) + "…" + String(chars.suffix(keep))
}

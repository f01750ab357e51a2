/// Masks a captured value for display: enough to recognise it, never the whole secret.
/// `6D92078A-8246-4BA4-AE5B-76104861E7DC` → `6D92…E7DC`; short values keep at most a quarter.
public func maskEvidence(_ value: String) -> String {
    if let masked = value.utf8.withContiguousStorageIfAvailable({ maskASCII($0) }), let ascii = masked { return ascii }
    let chars = Array(value.unicodeScalars.map { $0 == "\n" || $0 == "\r" ? " " : $0 })
    let n = chars.count
    if n <= 4 { return String(repeating: "•", count: n) }
    let keep = n >= 16 ? 4 : max(1, n / 4)
    var out = String.UnicodeScalarView()
    out.append(contentsOf: chars.prefix(keep))
    out.append("…")
    out.append(contentsOf: chars.suffix(keep))
    return String(out)
}

/// `maskEvidence` for pure ASCII text (nearly all evidence), on bytes: one scalar per byte.
private func maskASCII(_ bytes: UnsafeBufferPointer<UInt8>) -> String? {
    let n = bytes.count
    guard n > 4 else { return nil }
    for b in bytes where b >= 0x80 { return nil }
    let keep = n >= 16 ? 4 : max(1, n / 4)
    return String(unsafeUninitializedCapacity: 2 * keep + 3) { out in
        guard let to = out.baseAddress, let from = bytes.baseAddress else { return 0 }
        for i in 0..<keep { to[i] = shownASCII(from[i]) }
        to[keep] = 0xE2; to[keep + 1] = 0x80; to[keep + 2] = 0xA6 // …
        for i in 0..<keep { to[keep + 3 + i] = shownASCII(from[n - keep + i]) }
        return 2 * keep + 3
    }
}

/// A masked byte as shown: line breaks become spaces (evidence stays on one line).
@inline(__always)
private func shownASCII(_ b: UInt8) -> UInt8 { b == 0x0A || b == 0x0D ? 0x20 : b }

/// `haystack` holds one of `needles` (lower-case ASCII) ignoring ASCII case; non-ASCII bytes
/// compare as is. Only bytes that can start a needle are looked at further.
/// The span scan uses it for password keys in a cleartext body or target, the credential detector
/// for the keys of fields.
func containsAnyFolded(_ haystack: ArraySlice<UInt8>, _ needles: [String]) -> Bool {
    haystack.withUnsafeBufferPointer { containsAnyFolded($0, needles) }
}

func containsAnyFolded(_ h: UnsafeBufferPointer<UInt8>, _ needles: [String]) -> Bool {
    if needles.contains(where: { $0.isEmpty }) { return true }
    return withUnsafeTemporaryAllocation(of: UInt64.self, capacity: 8) { masks in
        // Bit b of the first 4 words: byte b can start a needle (a folded haystack byte is never
        // an upper-case letter); of the last 4: folded byte b can come second (all bits when a
        // needle has one byte).
        masks.initialize(repeating: 0)
        for needle in needles {
            var bytes = needle.utf8.makeIterator()
            let f = bytes.next()!
            if f >= 0x41 && f <= 0x5A { continue }
            masks[Int(f >> 6)] |= 1 << UInt64(f & 63)
            if f >= 0x61 && f <= 0x7A { masks[Int((f - 0x20) >> 6)] |= 1 << UInt64((f - 0x20) & 63) }
            if let second = bytes.next() {
                masks[4 + Int(second >> 6)] |= 1 << UInt64(second & 63)
            } else {
                for k in 4..<8 { masks[k] = ~0 }
            }
        }
        guard let hp = h.baseAddress, let m = masks.baseAddress else { return false }
        let n = h.count
        var i = 0
        while i < n {
            let b = hp[i]
            if (m[Int(b >> 6)] >> UInt64(b & 63)) & 1 != 0 {
                let c = i + 1 < n ? foldASCII(hp[i + 1]) : 0
                if (i + 1 == n || (m[4 + Int(c >> 6)] >> UInt64(c & 63)) & 1 != 0), matchesAnyFolded(h, at: i, needles) { return true }
            }
            i += 1
        }
        return false
    }
}

/// One of `needles` starts at `h[i]`, ignoring ASCII case.
private func matchesAnyFolded(_ h: UnsafeBufferPointer<UInt8>, at i: Int, _ needles: [String]) -> Bool {
    for needle in needles where needle.utf8.count <= h.count - i {
        var k = i
        var same = true
        for c in needle.utf8 {
            if foldASCII(h[k]) != c { same = false; break }
            k += 1
        }
        if same { return true }
    }
    return false
}

/// `haystack` holds one of `needles` (lower-case ASCII) ignoring ASCII case; non-ASCII bytes
/// compare as is. Only bytes that can start a needle are looked at further.
/// The span scan uses it for password keys in a cleartext body or target (through a
/// `FoldedKeySearch` built once per inspector), the credential detector for the keys of fields.
func containsAnyFolded(_ haystack: ArraySlice<UInt8>, _ needles: [String]) -> Bool {
    haystack.withUnsafeBufferPointer { containsAnyFolded($0, needles) }
}

func containsAnyFolded(_ h: UnsafeBufferPointer<UInt8>, _ needles: [String]) -> Bool {
    FoldedKeySearch(needles).isFound(in: h)
}

/// Needles for `containsAnyFolded`, read once: which bytes can start one and come second (bit
/// sets) and an 8-bytes-at-a-time skip over text where none can start. Nothing is allocated:
/// made per call for a field's key, once per inspector for bodies and targets.
struct FoldedKeySearch: Sendable {
    private let needles: [String]
    /// Bit b of the first 4 words: byte b can start a needle (a folded haystack byte is never an
    /// upper-case letter); of the last 4: folded byte b can come second (all bits when a needle
    /// has one byte).
    private var masks: (UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0, 0, 0, 0, 0)
    private var skip = ChunkSkip()
    /// Some needle is empty: every haystack holds it.
    private var always = false

    init(_ needles: [String]) {
        self.needles = needles
        withUnsafeMutableBytes(of: &masks) { raw in
            let m = raw.bindMemory(to: UInt64.self)
            for needle in needles {
                var bytes = needle.utf8.makeIterator()
                guard let f = bytes.next() else { always = true; continue }
                if f >= 0x41 && f <= 0x5A { continue }
                m[Int(f >> 6)] |= 1 << UInt64(f & 63)
                if f >= 0x61 && f <= 0x7A { m[Int((f - 0x20) >> 6)] |= 1 << UInt64((f - 0x20) & 63) }
                if let second = bytes.next() {
                    m[4 + Int(second >> 6)] |= 1 << UInt64(second & 63)
                } else {
                    for k in 4..<8 { m[k] = ~0 }
                }
                skip.add(f)
            }
        }
    }

    func isFound(in haystack: ArraySlice<UInt8>) -> Bool {
        haystack.withUnsafeBufferPointer { isFound(in: $0) }
    }

    func isFound(in h: UnsafeBufferPointer<UInt8>) -> Bool {
        if always { return true }
        guard let hp = h.baseAddress else { return false }
        let skip = skip
        return withUnsafeBytes(of: masks) { raw in
            let m = raw.bindMemory(to: UInt64.self)
            let n = h.count
            var i = 0
            while i < n {
                // 8 bytes at a time while none of them can start a needle.
                if skip.usable, i + 8 <= n, !skip.mayStart(UnsafeRawPointer(hp + i).loadUnaligned(as: UInt64.self)) { i += 8; continue }
                let b = hp[i]
                if (m[Int(b >> 6)] >> UInt64(b & 63)) & 1 != 0 {
                    let c = i + 1 < n ? foldASCII(hp[i + 1]) : 0
                    if (i + 1 == n || (m[4 + Int(c >> 6)] >> UInt64(c & 63)) & 1 != 0), matchesAny(h, at: i) { return true }
                }
                i += 1
            }
            return false
        }
    }

    /// One of the needles starts at `h[i]`, ignoring ASCII case.
    private func matchesAny(_ h: UnsafeBufferPointer<UInt8>, at i: Int) -> Bool {
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
}

/// The bytes that can start a needle (their ASCII letters in either case), tested 8 at a time:
/// `mayStart` is false only when no byte of the word can. Up to 4 distinct first bytes; past
/// that it is not `usable`.
private struct ChunkSkip: Sendable {
    static let ones: UInt64 = 0x0101_0101_0101_0101
    static let highs: UInt64 = 0x8080_8080_8080_8080
    /// Each first byte `| 0x20` repeated in every byte of a word (`count` of them are set).
    var targets: (UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0)
    var count = 0

    var usable: Bool { count > 0 && count <= 4 }

    /// One more first byte (not an upper-case letter).
    mutating func add(_ f: UInt8) {
        let t = UInt64(f | 0x20) &* Self.ones
        if (count > 0 && targets.0 == t) || (count > 1 && targets.1 == t) || (count > 2 && targets.2 == t) || (count > 3 && targets.3 == t) {
            return
        }
        switch count {
        case 0: targets.0 = t
        case 1: targets.1 = t
        case 2: targets.2 = t
        case 3: targets.3 = t
        default: break
        }
        count += 1
    }

    /// Some byte of `x`, `| 0x20`, is a first byte `| 0x20` (a superset of the bytes that can start a needle).
    @inline(__always)
    func mayStart(_ x: UInt64) -> Bool {
        let y = x | 0x2020_2020_2020_2020
        var hit: UInt64 = 0
        if count > 0 { let z = y ^ targets.0; hit |= (z &- Self.ones) & ~z }
        if count > 1 { let z = y ^ targets.1; hit |= (z &- Self.ones) & ~z }
        if count > 2 { let z = y ^ targets.2; hit |= (z &- Self.ones) & ~z }
        if count > 3 { let z = y ^ targets.3; hit |= (z &- Self.ones) & ~z }
        return hit & Self.highs != 0
    }
}

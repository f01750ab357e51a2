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
/// sets), an 8-bytes-at-a-time skip over text where none can start, or where none of the bytes
/// that can start one is followed by one that can come second, and the needles' bytes in one
/// buffer. Nothing is allocated per search: made per call for a field's key, once per inspector
/// for bodies and targets.
struct FoldedKeySearch: Sendable {
    /// Each needle's bytes after its length (two bytes, little-endian), one after the other.
    private let packed: [UInt8]
    /// Bytes that can start a needle (a folded haystack byte is never an upper-case letter).
    private var firsts = ByteSet()
    /// Folded bytes that can come second (all of them when a needle has one byte).
    private var seconds = ByteSet()
    /// First bytes, then second bytes (`| 0x20`), 8 at a time.
    private var skip = ChunkSkip()
    private var secondSkip = ChunkSkip()
    /// Some needle is empty: every haystack holds it.
    private var always = false
    /// The needles' first two bytes as 1,024 bits (`pairBit`; every second byte after a needle of
    /// one byte): a candidate whose two bytes have no bit is no needle's start.
    private var pairs = [UInt64](repeating: 0, count: 16)

    init(_ needles: [String]) {
        var packed: [UInt8] = []
        for needle in needles {
            let bytes = Array(needle.utf8)
            guard let f = bytes.first else { always = true; continue }
            // A needle longer than 65,535 bytes or starting with an upper-case letter is never found.
            if f >= 0x41 && f <= 0x5A || bytes.count > 0xFFFF { continue }
            packed += [UInt8(bytes.count & 0xFF), UInt8(bytes.count >> 8)] + bytes
            firsts.insert(f)
            if f >= 0x61 && f <= 0x7A { firsts.insert(f - 0x20) }
            skip.add(f)
            if bytes.count > 1 {
                seconds.insert(bytes[1])
                secondSkip.add(bytes[1])
                let bit = Self.pairBit(f, bytes[1])
                pairs[bit >> 6] |= 1 << UInt64(bit & 63)
            } else {
                seconds = ByteSet(all: true)
                secondSkip.disable()
                for second in 0..<32 {
                    let bit = Self.pairBit(f, UInt8(second))
                    pairs[bit >> 6] |= 1 << UInt64(bit & 63)
                }
            }
        }
        self.packed = packed
    }

    func isFound(in haystack: ArraySlice<UInt8>) -> Bool {
        haystack.withUnsafeBufferPointer { isFound(in: $0) }
    }

    func isFound(in h: UnsafeBufferPointer<UInt8>) -> Bool {
        if always { return true }
        guard let hp = h.baseAddress, !packed.isEmpty else { return false }
        let n = h.count
        let skip = skip, secondSkip = secondSkip
        let chunked = skip.usable, paired = secondSkip.usable
        return pairs.withUnsafeBufferPointer { pairs in
            var i = 0
            while i < n {
                // 8 bytes at a time while none of them can start a needle, or none that can is
                // followed by a byte that can come second (the 8 bytes after, read one byte on).
                if chunked, i + 8 <= n {
                    let x = UnsafeRawPointer(hp + i).loadUnaligned(as: UInt64.self)
                    let starts = skip.mayStartBits(x)
                    if starts == 0 { i += 8; continue }
                    if paired, i + 9 <= n {
                        // Only the bytes whose bit is left can start a needle: each is looked at,
                        // with the byte after it (`pairs`).
                        var left = starts & secondSkip.mayStartBits(UnsafeRawPointer(hp + i + 1).loadUnaligned(as: UInt64.self))
                        while left != 0 {
                            let j = i + left.trailingZeroBitCount / 8
                            let bit = Self.pairBit(hp[j], hp[j + 1])
                            if pairs[bit >> 6] >> UInt64(bit & 63) & 1 != 0, firsts.contains(hp[j]), matchesAny(h, at: j) { return true }
                            left &= left &- 1
                        }
                        i += 8
                        continue
                    }
                }
                if firsts.contains(hp[i]), i + 1 == n || seconds.contains(foldASCII(hp[i + 1])), matchesAny(h, at: i) { return true }
                i += 1
            }
            return false
        }
    }

    /// The bit of `pairs` for a first and a second byte: their low five bits after `| 0x20`, the
    /// same for both ASCII cases of a letter (and for a few other bytes: a candidate is checked
    /// whole after).
    @inline(__always)
    private static func pairBit(_ first: UInt8, _ second: UInt8) -> Int {
        Int((first | 0x20) & 31) << 5 | Int((second | 0x20) & 31)
    }

    /// One of the needles starts at `h[i]`, ignoring ASCII case.
    private func matchesAny(_ h: UnsafeBufferPointer<UInt8>, at i: Int) -> Bool {
        packed.withUnsafeBufferPointer { needles in
            var k = 0
            while k + 2 <= needles.count {
                let length = Int(needles[k]) | Int(needles[k + 1]) << 8
                let start = k + 2
                k = start + length
                guard length <= h.count - i else { continue }
                var j = 0
                while j < length, foldASCII(h[i + j]) == needles[start + j] { j += 1 }
                if j == length { return true }
            }
            return false
        }
    }
}

/// A set of bytes, 256 bits.
private struct ByteSet: Sendable {
    var words: (UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0)

    init(all: Bool = false) {
        if all { words = (~0, ~0, ~0, ~0) }
    }

    mutating func insert(_ b: UInt8) {
        let bit: UInt64 = 1 << UInt64(b & 63)
        switch b >> 6 {
        case 0: words.0 |= bit
        case 1: words.1 |= bit
        case 2: words.2 |= bit
        default: words.3 |= bit
        }
    }

    @inline(__always)
    func contains(_ b: UInt8) -> Bool {
        let w: UInt64
        switch b >> 6 {
        case 0: w = words.0
        case 1: w = words.1
        case 2: w = words.2
        default: w = words.3
        }
        return (w >> UInt64(b & 63)) & 1 != 0
    }
}

/// Bytes looked for (the bytes that can start a needle, or come second; their ASCII letters in
/// either case), tested 8 at a time: `mayStartBits` is 0 only when no byte of the word can be
/// one. Up to 4 distinct bytes; past that it is not `usable`.
private struct ChunkSkip: Sendable {
    static let ones: UInt64 = 0x0101_0101_0101_0101
    static let highs: UInt64 = 0x8080_8080_8080_8080
    /// Each first byte `| 0x20` repeated in every byte of a word (`count` of them are set).
    var targets: (UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0)
    var count = 0

    var usable: Bool { count > 0 && count <= 4 }

    /// One more byte looked for.
    mutating func add(_ f: UInt8) {
        guard count <= 4 else { return }
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

    /// No byte is looked for any more: not `usable`.
    mutating func disable() { count = 5 }

    /// The high bit of each byte of `x` that, `| 0x20`, may be a wanted byte `| 0x20` (a
    /// superset: a byte above a wanted one may show too); 0 when none is.
    @inline(__always)
    func mayStartBits(_ x: UInt64) -> UInt64 {
        let y = x | 0x2020_2020_2020_2020
        var hit: UInt64 = 0
        if count > 0 { let z = y ^ targets.0; hit |= (z &- Self.ones) & ~z }
        if count > 1 { let z = y ^ targets.1; hit |= (z &- Self.ones) & ~z }
        if count > 2 { let z = y ^ targets.2; hit |= (z &- Self.ones) & ~z }
        if count > 3 { let z = y ^ targets.3; hit |= (z &- Self.ones) & ~z }
        return hit & Self.highs
    }
}

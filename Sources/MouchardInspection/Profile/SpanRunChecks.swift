import MouchardWire

extension KnownValueMatcher {
    /// The span scan's automaton: the variants, and each name part that an ASCII word can be
    /// (`nameWord` patterns: whole words, any ASCII case). A word is a span when it is a part
    /// (`namePartWord`); for a word of ASCII bytes that is exactly a match of one of these (a
    /// part whose first byte is below `A` or that holds a byte no word holds is no word, and a
    /// part that is not ASCII only equals words that are not, read by the `nameWord` lane), so the scan
    /// needs no event per word.
    ///
    /// Last come the decimal points that may end the integer part of a latitude near the
    /// profile's (`coordinateDotPatterns`): a match is read by `nearCoordinate` (see `matched`),
    /// and no other `.` has anything to do.
    static func spanMatcher(variants: [MultiPatternMatcher.Pattern], nameParts: [String], latitude: Double?,
                            narrow: Bool = true) -> MultiPatternMatcher {
        var patterns = variants
        for part in nameParts {
            let bytes = Array(part.utf8)
            guard let first = bytes.first, first >= 0x41, bytes.allSatisfy({ $0 < 0x80 && isNameWordByte($0) }) else { continue }
            patterns.append(.init(bytes: bytes, caseSensitive: false, wordBoundary: false, nameWord: true))
        }
        for dot in coordinateDotPatterns(latitude: latitude) {
            patterns.append(.init(bytes: dot, caseSensitive: false, wordBoundary: false))
        }
        return MultiPatternMatcher(patterns: patterns, narrow: narrow)
    }

    /// The decimal points `nearCoordinate` may read a number near `latitude` around: an integer
    /// part `m`, written without leading zeros, then `.`, for each integer that its first test
    /// lets through (`mayBeLatitudeIntegerPart`, 0 to 999; no pattern when
    /// the latitude is not finite, where the test lets none through). Proof that a `.` matching
    /// none of these gets nil from `nearCoordinate`: it returns a number only with a digit
    /// before the dot and 1 to 3 integer digits there, and only when their value `m` passes that
    /// test; those digits are `m` with leading zeros or none, so they end with `m`'s decimal
    /// writing, and the dot ends a match of `m.`. The interval is 1.2 wide: two integers at most,
    /// consecutive, and neither's writing ends the other's, so at most one pattern ends at a dot.
    static func coordinateDotPatterns(latitude: Double?) -> [[UInt8]] {
        guard let latitude, latitude.isFinite else { return [] }
        let low = abs(latitude) - 1.1, high = abs(latitude) + 0.1
        guard high > 0, low < 999 else { return [] }
        let first = max(0, Int(low.rounded(.down))), last = min(999, Int(high.rounded(.up)))
        guard first <= last else { return [] }
        return (first...last).filter { mayBeLatitudeIntegerPart(Double($0), of: latitude) }.map { Array("\($0).".utf8) }
    }

    /// `m` may be the integer part of a number within 0.05 of `latitude` (read with its sign
    /// apart): `m` within (|latitude| − 1.1, |latitude| + 0.1), a little wider than needed. The
    /// test of `nearCoordinate`, and what `coordinateDotPatterns` makes patterns of.
    static func mayBeLatitudeIntegerPart(_ m: Double, of latitude: Double) -> Bool {
        m > abs(latitude) - 1.1 && m < abs(latitude) + 0.1
    }

    /// A byte with a check of its own: JSON escapes, percent-escapes, compression magic, degree signs (decimal
    /// points near the latitude are the automaton's, see `coordinateDotPatterns`).
    func checkByte(_ p: UnsafeBufferPointer<UInt8>, at i: Int, base: Int, into out: inout [Range<Int>]) {
        let n = p.count
        let b = p[i]
        switch b {
        case 0x5C: out.appendSpan((base + i)..<(base + i + 1)) // JSON escapes (\u00e9, \/)
        case 0x25:
            if i + 2 < n, hexNibble(p[i + 1]) != nil, hexNibble(p[i + 2]) != nil { out.appendSpan((base + i)..<(base + i + 3)) }
        case 0x8B, 0x01, 0x5E, 0x9C, 0xDA:
            // Compressed data (gzip, zlib) inside a value: the walk inflates it. The magic is
            // checked at its second byte, rarer in text than `x`.
            if i > 0 {
                let first = p[i - 1]
                if (b == 0x8B && first == 0x1F) || (b != 0x8B && first == 0x78) { out.appendSpan((base + i - 1)..<(base + i + 1)) }
            }
        case 0xB0, 0xBA:
            // A degree sign: the walk reads degrees-minutes-seconds around it (`MarkedCoordinates`).
            if i > 0, p[i - 1] == 0xC2 { out.appendSpan((base + i - 1)..<(base + i + 1)) }
        default: break
        }
    }

    /// A stretch of digits and phone separators `p[s..<e]` (nothing of the kind around it) ended:
    /// the phone-like runs `phoneRuns` reads in it, and its digit runs of 6 to 11 digits that are
    /// fixed-point coordinates near the profile's. Reading the stretch alone gives the runs of
    /// reading the whole part: a run holds only stretch bytes, and the reading at the stretch's
    /// first byte depends only on the byte before it (after a letter, digits are skipped whether
    /// the reading was skipping a letter-and-digit run or not; after anything else it is idle).
    ///
    /// In a request target (`splitsAtSlash`) the walk reads each path segment alone: a phone
    /// number may end at a `/` that, read in the whole stretch, runs into the next segment. There
    /// the pieces between slashes are read too.
    func phoneStretchEnded(_ p: UnsafeBufferPointer<UInt8>, _ s: Int, _ e: Int, base: Int, splitsAtSlash: Bool = false,
                           into out: inout [Range<Int>]) {
        // Its digit runs: fixed-point coordinates of 6 to 11 digits (read only at those lengths).
        guard let h = p.baseAddress, s >= 0, e <= p.count else { return }
        let loc = location
        var digits = 0
        var k = s
        while k < e {
            guard h[k] &- 0x30 <= 9 else { k += 1; continue }
            let d = k
            k = Self.digitRunEnd(h, from: k + 1, to: e, count: p.count)
            digits += k - d
            if k - d >= 6, k - d <= 11, let loc {
                var v = 0
                for j in d..<k { v = v &* 10 &+ Int(h[j] &- 0x30) }
                if nearScaled(Double(v), loc) { out.appendSpan((base + d)..<(base + k)) }
            }
        }
        // A phone-like run has 8 digits and a separator.
        if !phoneDigits.isEmpty, digits >= 8, digits < e - s {
            phoneRuns(p, from: s, to: e) { start, last, _ in out.appendSpan((base + start)..<(base + last + 1)) }
            if splitsAtSlash {
                var a = s
                while a < e {
                    var b = a
                    while b < e, h[b] != 0x2F { b += 1 }
                    if b < e || a > s {
                        let piece = UnsafeBufferPointer(rebasing: p[a..<b])
                        phoneRuns(piece) { start, last, _ in out.appendSpan((base + a + start)..<(base + a + last + 1)) }
                    }
                    a = b + 1
                }
            }
        }
    }

    /// Every byte of `x` is an ASCII digit: none has its high bit, none is `:` or above (adding
    /// 0x46 sets the high bit), none is below `0` (taking 0x30 from it with the high bit set
    /// clears the high bit).
    @inline(__always)
    static func allDigits(_ x: UInt64) -> Bool { nonDigitBytes(x) == 0 }

    /// The high bit of the first byte of `x` (in memory order) that is not an ASCII digit, and of
    /// no byte before it (bytes after it may have theirs or not: a carry from it may reach them);
    /// 0 when all eight are digits (see `allDigits`).
    @inline(__always)
    static func nonDigitBytes(_ x: UInt64) -> UInt64 {
        let ones: UInt64 = 0x0101_0101_0101_0101, highs: UInt64 = 0x8080_8080_8080_8080
        let aboveNine = (x &+ 0x46 &* ones) & highs
        let belowZero = ~((x | highs) &- 0x30 &* ones) & highs
        return (x & highs) | aboveNine | belowZero
    }

    /// The first index from `k` on, up to `e`, whose byte is not an ASCII digit (`e` when there is
    /// none): 8 bytes at a time while the `n` bytes at `h` have 8 more (timestamps, ids).
    @inline(__always)
    static func digitRunEnd(_ h: UnsafePointer<UInt8>, from k: Int, to e: Int, count n: Int) -> Int {
        var k = k
        while k < e, k + 8 <= n {
            let other = nonDigitBytes(UnsafeRawPointer(h + k).loadUnaligned(as: UInt64.self))
            if other != 0 { return min(e, k + other.trailingZeroBitCount / 8) }
            k += 8
        }
        while k < e && h[k] &- 0x30 <= 9 { k += 1 }
        return min(k, e)
    }

    /// The span scan's reading of a name-like word (what the scan does without calling it: ASCII
    /// words are `spanMatcher` patterns, words with other bytes count at a part's length): the
    /// word `p[s..<e]` is (folded) a part of a profile name; non-ASCII words of a part's length
    /// always count.
    func namePartWord(_ p: UnsafeBufferPointer<UInt8>, _ s: Int, _ e: Int) -> Bool {
        guard hasNamePartLength(e - s) else { return false }
        // An ASCII word whose first or last byte no part has (`namePartEdges`), or that no part
        // both starts and ends like at its length (`namePartShapes`), is none: it counts only if
        // some byte is not ASCII.
        let first = p[s], last = p[e - 1]
        if first < 0x80, last < 0x80,
           (namePartEdges.first >> UInt64((first | 0x20) & 63)) & (namePartEdges.last >> UInt64((last | 0x20) & 63)) & 1 == 0
            || namePartShapes & Self.namePartShapeBit(first: first, last: last, length: e - s) == 0 {
            for k in s..<e where p[k] >= 0x80 { return true }
            return false
        }
        let fold = asciiFold
        var h: UInt64 = 0xcbf2_9ce4_8422_2325
        var bits: UInt8 = 0
        for k in s..<e {
            let b = p[k]
            bits |= b
            h = (h ^ UInt64(fold[Int(b)])) &* 0x100_0000_01b3
        }
        if bits >= 0x80 { return true }
        for part in namePartHashes where part == h { return true }
        return false
    }

    /// The base64-alphabet run `p[s..<e]` is a candidate of the walk's (`nextBase64Candidate`):
    /// 12 bytes or more with up to two `=` of padding after it, and, unless padded, `base64Suspect`.
    func base64Candidate(_ p: UnsafeBufferPointer<UInt8>, _ s: Int, _ e: Int) -> Bool {
        var end = e
        while end < p.count, end - e < 2, p[end] == 0x3D { end += 1 }
        guard end - s >= 12 else { return false }
        return end > e || base64Suspect(p, s, e)
    }

    /// `base64Suspect(_:)` of the run `p[s..<e]` (bytes of the alphabet). A run without an upper
    /// case letter never is (many runs of request targets: paths in lower case): that is read
    /// first, 8 bytes at a time (`upperCaseBytes`), the classes byte by byte only when it has one.
    func base64Suspect(_ p: UnsafeBufferPointer<UInt8>, _ s: Int, _ e: Int) -> Bool {
        guard let h = p.baseAddress, s >= 0, e <= p.count else { return false }
        guard e - s >= 8 else { return base64Suspect(UnsafeBufferPointer(rebasing: p[s..<e])) }
        var upper: UInt64 = 0
        var k = s
        while k + 8 <= e {
            upper |= Self.upperCaseBytes(UnsafeRawPointer(h + k).loadUnaligned(as: UInt64.self))
            k += 8
        }
        // The last bytes as the last 8 of the run (read twice, which changes nothing).
        if k < e { upper |= Self.upperCaseBytes(UnsafeRawPointer(h + e - 8).loadUnaligned(as: UInt64.self)) }
        return upper != 0 && base64Suspect(UnsafeBufferPointer(rebasing: p[s..<e]))
    }

    /// The high bit of each byte of `x` that is an upper case letter (`A` to `Z`), for bytes of
    /// the base64 alphabet (ASCII): at least `A` and not at least `[`.
    @inline(__always)
    static func upperCaseBytes(_ x: UInt64) -> UInt64 {
        let ones: UInt64 = 0x0101_0101_0101_0101, highs: UInt64 = 0x8080_8080_8080_8080
        let y = x | highs
        return (y &- 0x41 &* ones) & ~(y &- 0x5B &* ones) & highs
    }

    func base64Suspect<C: Collection>(_ run: C) -> Bool where C.Element == UInt8 {
        // Same test as the walk's (`nextBase64Candidate`, same table): not plain hex, and mixing
        // cases or letters and digits. `run` is a run of the alphabet.
        var seen: UInt8 = 0
        for b in run { seen |= base64RunClasses[Int(b)] }
        return seen & Base64RunClass.nonHex != 0 && seen & Base64RunClass.upper != 0 && seen & (Base64RunClass.lower | Base64RunClass.digit) != 0
    }

    /// Hex digits that may decode to text: what `FieldWalker.tryHex` would decode and walk further
    /// (`ByteCodecs.looksLikeText`: at most one byte in ten a control byte; UTF-8 is not checked).
    func hexText(_ p: UnsafeBufferPointer<UInt8>, _ s: Int, _ e: Int) -> Bool {
        guard (e - s) % 2 == 0 else { return false }
        var i = s
        var alnum = false
        var control = 0
        // More control bytes than that and it is no text (most digit runs, read as hex, stop here).
        let limit = (e - s) / 2
        while i < e {
            let b = hexNibble(p[i])! << 4 | hexNibble(p[i + 1])!
            if (b < 0x20 && b != 0x09 && b != 0x0A && b != 0x0D) || b == 0x7F {
                control += 1
                if control * 10 > limit { return false }
            }
            if isASCIIAlnum(b) { alnum = true }
            i += 2
        }
        return alnum
    }

    /// The decimal number around `dot` when it is within 0.05° of the profile's latitude (3 km are
    /// 0.027°). Numbers near the longitude need no span: a coordinate pair has a latitude, whose
    /// span gets its container (object, array, form, headers, string) walked, and the walk reads
    /// the numbers of a walked container's members whether spans touch them or not.
    func nearCoordinate(_ p: UnsafeBufferPointer<UInt8>, dot: Int, _ loc: Coordinate) -> Range<Int>? {
        // A digit on each side, or no number (most dots are in names and versions).
        guard dot > 0, dot + 1 < p.count, p[dot - 1] &- 0x30 <= 9, p[dot + 1] &- 0x30 <= 9 else { return nil }
        // parseDecimal needs 1 to 3 integer digits and a decimal; a value within 0.05 of the
        // latitude has an integer part within (|latitude| - 1.05, |latitude| + 0.05): numbers
        // that cannot be are not parsed. The integer part is read first (at most 4 digits: more
        // are no coordinate), the decimals only for one that may be.
        var intStart = dot
        while intStart > 0, dot - intStart < 4, p[intStart - 1] >= 0x30, p[intStart - 1] <= 0x39 { intStart -= 1 }
        guard dot - intStart <= 3 else { return nil }
        var integer = 0
        for k in intStart..<dot { integer = integer * 10 + Int(p[k] - 0x30) }
        let m = Double(integer)
        guard Self.mayBeLatitudeIntegerPart(m, of: loc.latitude) else { return nil }
        let s = intStart > 0 && p[intStart - 1] == 0x2D ? intStart - 1 : intStart
        var e = dot + 1
        while e < p.count, p[e] >= 0x30, p[e] <= 0x39 { e += 1 }
        // A coordinate counts with `minimumDecimals` decimals: a number written with fewer cannot
        // be one (the walk reads the digits as written: other spans mark escapes that add some).
        guard e - s >= 3, e - dot - 1 >= max(1, minimumDecimals),
              let n = parseDecimal(UnsafeBufferPointer(rebasing: p[s..<e])) else { return nil }
        return abs(n.value - loc.latitude) < 0.05 ? s..<e : nil
    }

    /// An integer that, read as fixed-point degrees (×10^5, 10^6, 10^7), is near the profile's
    /// latitude (see `nearCoordinate`).
    func nearScaled(_ v: Double, _ loc: Coordinate) -> Bool {
        for scale in [1e5, 1e6, 1e7] {
            let d = v / scale
            if abs(d - abs(loc.latitude)) < 0.05 { return true }
        }
        return false
    }
}

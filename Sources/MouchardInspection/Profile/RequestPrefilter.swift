import MouchardFlow
import MouchardWire

/// Where, in the raw bytes of one request, a profile value may hide: the spans of each part
/// (target, header values, body) that hold a profile variant, a phone-like run, a name part, a
/// number near the profile's coordinates, or something the variants cannot see through (JSON
/// escapes, percent-escapes, base64-looking runs, hex text, compression magic).
///
/// With a device profile most requests carry none of the device's values, and the ones that do
/// carry them in a few fields. One pass over the raw bytes finds these spans; the decode walk
/// then skips requests with none (`needsWalk` false) and, inside the others, every query pair,
/// header, cookie, path segment, form pair and JSON member whose bytes touch no span. A skipped
/// part could not have produced a profile detection: the spans are a superset of what the walk's
/// decoders and the matcher can find there.
struct RequestInterest {
    /// Spans over the request target's bytes (`Array(pathAndQuery.utf8)`), sorted.
    var target: [Range<Int>] = []
    /// Spans over each header's value bytes, by header index, sorted.
    var headers: [[Range<Int>]] = []
    /// Spans over the raw body, sorted; nil when the body was not scanned (compressed or binary:
    /// it is walked whole after decoding, see `Walker.walkBody`).
    var body: [Range<Int>]? = []
    /// Something makes the whole request worth walking without spans (Content-Encoding, binary
    /// body, credentials in cleartext).
    var walkAll = false
    /// Parts may be skipped by their spans; false when every field must be seen (credentials in
    /// cleartext are detected by key names, which the spans do not cover).
    var prunes = true

    /// Whether the decode walk can find anything at all.
    var needsWalk: Bool {
        walkAll || !target.isEmpty || body.map { !$0.isEmpty } ?? true || headers.contains { !$0.isEmpty }
    }
}

/// `haystack` holds `needle` (lower-case ASCII) ignoring ASCII case; non-ASCII bytes compare as is.
func containsFolded(_ haystack: ArraySlice<UInt8>, _ needle: String) -> Bool {
    var needle = needle
    return needle.withUTF8 { n in
        guard let first = n.first else { return true }
        guard haystack.count >= n.count else { return false }
        return haystack.withUnsafeBufferPointer { h in
            var i = 0
            let last = h.count - n.count
            while i <= last {
                if foldASCII(h[i]) == first {
                    var k = 1
                    while k < n.count, foldASCII(h[i + k]) == n[k] { k += 1 }
                    if k == n.count { return true }
                }
                i += 1
            }
            return false
        }
    }
}

/// Some span of `spans` (sorted by lower bound) overlaps `range`.
func touches(_ spans: [Range<Int>], _ range: Range<Int>) -> Bool {
    for s in spans {
        if s.lowerBound >= range.upperBound { return false }
        if s.upperBound > range.lowerBound { return true }
    }
    return false
}

extension KnownValueMatcher {
    /// The spans of one request (see `RequestInterest`).
    func interest(_ request: HTTPRequest, target: [UInt8], pathAndQuery: String, passwordKeys: [String],
                  cleartext: Bool) -> RequestInterest {
        var r = RequestInterest()
        if !request.body.isEmpty {
            if request.headers["Content-Encoding"] != nil || !ByteCodecs.looksLikeText(request.body.prefix(512)) {
                r.walkAll = true
                r.body = nil
            } else {
                r.body = spans(request.body[...])
            }
        }
        r.target = spans(target[...])
        r.headers.reserveCapacity(request.headers.count)
        for field in request.headers.fields {
            r.headers.append(skippedForPrefilter(field.name) ? [] : spans(field.valueBytes[...]))
        }
        if cleartext {
            let hasCredentials: Bool
            if request.headers["Authorization"] != nil {
                hasCredentials = true
            } else {
                let body = request.body.prefix(1 << 16)
                hasCredentials = passwordKeys.contains { key in
                    containsFolded(body, key) || containsFolded(target[...], key)
                }
            }
            if hasCredentials {
                r.walkAll = true
                r.prunes = false
            }
        }
        return r
    }

    private func skippedForPrefilter(_ name: String) -> Bool {
        name.utf8.count == 4 && asciiCaseInsensitiveEqualsName(name, "host")
    }

    private func asciiCaseInsensitiveEqualsName(_ a: String, _ b: String) -> Bool {
        a.utf8.count == b.utf8.count && zip(a.utf8, b.utf8).allSatisfy { foldASCII($0) == foldASCII($1) }
    }

    /// The interesting spans of `bytes`, in its own indices, sorted by lower bound.
    func spans(_ bytes: ArraySlice<UInt8>) -> [Range<Int>] {
        if bytes.isEmpty { return [] }
        var out: [Range<Int>] = []
        let base = bytes.startIndex
        bytes.withUnsafeBufferPointer { buf in
            matcher.forEachMatch(in: buf) { m in out.append((base + m.start)..<(base + m.end)) }
            if !phoneDigits.isEmpty {
                phoneRuns(buf) { start, last, _ in out.append((base + start)..<(base + last + 1)) }
            }
            scanSpans(buf, base: base, into: &out)
        }
        if out.count > 1 { out.sort { $0.lowerBound < $1.lowerBound } }
        return out
    }

    /// Everything but variants and phone runs, in one pass with a byte-class table.
    private func scanSpans(_ p: UnsafeBufferPointer<UInt8>, base: Int, into out: inout [Range<Int>]) {
        spanByteClass.withUnsafeBufferPointer { scanSpans(p, base: base, classes: $0, into: &out) }
    }

    private func scanSpans(_ p: UnsafeBufferPointer<UInt8>, base: Int, classes spanByteClass: UnsafeBufferPointer<UInt8>,
                           into out: inout [Range<Int>]) {
        let n = p.count
        let checkNames = !namePartLengths.isEmpty
        let loc = location
        var run = 0          // base64 alphabet run length
        var hexRun = 0       // hex digit run length
        var wordStart = -1   // start of a name-like word (bytes >= 'A', '-', '\'')
        var i = 0
        while i <= n {
            let b: UInt8 = i < n ? p[i] : 0
            let c = i < n ? spanByteClass[Int(b)] : 0
            if checkNames {
                if wordStart < 0 {
                    if b >= 0x41 { wordStart = i }
                } else if c & SpanByteClass.word == 0 {
                    if namePartWord(p, wordStart, i) { out.append((base + wordStart)..<(base + i)) }
                    wordStart = -1
                }
            }
            if c & SpanByteClass.base64 != 0 {
                run += 1
            } else {
                if run >= 12, base64Suspect(p, i - run, i) { out.append((base + i - run)..<(base + i)) }
                run = 0
            }
            if c & SpanByteClass.hex != 0 {
                hexRun += 1
            } else {
                if hexRun >= 8, hexText(p, i - hexRun, i) { out.append((base + i - hexRun)..<(base + i)) }
                hexRun = 0
            }
            if i == n { break }
            if c & SpanByteClass.special != 0 {
                switch b {
                case 0x5C: out.append((base + i)..<(base + i + 1)) // JSON escapes (\u00e9, \/)
                case 0x25:
                    if i + 2 < n, hexNibble(p[i + 1]) != nil, hexNibble(p[i + 2]) != nil { out.append((base + i)..<(base + i + 3)) }
                case 0x1F, 0x78:
                    // Compressed data (gzip, zlib) inside a value: the walk inflates it.
                    if i + 1 < n {
                        let next = p[i + 1]
                        if (b == 0x1F && next == 0x8B) || (b == 0x78 && (next == 0x01 || next == 0x5E || next == 0x9C || next == 0xDA)) {
                            out.append((base + i)..<(base + i + 2))
                        }
                    }
                case 0x2E:
                    if let loc, let r = nearCoordinate(p, dot: i, loc) { out.append((base + r.lowerBound)..<(base + r.upperBound)) }
                default: break
                }
            }
            if let loc, c & SpanByteClass.digit != 0, i == 0 || spanByteClass[Int(p[i - 1])] & SpanByteClass.digit == 0 {
                var e = i
                var v = 0
                while e < n, e - i < 12, spanByteClass[Int(p[e])] & SpanByteClass.digit != 0 { v = v * 10 + Int(p[e] - 0x30); e += 1 }
                if e - i >= 6, e - i <= 11, nearScaled(Double(v), loc) { out.append((base + i)..<(base + e)) }
            }
            i += 1
        }
    }

    /// The word `p[s..<e]` is (folded) a part of a profile name; non-ASCII words of a part's length always count.
    private func namePartWord(_ p: UnsafeBufferPointer<UInt8>, _ s: Int, _ e: Int) -> Bool {
        guard hasNamePartLength(e - s) else { return false }
        var h: UInt64 = 0xcbf2_9ce4_8422_2325
        for k in s..<e {
            let b = p[k]
            if b >= 0x80 { return true }
            h = (h ^ UInt64(foldASCII(b))) &* 0x100_0000_01b3
        }
        return namePartHashes.contains(h)
    }

    private func base64Suspect(_ p: UnsafeBufferPointer<UInt8>, _ s: Int, _ e: Int) -> Bool {
        base64Suspect(UnsafeBufferPointer(rebasing: p[s..<e]))
    }

    private func base64Suspect<C: Collection>(_ run: C) -> Bool where C.Element == UInt8 {
        var upper = false, lower = false, digit = false, nonHex = false
        for b in run {
            if b >= 0x41 && b <= 0x5A { upper = true } else if b >= 0x61 && b <= 0x7A { lower = true } else if b >= 0x30 && b <= 0x39 { digit = true }
            if hexNibble(b) == nil && b != 0x2D { nonHex = true }
        }
        // Same test as the walk's: not plain hex, and mixing cases or letters and digits.
        return nonHex && ((upper && lower) || (upper && digit) || (lower && digit && upper))
    }

    /// Hex digits that decode to text: what `Walker.tryHex` would decode and walk further.
    private func hexText(_ p: UnsafeBufferPointer<UInt8>, _ s: Int, _ e: Int) -> Bool {
        guard (e - s) % 2 == 0 else { return false }
        var i = s
        var alnum = false
        while i < e {
            let b = hexNibble(p[i])! << 4 | hexNibble(p[i + 1])!
            if b < 0x20 && b != 0x09 && b != 0x0A && b != 0x0D { return false }
            if isASCIIAlnum(b) { alnum = true }
            i += 2
        }
        return alnum
    }

    /// The decimal number around `dot` when it is within 0.05° of the profile's latitude or longitude.
    private func nearCoordinate(_ p: UnsafeBufferPointer<UInt8>, dot: Int, _ loc: Coordinate) -> Range<Int>? {
        var s = dot
        while s > 0, p[s - 1] >= 0x30, p[s - 1] <= 0x39 { s -= 1 }
        if s > 0, p[s - 1] == 0x2D { s -= 1 }
        var e = dot + 1
        while e < p.count, p[e] >= 0x30, p[e] <= 0x39 { e += 1 }
        guard e - s >= 3, let n = parseDecimal(UnsafeBufferPointer(rebasing: p[s..<e])) else { return nil }
        return abs(n.value - loc.latitude) < 0.05 || abs(n.value - loc.longitude) < 0.05 ? s..<e : nil
    }

    /// An integer that, read as fixed-point degrees (×10^5, 10^6, 10^7), is near the profile location.
    private func nearScaled(_ v: Double, _ loc: Coordinate) -> Bool {
        for scale in [1e5, 1e6, 1e7] {
            let d = v / scale
            if abs(d - abs(loc.latitude)) < 0.05 || abs(d - abs(loc.longitude)) < 0.05 { return true }
        }
        return false
    }
}

/// Byte classes for the span scan (bit flags).
enum SpanByteClass {
    static let base64: UInt8 = 1
    static let hex: UInt8 = 2
    static let digit: UInt8 = 4
    /// Bytes of a name-like word: `A` and above, `-`, `'`.
    static let word: UInt8 = 8
    /// Bytes that start a check of their own: `\`, `%`, `.`, 0x1F, `x`.
    static let special: UInt8 = 16
}

let spanByteClass: [UInt8] = (0..<256).map { v in
    let b = UInt8(v)
    var c: UInt8 = 0
    if ByteCodecs.isBase64Byte(b) { c |= SpanByteClass.base64 }
    if hexNibble(b) != nil { c |= SpanByteClass.hex }
    if b >= 0x30 && b <= 0x39 { c |= SpanByteClass.digit }
    if b >= 0x41 || b == 0x2D || b == 0x27 { c |= SpanByteClass.word }
    if b == 0x5C || b == 0x25 || b == 0x2E || b == 0x1F || b == 0x78 { c |= SpanByteClass.special }
    return c
}

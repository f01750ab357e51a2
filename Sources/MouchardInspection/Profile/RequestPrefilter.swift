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
        bytes.withUnsafeBufferPointer { scanSpans($0, base: bytes.startIndex, into: &out) }
        if out.count > 1 { out.sort { $0.lowerBound < $1.lowerBound } }
        return out
    }

    /// One pass over the bytes finds every kind of span: the matcher's automaton steps on each
    /// byte, and a byte-class table says whether the byte continues what the previous one started
    /// (a base64-alphabet run, a hex run, a digit run, a name-like word) or needs a look of its
    /// own (`SpanByteClass.check`). Only when the class changes is there more to do: a run that
    /// ends is checked (long enough? base64-looking, hex text, a scaled coordinate, a name part),
    /// a digit (or `+`, `(`) that starts a phone-like run has the run read at once, exactly as
    /// `phoneRuns` reads it. The spans are those of the separate scans this pass replaces
    /// (`SpanScanTests` compares them with a plain reference scan).
    private func scanSpans(_ p: UnsafeBufferPointer<UInt8>, base: Int, into out: inout [Range<Int>]) {
        guard let h = p.baseAddress else { return }
        let n = p.count
        let classOf = spanByteClasses
        let automaton = matcher.automaton
        let next = automaton.next, acClassOf = automaton.classOf, accepting = automaton.firstAccepting
        let names = !namePartLengths.isEmpty
        let phones = !phoneDigits.isEmpty
        let coordinates = location != nil
        var state = 0
        // Class of the previous byte without `check` (so that a `check` byte always differs).
        var prev: UInt8 = 0
        var base64Start = 0, hexStart = 0, digitStart = 0
        var wordStart = -1
        // The phone reading (see `phoneRuns`) has read up to here.
        var phoneResume = 0
        var i = 0
        while i < n {
            let b = h[i]
            state = Int(next[state &+ Int(acClassOf[Int(b)])])
            if state >= accepting { matched(state, endingAt: i, h, count: n, base: base, into: &out) }
            let c = classOf[Int(b)]
            if c != prev {
                // Runs that end here: the checks are rare, their length tests are not.
                let ended = prev & ~c
                if ended & SpanByteClass.runs != 0 {
                    if ended & SpanByteClass.base64 != 0, i - base64Start >= 12 { base64RunEnded(p, base64Start, i, base: base, into: &out) }
                    if ended & SpanByteClass.hex != 0, i - hexStart >= 8 { hexRunEnded(p, hexStart, i, base: base, into: &out) }
                    if ended & SpanByteClass.digit != 0, coordinates, i - digitStart >= 6, i - digitStart <= 11 {
                        digitRunEnded(p, digitStart, i, base: base, into: &out)
                    }
                }
                let started = c & ~prev
                if started & SpanByteClass.base64 != 0 { base64Start = i }
                if started & SpanByteClass.hex != 0 { hexStart = i }
                if started & SpanByteClass.digit != 0 {
                    digitStart = i
                    // A digit after no letter or digit starts a phone-like run.
                    if phones, prev & SpanByteClass.alnum == 0, i >= phoneResume { phoneResume = phoneRunAt(p, i, base: base, into: &out) }
                }
                // A name-like word starts at a byte >= `A` and goes on while bytes are `word`:
                // both only happen where the class changes.
                if wordStart >= 0 {
                    if c & SpanByteClass.word == 0 {
                        if hasNamePartLength(i - wordStart) { wordEnded(p, wordStart, i, base: base, into: &out) }
                        wordStart = -1
                    }
                } else if names, c & SpanByteClass.wordStart != 0 {
                    wordStart = i
                }
                if c & SpanByteClass.check != 0 {
                    checkByte(p, at: i, afterAlnum: prev & SpanByteClass.alnum != 0, phoneResume: &phoneResume, base: base, into: &out)
                }
                prev = c & ~SpanByteClass.check
            }
            i += 1
        }
        // The end of the bytes ends every run.
        if prev & SpanByteClass.base64 != 0, n - base64Start >= 12 { base64RunEnded(p, base64Start, n, base: base, into: &out) }
        if prev & SpanByteClass.hex != 0, n - hexStart >= 8 { hexRunEnded(p, hexStart, n, base: base, into: &out) }
        if prev & SpanByteClass.digit != 0, coordinates, n - digitStart >= 6, n - digitStart <= 11 { digitRunEnded(p, digitStart, n, base: base, into: &out) }
        if wordStart >= 0, hasNamePartLength(n - wordStart) { wordEnded(p, wordStart, n, base: base, into: &out) }
    }

    /// The matcher's confirmed matches for the accepting automaton `state` at `i`.
    @inline(never)
    private func matched(_ state: Int, endingAt i: Int, _ h: UnsafePointer<UInt8>, count n: Int, base: Int, into out: inout [Range<Int>]) {
        matcher.confirmMatches(state: state, endingAt: i, in: h, count: n) { m in out.append((base + m.start)..<(base + m.end)) }
    }

    /// A base64-alphabet run of 12 bytes or more ends at `e`: a span when it looks like base64.
    @inline(never)
    private func base64RunEnded(_ p: UnsafeBufferPointer<UInt8>, _ s: Int, _ e: Int, base: Int, into out: inout [Range<Int>]) {
        if base64Suspect(p, s, e) { out.append((base + s)..<(base + e)) }
    }

    /// A hex run of 8 bytes or more ends at `e`: a span when it decodes to text.
    @inline(never)
    private func hexRunEnded(_ p: UnsafeBufferPointer<UInt8>, _ s: Int, _ e: Int, base: Int, into out: inout [Range<Int>]) {
        if hexText(p, s, e) { out.append((base + s)..<(base + e)) }
    }

    /// A run of 6 to 11 digits ends at `e`: a span when it is a fixed-point coordinate near the profile's.
    @inline(never)
    private func digitRunEnded(_ p: UnsafeBufferPointer<UInt8>, _ s: Int, _ e: Int, base: Int, into out: inout [Range<Int>]) {
        guard let loc = location else { return }
        var v = 0
        for k in s..<e { v = v * 10 + Int(p[k] &- 0x30) }
        if nearScaled(Double(v), loc) { out.append((base + s)..<(base + e)) }
    }

    /// A name-like word of a name part's length ends at `e`: a span when it is one.
    @inline(never)
    private func wordEnded(_ p: UnsafeBufferPointer<UInt8>, _ s: Int, _ e: Int, base: Int, into out: inout [Range<Int>]) {
        if namePartWord(p, s, e) { out.append((base + s)..<(base + e)) }
    }

    /// `phoneRuns`' run at `i`: a span when its digits are a profile phone number; returns where reading resumes.
    @inline(never)
    private func phoneRunAt(_ p: UnsafeBufferPointer<UInt8>, _ i: Int, base: Int, into out: inout [Range<Int>]) -> Int {
        let run = phoneRun(p, from: i)
        if run.targets != nil { out.append((base + i)..<(base + run.last + 1)) }
        return run.end
    }

    /// A byte with a check of its own: JSON escapes, percent-escapes, compression magic, decimal
    /// points (coordinates), `+` and `(` (phone-like runs).
    @inline(never)
    private func checkByte(_ p: UnsafeBufferPointer<UInt8>, at i: Int, afterAlnum: Bool, phoneResume: inout Int, base: Int,
                           into out: inout [Range<Int>]) {
        let n = p.count
        let b = p[i]
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
            if let loc = location, let r = nearCoordinate(p, dot: i, loc) { out.append((base + r.lowerBound)..<(base + r.upperBound)) }
        case 0x2B, 0x28:
            guard !phoneDigits.isEmpty, i >= phoneResume else { return }
            if afterAlnum {
                phoneResume = Self.endOfAlnumRun(p, from: i + 1)
            } else {
                phoneResume = phoneRunAt(p, i, base: base, into: &out)
            }
        default: break
        }
    }

    /// The word `p[s..<e]` is (folded) a part of a profile name; non-ASCII words of a part's length always count.
    func namePartWord(_ p: UnsafeBufferPointer<UInt8>, _ s: Int, _ e: Int) -> Bool {
        guard hasNamePartLength(e - s) else { return false }
        var h: UInt64 = 0xcbf2_9ce4_8422_2325
        for k in s..<e {
            let b = p[k]
            if b >= 0x80 { return true }
            h = (h ^ UInt64(foldASCII(b))) &* 0x100_0000_01b3
        }
        return namePartHashes.contains(h)
    }

    func base64Suspect(_ p: UnsafeBufferPointer<UInt8>, _ s: Int, _ e: Int) -> Bool {
        base64Suspect(UnsafeBufferPointer(rebasing: p[s..<e]))
    }

    func base64Suspect<C: Collection>(_ run: C) -> Bool where C.Element == UInt8 {
        var upper = false, lower = false, digit = false, nonHex = false
        for b in run {
            if b >= 0x41 && b <= 0x5A { upper = true } else if b >= 0x61 && b <= 0x7A { lower = true } else if b >= 0x30 && b <= 0x39 { digit = true }
            if hexNibble(b) == nil && b != 0x2D { nonHex = true }
        }
        // Same test as the walk's: not plain hex, and mixing cases or letters and digits.
        return nonHex && ((upper && lower) || (upper && digit) || (lower && digit && upper))
    }

    /// Hex digits that decode to text: what `Walker.tryHex` would decode and walk further.
    func hexText(_ p: UnsafeBufferPointer<UInt8>, _ s: Int, _ e: Int) -> Bool {
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
    func nearCoordinate(_ p: UnsafeBufferPointer<UInt8>, dot: Int, _ loc: Coordinate) -> Range<Int>? {
        var s = dot
        while s > 0, p[s - 1] >= 0x30, p[s - 1] <= 0x39 { s -= 1 }
        if s > 0, p[s - 1] == 0x2D { s -= 1 }
        var e = dot + 1
        while e < p.count, p[e] >= 0x30, p[e] <= 0x39 { e += 1 }
        guard e - s >= 3, let n = parseDecimal(UnsafeBufferPointer(rebasing: p[s..<e])) else { return nil }
        return abs(n.value - loc.latitude) < 0.05 || abs(n.value - loc.longitude) < 0.05 ? s..<e : nil
    }

    /// An integer that, read as fixed-point degrees (×10^5, 10^6, 10^7), is near the profile location.
    func nearScaled(_ v: Double, _ loc: Coordinate) -> Bool {
        for scale in [1e5, 1e6, 1e7] {
            let d = v / scale
            if abs(d - abs(loc.latitude)) < 0.05 || abs(d - abs(loc.longitude)) < 0.05 { return true }
        }
        return false
    }
}

/// Byte classes for the span scan (bit flags).
enum SpanByteClass {
    /// The base64 alphabet (standard and URL-safe).
    static let base64: UInt8 = 1
    static let hex: UInt8 = 2
    static let digit: UInt8 = 4
    /// Bytes of a name-like word: `A` and above, `-`, `'`.
    static let word: UInt8 = 8
    /// Bytes that start a name-like word: `A` and above.
    static let wordStart: UInt8 = 16
    static let alnum: UInt8 = 32
    /// Bytes that start a check of their own: `\`, `%`, `.`, 0x1F, `x`, `+`, `(`.
    static let check: UInt8 = 64
    /// The classes whose runs are checked where they end.
    static let runs: UInt8 = base64 | hex | digit

    static func of(_ b: UInt8) -> UInt8 {
        var c: UInt8 = 0
        if ByteCodecs.isBase64Byte(b) { c |= base64 }
        if hexNibble(b) != nil { c |= hex }
        if b >= 0x30 && b <= 0x39 { c |= digit }
        if b >= 0x41 || b == 0x2D || b == 0x27 { c |= word }
        if b >= 0x41 { c |= wordStart }
        if isASCIIAlnum(b) { c |= alnum }
        if b == 0x5C || b == 0x25 || b == 0x2E || b == 0x1F || b == 0x78 || b == 0x2B || b == 0x28 { c |= check }
        return c
    }
}

/// `SpanByteClass.of` for every byte, in memory that is never freed (a pointer, not an array: no
/// retain or bounds check in the scan loop). Written once, before first use, then only read.
nonisolated(unsafe) let spanByteClasses: UnsafePointer<UInt8> = {
    let table = UnsafeMutablePointer<UInt8>.allocate(capacity: 256)
    for b in 0..<256 { table[b] = SpanByteClass.of(UInt8(b)) }
    return UnsafePointer(table)
}()

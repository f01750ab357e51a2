import MouchardFlow
import MouchardWire

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
        interest(request, target: target, pathAndQuery: pathAndQuery, passwordKeys: FoldedKeySearch(passwordKeys), cleartext: cleartext)
    }

    /// The spans of one request, with the password keys read once (`Inspector`); `keyAnswers`
    /// remembers which header values may hold one of them (cleartext requests).
    func interest(_ request: HTTPRequest, target: [UInt8], pathAndQuery: String, passwordKeys: FoldedKeySearch,
                  keyAnswers: HeaderValueCache<Bool>? = nil, cleartext: Bool) -> RequestInterest {
        var r = RequestInterest()
        var contentEncoding = false
        var binaryType = false
        // Cleartext only: some key name or value may hold a credential (see below).
        var hasCredentials = false
        // Fields are read in place: `for field in fields` would copy each one (name and value
        // retained and released), and `withUTF8` on a copy of the name too.
        let fields = request.headers.fields
        for i in fields.indices {
            let kind = fields[i].name.utf8.withContiguousStorageIfAvailable { ScannedHeaderName($0) }
                ?? { var name = fields[i].name; return name.withUTF8 { ScannedHeaderName($0) } }()
            if kind.isUnread {
                if kind == .contentEncoding { contentEncoding = true }
                if kind == .contentType {
                    // A multipart part may be typed as binary too.
                    switch ContentTypeReading.of(fields[i].valueBytes) {
                    case .binary: binaryType = true
                    case .multipart: if binaryTypeWords.isFound(in: request.body[...]) { binaryType = true }
                    case .other: break
                    }
                }
                r.headers.append([])
                continue
            }
            r.headers.append(headerSpans.spans(of: fields[i].valueBytes) { spans($0[...]) })
            // Keys are header names, cookie names, form, query and JSON keys, some of them
            // percent-encoded or JSON-escaped, and keys of forms and documents inside header values.
            // A name is read as a value is, answers remembered in the same cache (apps send the
            // same names with every request): JSON escapes are undone too, which only a name
            // holding `\` could need; a yes there walks the request whole, never less.
            if cleartext, !hasCredentials {
                var name = fields[i].name
                hasCredentials = kind == .authorization
                    || name.withUTF8 { b in keyAnswers.map { $0.answer(for: b) { mayHoldKey(ArraySlice($0), passwordKeys) } } ?? mayHoldKey(ArraySlice(b), passwordKeys) }
                    || keyAnswers.map { $0.answer(for: fields[i].valueBytes) { mayHoldKey($0[...], passwordKeys) } }
                    ?? mayHoldKey(fields[i].valueBytes[...], passwordKeys)
            }
        }
        if !request.body.isEmpty {
            // A body typed as binary is read as protobuf first (`walkDocument`), even when it looks
            // like text: its fields are not where a text scan cuts them.
            if contentEncoding || binaryType || !looksLikeText(request.body.prefix(512)) {
                r.walkAll = true
                r.body = nil
            } else {
                r.body = spans(request.body[...])
            }
        }
        r.target = spans(target[...], context: .target)
        if cleartext, hasCredentials || mayHoldKey(request.body.prefix(1 << 16), passwordKeys) || mayHoldKey(target[...], passwordKeys) {
            r.walkAll = true
            r.prunes = false
        }
        return r
    }

    /// One of `keys` is in `bytes` as written or after undoing up to three rounds of percent and
    /// JSON escapes (`pa%73sword`, `p\u0061ssword`, `pa%2573sword`): how the walk may read a key.
    private func mayHoldKey(_ bytes: ArraySlice<UInt8>, _ keys: FoldedKeySearch) -> Bool {
        if keys.isFound(in: bytes) { return true }
        var text = bytes
        for _ in 0..<3 {
            guard let unescaped = keyUnescaped(text) else { return false }
            if keys.isFound(in: unescaped[...]) { return true }
            text = unescaped[...]
        }
        return false
    }

    /// `bytes` with `%XX`, `\uXXXX` (ASCII) and `\x` escapes undone, nil when it holds none that
    /// can make a letter of a key: a `%XX` or `\u00XX` of a letter (`XX` from 40 to 7F), of `%`
    /// or of `\` (`%25`, `%5C`: escapes twice over), or `\` before anything but a JSON escape of
    /// a control byte, `"` or `/`. Keys are letters: undoing other escapes
    /// only puts a byte that is no letter where the escape was, and a key found then was there
    /// before.
    private func keyUnescaped(_ bytes: ArraySlice<UInt8>) -> [UInt8]? {
        let mayMakeLetter = bytes.withUnsafeBufferPointer { p -> Bool in
            guard let base = p.baseAddress else { return false }
            let ones: UInt64 = 0x0101_0101_0101_0101, highs: UInt64 = 0x8080_8080_8080_8080
            var i = 0
            while i < p.count {
                // 8 bytes at a time while none is `%` or `\` (most text).
                if i + 8 <= p.count {
                    let x = UnsafeRawPointer(base + i).loadUnaligned(as: UInt64.self)
                    let percent = x ^ (0x25 &* ones), backslash = x ^ (0x5C &* ones)
                    if ((percent &- ones) & ~percent | (backslash &- ones) & ~backslash) & highs == 0 { i += 8; continue }
                }
                let b = p[i]
                if b == 0x5C, i + 1 < p.count {
                    switch p[i + 1] {
                    case 0x62, 0x66, 0x6E, 0x72, 0x74, 0x22, 0x2F: break // \b \f \n \r \t \" \/: no letter
                    case 0x75: // \u00XX of a letter, of `%` or of `\`
                        if i + 5 < p.count, p[i + 2] == 0x30, p[i + 3] == 0x30, let h = hexNibble(p[i + 4]), hexNibble(p[i + 5]) != nil,
                           (h >= 4 && h <= 7) || (h == 2 && p[i + 5] == 0x35) { return true }
                    default: return true
                    }
                }
                if b == 0x25, i + 2 < p.count, let h = hexNibble(p[i + 1]), hexNibble(p[i + 2]) != nil,
                   (h >= 4 && h <= 7) || (h == 2 && p[i + 2] == 0x35) { return true }
                i += 1
            }
            return false
        }
        guard mayMakeLetter else { return nil }
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count)
        var i = bytes.startIndex
        let end = bytes.endIndex
        while i < end {
            let b = bytes[i]
            if b == 0x25, i + 2 < end, let h = hexNibble(bytes[i + 1]), let l = hexNibble(bytes[i + 2]) {
                out.append(h << 4 | l)
                i += 3
            } else if b == 0x5C, i + 5 < end, bytes[i + 1] == 0x75, bytes[i + 2] == 0x30, bytes[i + 3] == 0x30,
                      let h = hexNibble(bytes[i + 4]), let l = hexNibble(bytes[i + 5]), h < 8 {
                out.append(h << 4 | l)
                i += 6
            } else if b == 0x5C, i + 1 < end {
                out.append(bytes[i + 1])
                i += 2
            } else {
                out.append(b)
                i += 1
            }
        }
        return out
    }

    /// `ByteCodecs.looksLikeText`, answered 8 bytes at a time when every byte is printable ASCII,
    /// tab, LF or CR (then it is text); anything else is left to `looksLikeText` itself.
    func looksLikeText(_ bytes: ArraySlice<UInt8>) -> Bool {
        let plain = bytes.withUnsafeBufferPointer { b -> Bool in
            guard let base = b.baseAddress, !b.isEmpty else { return false }
            let ones: UInt64 = 0x0101_0101_0101_0101, highs: UInt64 = 0x8080_8080_8080_8080
            var i = 0
            while i < b.count {
                if i + 8 <= b.count {
                    let x = UnsafeRawPointer(base + i).loadUnaligned(as: UInt64.self)
                    let below20 = (x &- 0x20 &* ones) & ~x & highs
                    let del = ((x ^ 0x7F &* ones) &- ones) & ~(x ^ 0x7F &* ones) & highs
                    if (x & highs) | below20 | del == 0 { i += 8; continue }
                }
                let c = b[i]
                guard (c >= 0x20 && c < 0x7F) || c == 0x09 || c == 0x0A || c == 0x0D else { return false }
                i += 1
            }
            return true
        }
        return plain || ByteCodecs.looksLikeText(bytes)
    }

    /// The interesting spans of `bytes`, in its own indices, sorted by lower bound. `context` says
    /// how the walk may cut the bytes into values (see `SpanContext`).
    func spans(_ bytes: ArraySlice<UInt8>, context: SpanContext = .value) -> [Range<Int>] {
        if bytes.isEmpty { return [] }
        var out: [Range<Int>] = []
        bytes.withUnsafeBufferPointer { scanSpans($0, base: bytes.startIndex, context: context, into: &out) }
        if out.count > 1 { out.sort { $0.lowerBound < $1.lowerBound } }
        return out
    }

    /// One pass over the bytes finds every kind of span. Per byte: the matcher's automaton steps,
    /// and four run lengths move at once, packed in one 64-bit word (`SpanLanes`): base64-alphabet
    /// run, hex run, name-like word, stretch of digits and phone separators. A byte's entries in
    /// `spanLaneTable` keep the lanes it continues (+1) and clear the others; one test per byte
    /// tells whether a lane that the byte ends was long enough to look at (base64 ≥ 10 with an
    /// upper case letter or before `=`, hex ≥ 8, a word with a byte that is not ASCII, digits and
    /// separators ≥ 9 or the shortest fixed-point coordinate, see `SpanLanes.bias`), or
    /// whether the byte needs a check of its own (`\`, `%`, the second byte of compression
    /// magic). Only then does `laneEvent` run the checks of the separate scans this pass
    /// replaces, on the run that ended: the spans are the same (`SpanScanTests` compares them
    /// with a plain reference scan). With `context.firstSpanOnly` (checks of decoded runs, which
    /// only ask whether there is a span; `out` empty) it returns at the first byte that adds one.
    func scanSpans(_ p: UnsafeBufferPointer<UInt8>, base: Int, context: SpanContext, into out: inout [Range<Int>]) {
        guard let h = p.baseAddress else { return }
        let n = p.count
        let table = spanLaneTable
        let automaton = spanMatcher.automaton
        let accepting = automaton.firstAccepting
        var lanes = SpanLanes(p, base: base, bias: spanLaneBias, context: context)
        let bias = lanes.bias
        var runs = SpanLanes.start
        var state = automaton.start
        var i = 0
        while i < n {
            // Chunks keep every lane below 0x8000 (see `SpanLanes.rebase`).
            let chunkEnd = min(n, i + SpanLanes.chunk)
            while i < chunkEnd {
                let r = automaton.narrow
                    ? Self.bytesUntilEvent(h, from: i, to: chunkEnd, state: state, runs: runs, automaton: automaton,
                                           entry: UInt16.self, table: table, bias: bias)
                    : Self.bytesUntilEvent(h, from: i, to: chunkEnd, state: state, runs: runs, automaton: automaton,
                                           entry: Int32.self, table: table, bias: bias)
                i = r.i
                state = r.state
                runs = r.runs
                guard i < chunkEnd else { break }
                // Byte `i` has something to do: the automaton's state after it, the lanes before it.
                let b = Int(h[i])
                let keep = table[SpanLanes.keepEntry + b]
                let ended = runs & ~keep
                runs = (runs & keep) &+ table[SpanLanes.addEntry + b]
                if state >= accepting { matched(state, endingAt: i, h, count: n, base: base, into: &out) }
                let stop = table[SpanLanes.stopEntry + b]
                let check = stop == SpanLanes.checkStop
                // A lane at its threshold that the byte ends; `=` also reads lane 0's bit 14 (a
                // run of 10 or more without an upper case letter may be padded, see `SpanLanes`).
                if (ended &+ bias) & (SpanLanes.high | (stop & SpanLanes.base64Upper)) != 0 || check {
                    laneEvent(ended: ended, check: check, at: i, &lanes, into: &out)
                }
                if context.firstSpanOnly, !out.isEmpty { return }
                i += 1
            }
            if i < n { runs = lanes.rebase(runs, at: i) }
        }
        // The end of the bytes ends every run.
        if (runs &+ bias) & SpanLanes.high != 0 { laneEvent(ended: runs, check: false, at: n, &lanes, into: &out) }
    }

    /// The byte loop of `scanSpans`, from `i` up to the first byte with something to do (an
    /// accepting automaton state, a lane event) or `end`: that byte's index, the automaton state
    /// after it and the lanes before it (`end`, and the state and lanes there, when no byte has).
    /// Two bytes a round, one test for both. A function of its own without calls, so that all its
    /// values stay in registers; one for each width of the automaton's entries (`entry`).
    @inline(never)
    private static func bytesUntilEvent<Entry: FixedWidthInteger>(
        _ h: UnsafePointer<UInt8>, from i: Int, to end: Int, state: Int, runs: UInt64,
        automaton: MultiPatternMatcher.Automaton, entry: Entry.Type, table: UnsafePointer<UInt64>, bias: UInt64
    ) -> (i: Int, state: Int, runs: UInt64) {
        var i = i, state = state, runs = runs
        let accepting = automaton.firstAccepting
        let keep = table + SpanLanes.keepEntry, add = table + SpanLanes.addEntry, stop = table + SpanLanes.stopEntry
        while i &+ 1 < end {
            let b0 = h[i], b1 = h[i &+ 1]
            let s0 = automaton.step(state, b0, entry)
            // A lane at its threshold (bit 15 after the bias) that the byte ends, or a check byte.
            let event0 = (runs &+ bias) & stop[Int(b0)]
            let runs0 = (runs & keep[Int(b0)]) &+ add[Int(b0)]
            let s1 = automaton.step(s0, b1, entry)
            let event1 = (runs0 &+ bias) & stop[Int(b1)]
            if event0 | event1 != 0 || s0 >= accepting || s1 >= accepting {
                if event0 != 0 || s0 >= accepting { return (i, s0, runs) }
                return (i &+ 1, s1, runs0)
            }
            runs = (runs0 & keep[Int(b1)]) &+ add[Int(b1)]
            state = s1
            i &+= 2
        }
        if i < end {
            let b = h[i]
            let s = automaton.step(state, b, entry)
            if (runs &+ bias) & stop[Int(b)] != 0 || s >= accepting { return (i, s, runs) }
            return (end, s, (runs & keep[Int(b)]) &+ add[Int(b)])
        }
        return (end, state, runs)
    }

    /// The runs of `ended` stop before `i` (and byte `i`, when `check` says so, has a check of its own).
    @inline(__always)
    private func laneEvent(ended: UInt64, check: Bool, at i: Int, _ lanes: inout SpanLanes, into out: inout [Range<Int>]) {
        let p = lanes.p, base = lanes.base
        // The lanes whose run reached its threshold (a lane with an `extra` always has).
        let over = (ended &+ lanes.bias) & SpanLanes.high
        // A base64 run with an upper case letter, or one that `=` ends (see `SpanLanes`).
        if over & 0x8000 != 0 || (i < p.count && p[i] == 0x3D && ended & SpanLanes.base64Length >= SpanLanes.base64Threshold) {
            let s = i - lanes.take(ended, 0)
            if base64Candidate(p, s, i), base64RunMatters(p, s, i, context: lanes.context) { out.appendSpan((base + s)..<(base + i)) }
        }
        // The hex run's length (0 when it is below its threshold).
        var hexLength = 0
        if over & 0x8000_0000 != 0 {
            hexLength = lanes.hexRunLength(ended, endingAt: i)
            let s = i - hexLength
            // An odd number of hex digits is never `hexText` (most are timestamps in milliseconds).
            if hexLength % 2 == 0, hexRunMatters(p, s, i, context: lanes.context) { out.appendSpan((base + s)..<(base + i)) }
        }
        if over & 0x8000_0000_0000 != 0 {
            // A word with a byte that is not ASCII ended (the lane counts those bytes): it counts
            // at a name part's length (`namePartWord`). It starts at its first byte >= `A` (not
            // at `-` or `'`). ASCII words are the automaton's (`spanMatcher`).
            _ = lanes.take(ended, 2)
            var s = i
            while s > 0, isNameWordByte(p[s - 1]) { s -= 1 }
            while s < i, p[s] < 0x41 { s += 1 }
            if s < i, hasNamePartLength(i - s) { out.appendSpan((base + s)..<(base + i)) }
        }
        if over & 0x8000_0000_0000_0000 != 0 {
            let length = lanes.take(ended, 3)
            // The hex run's length even when it had no check of its own (after a glue byte).
            if over & 0x8000_0000 == 0 { hexLength = lanes.hexRunLength(ended, endingAt: i) }
            // A stretch as long as the hex run that ends with it is digits only (the bytes of
            // both): it has no phone-like run (no separator), and no fixed-point coordinate when
            // it is longer than 11 digits or there is no location (timestamps, ids).
            if length != hexLength || (length <= 11 && location != nil) {
                phoneStretchEnded(p, i - length, i, base: base, splitsAtSlash: lanes.context.splitsAtSlash, into: &out)
            }
        }
        if check { checkByte(p, at: i, base: base, into: &out) }
    }

    /// The matcher's confirmed matches for the accepting automaton `state` at `i`.
    /// A match of a decimal point's pattern (`coordinateDotPatterns`) is a span only when the
    /// number around the point is near the profile's latitude (`nearCoordinate`).
    @inline(never)
    private func matched(_ state: Int, endingAt i: Int, _ h: UnsafePointer<UInt8>, count n: Int, base: Int, into out: inout [Range<Int>]) {
        let firstDot = firstCoordinateDotPattern
        var dot = false
        // The closure captures no copy of `self` (the number is read after it).
        spanMatcher.confirmMatches(state: state, endingAt: i, in: h, count: n) { m in
            if m.pattern >= firstDot { dot = true } else { out.appendSpan((base + m.start)..<(base + m.end)) }
        }
        if dot, let loc = location, let r = nearCoordinate(UnsafeBufferPointer(start: h, count: n), dot: i, loc) {
            out.appendSpan((base + r.lowerBound)..<(base + r.upperBound))
        }
    }

    /// The span scan's automaton: the variants, and each name part that an ASCII word can be
    /// (`nameWord` patterns: whole words, any ASCII case). A word is a span when it is a part
    /// (`namePartWord`); for a word of ASCII bytes that is exactly a match of one of these (a
    /// part whose first byte is below `A` or that holds a byte no word holds is no word, and a
    /// part that is not ASCII only equals words that are not, read by lane 2), so the scan
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

    /// A byte with a check of its own: JSON escapes, percent-escapes, compression magic (decimal
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

/// The four run lengths of the span scan, 16 bits each in one `UInt64`, and what happens when a
/// run ends: lane 0 base64 alphabet, lane 1 hex digits, lane 2 the bytes that are not ASCII in
/// a name-like word (bytes `A` and above, `-`, `'`; the word itself starts at its first byte
/// >= `A`; ASCII words are read by the automaton, see `spanMatcher(variants:nameParts:latitude:)`), lane 3 digits and phone
/// separators (` `, `-`, `.`, `(`, `)`, `/`, `+`). Digit runs (fixed-point coordinates) have no
/// lane: they are read in the stretch that holds them, when it ends.
/// Lanes stay below 0x8000, so a lane's length ≥ its threshold T shows as the lane's top bit of
/// `ended + bias` (bias 0x8000 − T; 0 for a lane nobody looks at).
///
/// The base64 lane is read only when its run may be a candidate of the walk's (`base64Candidate`):
/// one holding an upper case letter (`base64Suspect` needs one), or one that `=` ends (padding).
/// Most long runs are neither (paths, snake_case keys in lower case): they end with no event. So
/// lane 0 keeps its length below 0x4000 (`base64Length`) and bit 14 (`base64Upper`) says the run
/// holds an upper case letter (an upper case byte clears it in `keep` and adds it back in `add`).
/// Its bias is 0x4000 − 10: bit 15 of `ended + bias` is set exactly for a run of 10 or more with
/// an upper case letter, and bit 14 for one of 10 or more without (and for a shorter one with:
/// `laneEvent` reads the length again); `=` tests both bits, every other byte that ends the run
/// bit 15 only.
///
/// Lane 1 likewise: bit 14 (`hexClean`) says that the hex run starts at the first byte or
/// after a byte that is no glue (`isHexGlue`; the byte before a run sets it or not, in `add`,
/// and hex digits keep it), and its bias is 0x4000 − 8: bit 15 of `ended + bias` is set exactly
/// for a clean run of 8 or more. A run after a glue byte has no event: `hexRunMatters` never
/// keeps it (its first test), and nothing else reads it but the stretch lane's test of
/// digits-only stretches, which reads the lane's length itself (`hexRunLength`).
struct SpanLanes {
    static let ones: UInt64 = 0x0001_0001_0001_0001
    static let high: UInt64 = 0x8000_8000_8000_8000
    /// Where each byte's entries start in `spanLaneTable`.
    static let keepEntry = 0, addEntry = 256, stopEntry = 512
    /// The stop entry of a byte with a check of its own: every test of it fires.
    static let checkStop: UInt64 = ~0
    /// Bytes per chunk: a lane grows by at most this much between two `rebase`s.
    static let chunk = 0x2000
    /// Lane 0's length bits, and its bit for a run holding an upper case letter.
    static let base64Length: UInt64 = 0x3FFF, base64Upper: UInt64 = 0x4000
    /// The shortest base64 run that may be a candidate (12 bytes with two bytes of padding).
    static let base64Threshold: UInt64 = 10
    /// Lane 1's length bits, and its bit for a hex run that starts at the first byte or after a
    /// byte that is no glue (`isHexGlue`), the only runs `hexRunMatters` may keep.
    static let hexLength: UInt64 = 0x3FFF, hexClean: UInt64 = 0x4000
    /// The shortest hex run that may be `hexText` of something (4 bytes).
    static let hexThreshold: UInt64 = 8
    /// The lanes before the first byte: no runs, and a hex run starting there is clean.
    static let start: UInt64 = hexClean << 16

    let p: UnsafeBufferPointer<UInt8>
    let base: Int
    let bias: UInt64
    /// How the walk may cut the bytes (for the checks of base64 and hex runs).
    let context: SpanContext
    /// Length of each lane's run beyond its value (set by `rebase` for runs longer than a chunk;
    /// not lane 1's, see `hexRunStart`).
    var extra: (UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0)
    /// Where the last hex run that `rebase` set back started (-1: none). A hex run that a glue
    /// byte ends has no event (`spanLaneTable`): an `extra` of lane 1 would outlive its run and
    /// be added to the next one's length (that run's span lost), so lane 1 keeps a start instead,
    /// read only when the run that ends is that one (`hexRunLength`).
    var hexRunStart = -1
    /// Some `extra` is not 0.
    var extended = false

    /// `namePartLengthBits` as in `KnownValueMatcher`; `namePartLengths` is 0 without name parts.
    /// `bias` from `bias(namePartLengthBits:namePartLengths:coordinates:phones:)` (the matcher's).
    init(_ p: UnsafeBufferPointer<UInt8>, base: Int, bias: UInt64, context: SpanContext) {
        self.p = p
        self.base = base
        self.bias = bias
        self.context = context
    }

    /// The lanes' bias for a profile: `namePartLengthBits` as in `KnownValueMatcher`,
    /// `namePartLengths` 0 without name parts, `latitude` the profile location's.
    static func bias(namePartLengthBits bits: UInt64, namePartLengths: Int, latitude: Double?, phones: Bool) -> UInt64 {
        func lane(_ threshold: Int?, _ k: UInt64) -> UInt64 {
            guard let threshold else { return 0 }
            return UInt64(0x8000 - min(max(threshold, 1), 0xFF)) << (16 * k)
        }
        // One byte that is not ASCII in a word (ASCII words are matched as patterns).
        let shortestPart: Int? = bits != 0 || namePartLengths != 0 ? 1 : nil
        // A stretch is read for its phone-like runs (8 digits and a separator) and its
        // fixed-point coordinates (`phoneStretchEnded`).
        let stretch = [phones ? 9 : nil, latitude.map(shortestFixedPointCoordinate(latitude:))].compactMap { $0 }.min()
        return (base64Upper - base64Threshold) | (hexClean - hexThreshold) << 16 | lane(shortestPart, 2) | lane(stretch, 3)
    }

    /// The fewest digits of a run that `phoneStretchEnded` reads as fixed-point degrees near
    /// `latitude` (runs of 6 to 11 digits, `nearScaled`): such a run's value is above
    /// (|latitude| − 0.05) × 10^5 (the smallest scale), less 2 for rounding, and has at least that
    /// number's digits (more with leading zeros). 7 for latitudes from 10.05° on.
    static func shortestFixedPointCoordinate(latitude: Double) -> Int {
        let smallest = (abs(latitude) - 0.05) * 1e5 - 2
        var digits = 1
        var bound = 10.0
        while bound <= smallest, digits < 11 {
            digits += 1
            bound *= 10
        }
        return max(6, digits)
    }

    /// A lane that has grown past 0x2000 is set back to 0x100 (still above every threshold),
    /// the difference kept in `extra` (lanes stay below 0x4000). Lane 0 gets its upper case bit
    /// too: its run then ends with an event whatever ends it, which takes the `extra`. `i` is
    /// where the lanes stop (the chunk's end). Lane 1 records where its run started instead, when
    /// the run was not set back before (its value is then its length: the byte before it, if
    /// any, is no hex digit), see `hexRunLength`.
    @inline(__always)
    mutating func rebase(_ runs: UInt64, at i: Int) -> UInt64 {
        var runs = runs
        for k: UInt64 in 0..<4 {
            let v = (runs >> (16 * k)) & (k == 0 ? Self.base64Length : k == 1 ? Self.hexLength : 0xFFFF)
            if v >= 0x2000 {
                if k == 1 {
                    let s = i - Int(v)
                    if s == 0 || hexNibble(p[s - 1]) == nil { hexRunStart = s }
                } else {
                    add(v - 0x100, to: k)
                }
                let kept = k == 0 ? Self.base64Upper : k == 1 ? runs >> 16 & Self.hexClean : 0
                runs = runs & ~(0xFFFF << (16 * k)) | ((kept | 0x100) << (16 * k))
            }
        }
        return runs
    }

    private mutating func add(_ d: UInt64, to k: UInt64) {
        extended = true
        switch k {
        case 0: extra.0 += d
        case 1: extra.1 += d
        case 2: extra.2 += d
        default: extra.3 += d
        }
    }

    /// Length of the hex run that `ended` holds, ending before `i`. Its lane value `v` is its
    /// length unless `rebase` set it back in this run; then the run is longer than `v`, so the
    /// byte before the last `v` is a hex digit, and the run is the one whose start `rebase` kept
    /// (the first time the run was set back its value was its length; a later time, the byte
    /// before the value's bytes was a hex digit and the start was kept). Otherwise that byte is
    /// no hex digit (or there is none) and `v` is the length, whatever run `hexRunStart` was for.
    @inline(__always)
    mutating func hexRunLength(_ ended: UInt64, endingAt i: Int) -> Int {
        let v = Int((ended >> 16) & Self.hexLength)
        guard hexRunStart >= 0, i - v > 0, hexNibble(p[i - v - 1]) != nil else { return v }
        let length = i - hexRunStart
        hexRunStart = -1
        return length
    }

    /// Length of lane `k`'s run that `ended` holds, and no extra any more for that lane (not
    /// lane 1: `hexRunLength`).
    @inline(__always)
    mutating func take(_ ended: UInt64, _ k: UInt64) -> Int {
        let v = (ended >> (16 * k)) & (k == 0 ? Self.base64Length : 0xFFFF)
        return extended ? Int(v) + takeExtra(k) : Int(v)
    }

    private mutating func takeExtra(_ k: UInt64) -> Int {
        var d: UInt64 = 0
        switch k {
        case 0: d = extra.0; extra.0 = 0
        case 1: d = extra.1; extra.1 = 0
        case 2: d = extra.2; extra.2 = 0
        default: d = extra.3; extra.3 = 0
        }
        extended = extra != (0, 0, 0, 0)
        return Int(d)
    }
}

/// Per byte, three entries of `SpanLanes` words (at `keepEntry + byte`, `addEntry + byte`,
/// `stopEntry + byte`): keep, 0x7FFF in each lane the byte continues; add, 1 in those lanes
/// (lane 0: an upper case letter keeps 0x3FFF and adds 0x4001, see `SpanLanes`);
/// stop, 0x8000 in each lane the byte ends (the bit a lane at its threshold has after the
/// bias; 0xC000 in lane 0 for `=`), all ones (`checkStop`) for a byte with a check of its own (`\`, `%`, compression
/// magic), so that `(runs + bias) & stop` is not 0 exactly when the byte has something to do
/// (`runs + bias` never is 0: lane 0's bias is not). In memory that is never freed (a pointer,
/// not an array: no retain or bounds check in the scan loop). Written once, before first use,
/// then only read.
nonisolated(unsafe) let spanLaneTable: UnsafePointer<UInt64> = {
    let table = UnsafeMutablePointer<UInt64>.allocate(capacity: 3 * 256)
    for v in 0..<256 {
        let b = UInt8(v)
        // The lanes the byte continues (0x7FFF in each).
        var continued: UInt64 = 0
        if ByteCodecs.isBase64Byte(b) { continued |= 0x7FFF }
        if hexNibble(b) != nil { continued |= 0x7FFF << 16 }
        if b >= 0x41 || b == 0x2D || b == 0x27 { continued |= 0x7FFF << 32 }
        if (b >= 0x30 && b <= 0x39) || b == 0x20 || b == 0x2D || b == 0x2E || b == 0x28 || b == 0x29 || b == 0x2F || b == 0x2B {
            continued |= 0x7FFF << 48
        }
        let check = b == 0x5C || b == 0x25 || b == 0x8B || b == 0x01 || b == 0x5E || b == 0x9C || b == 0xDA
        let upper = b >= 0x41 && b <= 0x5A
        // An upper case letter sets lane 0's bit 14: cleared by keep, added back with the length.
        table[SpanLanes.keepEntry + v] = upper ? continued & ~SpanLanes.base64Upper : continued
        // Lane 2 counts a word's bytes that are not ASCII. A byte that is neither hex nor glue
        // sets lane 1's clean bit for the hex run after it (kept by hex digits).
        let clean = hexNibble(b) == nil && !isHexGlue(b) ? SpanLanes.hexClean << 16 : 0
        table[SpanLanes.addEntry + v] = continued & SpanLanes.ones & (b >= 0x80 ? ~0 : ~(1 << 32)) | (upper ? SpanLanes.base64Upper : 0) | clean
        // A hex run that a glue byte ends is no whole value (`hexRunMatters`): no event for it.
        // `=` ends a base64 run that may be a padded candidate with or without upper case letters.
        let ended = ~(continued << 1) & SpanLanes.high & (isHexGlue(b) ? ~(0x8000 << 16) : ~0) | (b == 0x3D ? 0x4000 : 0)
        table[SpanLanes.stopEntry + v] = check ? SpanLanes.checkStop : ended
    }
    return UnsafePointer(table)
}()

/// The words of `ContentTypeWords.readsProtobufFirst`: a multipart body that holds one may have
/// a part typed as binary (walked whole).
let binaryTypeWords = FoldedKeySearch(ContentTypeWords.protobufFirstWords)

/// `ContentTypeWords.multipart`'s word.
let multipartWord = FoldedKeySearch([ContentTypeWords.multipartWord])

/// `foldASCII` of every byte (never freed; written once, before first use, then only read).
nonisolated(unsafe) let asciiFold: UnsafePointer<UInt8> = {
    let table = UnsafeMutablePointer<UInt8>.allocate(capacity: 256)
    for b in 0..<256 { table[b] = foldASCII(UInt8(b)) }
    return UnsafePointer(table)
}()

extension Array where Element == Range<Int> {
    /// Appends a span; the first one makes room for 8 (a part with spans mostly has several:
    /// one allocation instead of four).
    @inline(__always)
    mutating func appendSpan(_ span: Range<Int>) {
        if capacity == 0 { reserveCapacity(8) }
        append(span)
    }
}

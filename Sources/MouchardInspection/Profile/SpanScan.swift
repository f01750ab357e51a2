import MouchardWire

extension KnownValueMatcher {
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
    /// replaces, on the run that ended.
    ///
    /// The specification is the reference scan, `referenceSpans` in
    /// Tests/MouchardInspectionTests/SpanScanReference.swift: one plain loop per kind of span,
    /// each run checked where it ends. This scan must give exactly its spans; `SpanScanTests`
    /// compares the two on random bytes, edge cases and the profiles' own values. With `context.firstSpanOnly` (checks of decoded runs, which
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
            // Chunks keep every lane below its top bit (see `SpanLanes.rebase`).
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
                // A lane at its threshold that the byte ends; `=` also reads the base64 lane's
                // `base64Upper` bit (a run of 10 or more without an upper case letter may be
                // padded, see `SpanLanes`).
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
            // A lane at its threshold (its top bit after the bias) that the byte ends, or a check byte.
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
        let padding = i < p.count && p[i] == UInt8(ascii: "=")
        if over & SpanLanes.Lane.base64.top != 0
            || (padding && SpanLanes.Lane.base64.length(in: ended) >= SpanLanes.base64Threshold) {
            let s = i - lanes.take(ended, .base64)
            if base64Candidate(p, s, i), base64RunMatters(p, s, i, context: lanes.context) { out.appendSpan((base + s)..<(base + i)) }
        }
        // The hex run's length (0 when it is below its threshold).
        var hexLength = 0
        if over & SpanLanes.Lane.hex.top != 0 {
            hexLength = lanes.hexRunLength(ended, endingAt: i)
            let s = i - hexLength
            // An odd number of hex digits is never `hexText` (most are timestamps in milliseconds).
            if hexLength % 2 == 0, hexRunMatters(p, s, i, context: lanes.context) { out.appendSpan((base + s)..<(base + i)) }
        }
        if over & SpanLanes.Lane.nameWord.top != 0 {
            // A word with a byte that is not ASCII ended (the lane counts those bytes): it counts
            // at a name part's length (`namePartWord`). It starts at its first byte >= `A` (not
            // at `-` or `'`). ASCII words are the automaton's (`spanMatcher`).
            _ = lanes.take(ended, .nameWord)
            var s = i
            while s > 0, isNameWordByte(p[s - 1]) { s -= 1 }
            while s < i, p[s] < UInt8(ascii: "A") { s += 1 }
            if s < i, hasNamePartLength(i - s) { out.appendSpan((base + s)..<(base + i)) }
        }
        if over & SpanLanes.Lane.stretch.top != 0 {
            let length = lanes.take(ended, .stretch)
            // The hex run's length even when it had no check of its own (after a glue byte).
            if over & SpanLanes.Lane.hex.top == 0 { hexLength = lanes.hexRunLength(ended, endingAt: i) }
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
}

extension Array where Element == Range<Int> {
    /// Appends a span; the first one makes room for 8 (a part with spans mostly has several:
    /// one allocation instead of four).
    @inline(__always)
    mutating func appendSpan(_ span: Range<Int>) {
        if capacity == 0 { reserveCapacity(8) }
        append(span)
    }
}

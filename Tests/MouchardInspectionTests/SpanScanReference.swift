import MouchardWire
@testable import MouchardInspection

// The specification of the span scan (`KnownValueMatcher.scanSpans` and `phoneRuns`): one plain
// loop per kind of span, each run checked where it ends, with no lanes, tables or events. The
// fused scan must give exactly these spans; `SpanScanTests` holds it to them. A change of what
// counts as a span is made here first.

extension KnownValueMatcher {
    /// The interesting spans of `bytes`, in its own indices, sorted by lower bound.
    func referenceSpans(_ bytes: ArraySlice<UInt8>) -> [Range<Int>] {
        if bytes.isEmpty { return [] }
        var out: [Range<Int>] = []
        let base = bytes.startIndex
        bytes.withUnsafeBufferPointer { buf in
            matcher.forEachMatch(in: buf) { m in out.append((base + m.start)..<(base + m.end)) }
            if !phoneDigits.isEmpty {
                referencePhoneRuns(buf) { start, last, _ in out.append((base + start)..<(base + last + 1)) }
            }
            referenceScanSpans(buf, base: base, into: &out)
        }
        if out.count > 1 { out.sort { $0.lowerBound < $1.lowerBound } }
        return out
    }

    /// Everything but variants and phone runs, in one pass with a byte-class table.
    fileprivate func referenceScanSpans(_ p: UnsafeBufferPointer<UInt8>, base: Int, into out: inout [Range<Int>]) {
        referenceSpanByteClass.withUnsafeBufferPointer { referenceScanSpans(p, base: base, classes: $0, into: &out) }
    }

    fileprivate func referenceScanSpans(_ p: UnsafeBufferPointer<UInt8>, base: Int, classes spanByteClass: UnsafeBufferPointer<UInt8>,
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
                } else if c & ReferenceSpanByteClass.word == 0 {
                    if namePartWord(p, wordStart, i) { out.append((base + wordStart)..<(base + i)) }
                    wordStart = -1
                }
            }
            if c & ReferenceSpanByteClass.base64 != 0 {
                run += 1
            } else {
                if run >= 10, base64Candidate(p, i - run, i), base64RunMatters(p, i - run, i, context: .value) { out.append((base + i - run)..<(base + i)) }
                run = 0
            }
            if c & ReferenceSpanByteClass.hex != 0 {
                hexRun += 1
            } else {
                if hexRun >= 8, hexText(p, i - hexRun, i), hexRunMatters(p, i - hexRun, i, context: .value) { out.append((base + i - hexRun)..<(base + i)) }
                hexRun = 0
            }
            if i == n { break }
            if c & ReferenceSpanByteClass.special != 0 {
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
                case 0xB0, 0xBA:
                    if i > 0, p[i - 1] == 0xC2 { out.append((base + i - 1)..<(base + i + 1)) } // degree signs
                case 0x2E:
                    if let loc, let r = nearCoordinate(p, dot: i, loc) { out.append((base + r.lowerBound)..<(base + r.upperBound)) }
                default: break
                }
            }
            if let loc, c & ReferenceSpanByteClass.digit != 0, i == 0 || spanByteClass[Int(p[i - 1])] & ReferenceSpanByteClass.digit == 0 {
                var e = i
                var v = 0
                while e < n, e - i < 12, spanByteClass[Int(p[e])] & ReferenceSpanByteClass.digit != 0 { v = v * 10 + Int(p[e] - 0x30); e += 1 }
                if e - i >= 6, e - i <= 11, nearScaled(Double(v), loc) { out.append((base + i)..<(base + e)) }
            }
            i += 1
        }
    }

    /// Each run of digits and separators that normalizes to a profile phone number: its first and
    /// last byte index and the targets it stands for.
    func referencePhoneRuns(_ bytes: UnsafeBufferPointer<UInt8>, _ found: (_ start: Int, _ last: Int, _ targets: [Target]) -> Void) {
        var i = 0
        let n = bytes.count
        while i < n {
            let b = bytes[i]
            guard b == 0x2B || b == 0x28 || (b >= 0x30 && b <= 0x39) else { i += 1; continue }
            if i > 0, isASCIIAlnum(bytes[i - 1]) {
                i += 1
                while i < n, isASCIIAlnum(bytes[i]) { i += 1 }
                continue
            }
            let start = i
            // Digits are counted here and collected only for a candidate (no allocation per run).
            var digitCount = 0
            var separators = 0
            var last = i
            while i < n, digitCount <= 16 {
                let c = bytes[i]
                if c >= 0x30 && c <= 0x39 { digitCount += 1; last = i } else if c == 0x20 || c == 0x2D || c == 0x2E || c == 0x28 || c == 0x29 || c == 0x2F || (c == 0x2B && i == start) {
                    separators += 1
                } else { break }
                i += 1
            }
            guard digitCount >= 8, separators > 0, i >= n || !isASCIIAlnum(bytes[i]) else { continue }
            let digits = bytes[start..<i].filter { $0 >= 0x30 && $0 <= 0x39 }
            var key = String(decoding: digits, as: UTF8.self)
            var targets = phoneDigits[key]
            // `+33 (0)6 …`: a trunk 0 written after the country code.
            if targets == nil, let zero = key.firstIndex(of: "0"), key.distance(from: key.startIndex, to: zero) <= 3 {
                var k = key
                k.remove(at: zero)
                if let t = phoneDigits[k] { targets = t; key = k }
            }
            if let targets { found(start, last, targets) }
        }
    }
}

/// Byte classes for the span scan (bit flags).
enum ReferenceSpanByteClass {
    static let base64: UInt8 = 1
    static let hex: UInt8 = 2
    static let digit: UInt8 = 4
    /// Bytes of a name-like word: `A` and above, `-`, `'`.
    static let word: UInt8 = 8
    /// Bytes that start a check of their own: `\`, `%`, `.`, 0x1F, `x`.
    static let special: UInt8 = 16
}

let referenceSpanByteClass: [UInt8] = (0..<256).map { v in
    let b = UInt8(v)
    var c: UInt8 = 0
    if ByteCodecs.isBase64Byte(b) { c |= ReferenceSpanByteClass.base64 }
    if hexNibble(b) != nil { c |= ReferenceSpanByteClass.hex }
    if b >= 0x30 && b <= 0x39 { c |= ReferenceSpanByteClass.digit }
    if b >= 0x41 || b == 0x2D || b == 0x27 { c |= ReferenceSpanByteClass.word }
    if b == 0x5C || b == 0x25 || b == 0x2E || b == 0x1F || b == 0x78 || b == 0xB0 || b == 0xBA { c |= ReferenceSpanByteClass.special }
    return c
}

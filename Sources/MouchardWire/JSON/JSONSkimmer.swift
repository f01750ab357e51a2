/// Reads the structure of a JSON text without building it: checks that a text is one value
/// `JSONParser` accepts (same grammar, same depth limit), then lets a caller step through the
/// members of objects and the items of arrays as byte ranges and decode only the strings it
/// wants. The inspector uses it on request bodies, where most members hold nothing of interest
/// and building a `JSONValue` for each would cost more than looking at it.
///
/// Every read is bounds-checked; positions are indices into the array the skimmer was made on.
public struct JSONSkimmer: Sendable {
    public let bytes: [UInt8]
    public let maxDepth: Int
    /// Every value of the text `validateIndexing` (or `validateSequenceIndexing`) accepted, in the
    /// order values open (a container before its contents, so starts are sorted): walking members
    /// and items is reading entries, not scanning bytes again. Empty otherwise.
    public private(set) var tape: [Entry] = []

    /// One value's place: `start..<end` covers the value itself (quotes included for strings).
    public struct Span: Sendable, Equatable {
        public var start: Int
        public var end: Int
        public var kind: Kind
    }

    /// What a value is, read from its first byte.
    public enum Kind: Sendable, Equatable {
        case object, array, string, number, literal
    }

    /// An object member: the key's span (a string) and the value's span.
    public struct Member: Sendable, Equatable {
        public var key: Span
        public var value: Span
    }

    /// One value of `tape`: its span, the key naming it when it is an object's member, and where
    /// the entries of its contents end (a container's children are the entries from its own index
    /// + 1, each followed by its `next` sibling, up to its own `next`).
    public struct Entry: Sendable, Equatable {
        public var start: Int
        public var end: Int
        public var kind: Kind
        /// The string holds a backslash (escapes to undo); false for other kinds.
        public var escaped: Bool
        /// The member's key holds a backslash.
        public var keyEscaped: Bool
        /// The member's key (quotes included), `-1..<-1` for items and top-level values.
        public var keyStart: Int
        public var keyEnd: Int
        /// The index of the first entry after this value and its contents.
        public var next: Int

        public var span: Span { Span(start: start, end: end, kind: kind) }
        /// The key's span, nil when the value is not an object's member.
        public var key: Span? { keyStart >= 0 ? Span(start: keyStart, end: keyEnd, kind: .string) : nil }
    }

    public init(_ bytes: [UInt8], maxDepth: Int = 64) {
        self.bytes = bytes
        self.maxDepth = maxDepth
    }

    // MARK: validation

    /// The span of the one value in `range` (surrounding whitespace allowed, nothing else), when
    /// `JSONParser().parse(bytes[range])` would accept it; nil otherwise.
    public func validate(_ range: Range<Int>) -> Span? {
        guard range.lowerBound >= 0, range.upperBound <= bytes.count else { return nil }
        return bytes.withUnsafeBufferPointer { p -> Span? in
            var v = Validator(p: p, end: range.upperBound, maxDepth: maxDepth, i: range.lowerBound)
            v.skipSpace()
            let start = v.i
            guard start < v.end, let kind = Self.kind(p[start]), v.value(depth: 0) else { return nil }
            let end = v.i
            v.skipSpace()
            return v.i == v.end ? Span(start: start, end: end, kind: kind) : nil
        }
    }

    /// `validate(range)`, recording every value of the accepted text in `tape` (the value itself is
    /// entry 0) so that it can be walked without scanning it again (a body is checked once, then
    /// walked level by level); `members` and `items` also step over nested containers by look-up.
    ///
    /// `walkedSpans` are the spans (counted in `bytes`) a pruned walk will skip by: it enters a
    /// nested container only when the container's bytes touch one of them, so a container nested
    /// in the value that starts at or after the end of every span is recorded without its contents
    /// (its own entry, with its end, but no children). Its bytes are validated all the same: the
    /// same texts are accepted. Nil records everything.
    public mutating func validateIndexing(_ range: Range<Int>, walkedSpans: [Range<Int>]? = nil) -> Span? {
        guard range.lowerBound >= 0, range.upperBound <= bytes.count else { return nil }
        let maxDepth = maxDepth
        tape = []
        let found = bytes.withUnsafeBufferPointer { p -> (Span, [Entry])? in
            var v = Validator(p: p, end: range.upperBound, maxDepth: maxDepth, i: range.lowerBound, records: true)
            if let walkedSpans {
                v.contentsUnrecordedFrom = walkedSpans.reduce(Int.min) { max($0, $1.upperBound) }
            }
            // About one value per 16 bytes of text: most bodies need no regrowth.
            v.tape.reserveCapacity(range.count / 16 + 2)
            v.skipSpace()
            let start = v.i
            guard start < v.end, let kind = Self.kind(p[start]), v.value(depth: 0) else { return nil }
            let end = v.i
            v.skipSpace()
            return v.i == v.end ? (Span(start: start, end: end, kind: kind), v.tape) : nil
        }
        guard let found else { return nil }
        tape = found.1
        return found.0
    }

    /// `validateSequence(range)`, recording every value in `tape` as `validateIndexing` does: the
    /// tape index of each top-level value, or nil (and an empty tape).
    public mutating func validateSequenceIndexing(_ range: Range<Int>) -> [Int]? {
        guard range.lowerBound >= 0, range.upperBound <= bytes.count else { return nil }
        let maxDepth = maxDepth
        tape = []
        let found = bytes.withUnsafeBufferPointer { p -> ([Int], [Entry])? in
            var v = Validator(p: p, end: range.upperBound, maxDepth: maxDepth, i: range.lowerBound, records: true)
            var roots: [Int] = []
            v.skipSpace()
            while v.i < v.end {
                let root = v.tape.count
                guard Self.kind(p[v.i]) != nil, v.value(depth: 0) else { return nil }
                roots.append(root)
                v.skipSpace()
                if roots.count > 100_000 { return nil }
            }
            return roots.count >= 2 ? (roots, v.tape) : nil
        }
        guard let found else { return nil }
        tape = found.1
        return found.0
    }

    /// The spans of a sequence of JSON texts separated by whitespace (NDJSON, JSON Lines) in
    /// `range`, each one a value `JSONParser` accepts: at least two values, at most 100,000; nil
    /// otherwise.
    public func validateSequence(_ range: Range<Int>) -> [Span]? {
        guard range.lowerBound >= 0, range.upperBound <= bytes.count else { return nil }
        return bytes.withUnsafeBufferPointer { p -> [Span]? in
            var v = Validator(p: p, end: range.upperBound, maxDepth: maxDepth, i: range.lowerBound)
            var out: [Span] = []
            v.skipSpace()
            while v.i < v.end {
                let start = v.i
                guard let kind = Self.kind(p[start]), v.value(depth: 0) else { return nil }
                out.append(Span(start: start, end: v.i, kind: kind))
                v.skipSpace()
                if out.count > 100_000 { return nil }
            }
            return out.count >= 2 ? out : nil
        }
    }

    /// The same checks as `JSONParser.Cursor`, without building values.
    private struct Validator {
        let p: UnsafeBufferPointer<UInt8>
        let end: Int
        let maxDepth: Int
        var i: Int
        /// When true, each value is appended to `tape` (see `JSONSkimmer.tape`).
        var records = false
        /// A nested container starting here or later is recorded without its contents (see
        /// `validateIndexing(_:walkedSpans:)`).
        var contentsUnrecordedFrom = Int.max
        var tape: [Entry] = []
        /// The last string read held a backslash.
        var escaped = false
        /// The last index from which eight bytes can be read before `end` (the string scan's word
        /// step); below every index when the buffer has no base address (then it holds no byte).
        let lastWord: Int
        /// `p`'s first byte, for the word step (non-nil whenever an index is at most `lastWord`).
        let wordBase: UnsafeRawPointer?

        init(p: UnsafeBufferPointer<UInt8>, end: Int, maxDepth: Int, i: Int, records: Bool = false) {
            self.p = p
            self.end = end
            self.maxDepth = maxDepth
            self.i = i
            self.records = records
            wordBase = UnsafeRawPointer(p.baseAddress)
            lastWord = wordBase == nil ? Int.min : min(end, p.count) - 8
        }

        mutating func skipSpace() {
            // A local cursor stays in a register; `&+` cannot overflow below `end`.
            var j = i
            while j < end {
                let b = p[j]
                if b == 0x20 || b == 0x0A || b == 0x0D || b == 0x09 { j &+= 1 } else { break }
            }
            i = j
        }

        /// One value at the cursor, recorded when `records`; `key` is the member's key (quotes
        /// included) when the value is an object's member, `-1..<-1` otherwise.
        @inline(__always)
        mutating func value(depth: Int, key: (start: Int, end: Int, escaped: Bool) = (-1, -1, false)) -> Bool {
            guard i < end, depth < maxDepth else { return false }
            let slot = tape.count
            let start = i
            // Strings and numbers (most values) are read here, then recorded whole: their first
            // byte is looked at once and no call of `read` is made for them. A container's place
            // comes before its contents' (its end filled in once they are read). One append
            // records every kind.
            let first = p[i]
            let kind: Kind
            if first == UInt8(ascii: "\"") {
                guard string() else { return false }
                kind = .string
            } else if first == UInt8(ascii: "-") || (first >= UInt8(ascii: "0") && first <= UInt8(ascii: "9")) {
                guard number() else { return false }
                kind = .number
            } else {
                guard records else { return read(depth: depth) }
                guard let opened = JSONSkimmer.kind(first) else { return false }
                kind = opened
            }
            if records {
                tape.append(Entry(start: start, end: i, kind: kind, escaped: kind == .string && escaped, keyEscaped: key.escaped,
                                  keyStart: key.start, keyEnd: key.end, next: slot + 1))
            }
            if kind == .string || kind == .number { return true }
            if depth > 0, start >= contentsUnrecordedFrom {
                // Never entered by the walk: checked, not recorded.
                records = false
                let valid = read(depth: depth)
                records = true
                guard valid, slot < tape.count else { return false }
                tape[slot].end = i
                return true
            }
            guard read(depth: depth), slot < tape.count else { return false }
            tape[slot].end = i
            tape[slot].next = tape.count
            return true
        }

        /// One value at the cursor (the grammar; `value` records it).
        mutating func read(depth: Int) -> Bool {
            guard depth < maxDepth, i < end else { return false }
            switch p[i] {
            case UInt8(ascii: "{"):
                i += 1
                skipSpace()
                if i < end, p[i] == UInt8(ascii: "}") { i += 1; return true }
                while true {
                    skipSpace()
                    let keyStart = i
                    guard i < end, p[i] == UInt8(ascii: "\""), string() else { return false }
                    let key = (start: keyStart, end: i, escaped: escaped)
                    skipSpace()
                    guard i < end, p[i] == UInt8(ascii: ":") else { return false }
                    i += 1
                    skipSpace()
                    guard value(depth: depth + 1, key: key) else { return false }
                    skipSpace()
                    guard i < end else { return false }
                    if p[i] == UInt8(ascii: ",") { i += 1; continue }
                    if p[i] == UInt8(ascii: "}") { i += 1; return true }
                    return false
                }
            case UInt8(ascii: "["):
                i += 1
                skipSpace()
                if i < end, p[i] == UInt8(ascii: "]") { i += 1; return true }
                while true {
                    skipSpace()
                    guard value(depth: depth + 1) else { return false }
                    skipSpace()
                    guard i < end else { return false }
                    if p[i] == UInt8(ascii: ",") { i += 1; continue }
                    if p[i] == UInt8(ascii: "]") { i += 1; return true }
                    return false
                }
            case UInt8(ascii: "\""): return string()
            case UInt8(ascii: "t"): return literal("true")
            case UInt8(ascii: "f"): return literal("false")
            case UInt8(ascii: "n"): return literal("null")
            case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return number()
            default: return false
            }
        }

        mutating func literal(_ word: StaticString) -> Bool {
            let n = word.utf8CodeUnitCount
            guard i + n <= end else { return false }
            let w = word.utf8Start
            for k in 0..<n where p[i + k] != w[k] { return false }
            i += n
            return true
        }

        mutating func digits() -> Int {
            let s = i
            var j = i
            while j < end, p[j] >= 0x30, p[j] <= 0x39 { j &+= 1 }
            i = j
            return j &- s
        }

        mutating func number() -> Bool {
            if p[i] == UInt8(ascii: "-") { i += 1 }
            guard digits() > 0 else { return false }
            if i < end, p[i] == UInt8(ascii: ".") {
                i += 1
                guard digits() > 0 else { return false }
            }
            if i < end, p[i] == UInt8(ascii: "e") || p[i] == UInt8(ascii: "E") {
                i += 1
                if i < end, p[i] == UInt8(ascii: "+") || p[i] == UInt8(ascii: "-") { i += 1 }
                guard digits() > 0 else { return false }
            }
            return true
        }

        mutating func hex4() -> UInt32? {
            guard i + 4 <= end else { return nil }
            var v: UInt32 = 0
            for _ in 0..<4 {
                guard let h = hexNibble(p[i]) else { return nil }
                v = v << 4 | UInt32(h)
                i += 1
            }
            return v
        }

        /// A string starting at the quote under the cursor.
        @inline(__always)
        mutating func string() -> Bool {
            // A local cursor (in a register through the scan), written back on the way out; `&+`
            // cannot overflow: every step stays at or below `end`.
            var j = i &+ 1
            escaped = false
            defer { i = j }
            while true {
                // Eight bytes at a time: straight to the first quote, backslash or control byte
                // (`j <= lastWord` keeps the word inside `p` and before `end`, and `wordBase`
                // non-nil).
                while j <= lastWord {
                    let word = wordBase.unsafelyUnwrapped.loadUnaligned(fromByteOffset: j, as: UInt64.self)
                    let flags = JSONSkimmer.stringSpecialFlags(UInt64(littleEndian: word))
                    if flags == 0 { j &+= 8; continue }
                    j &+= flags.trailingZeroBitCount &>> 3
                    break
                }
                // At a quote, a backslash or a control byte (or, in the last seven bytes of the
                // buffer, at any byte).
                guard j < end else { return false }
                let b = p[j]
                if b == UInt8(ascii: "\"") { j &+= 1; return true }
                if b == UInt8(ascii: "\\") {
                    escaped = true
                    j &+= 1
                    guard j < end else { return false }
                    let e = p[j]
                    j &+= 1
                    switch e {
                    case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"), UInt8(ascii: "b"), UInt8(ascii: "f"),
                         UInt8(ascii: "n"), UInt8(ascii: "r"), UInt8(ascii: "t"):
                        continue
                    case UInt8(ascii: "u"):
                        i = j
                        defer { j = i }
                        guard let scalar = hex4() else { return false }
                        if scalar >= 0xD800, scalar < 0xDC00, i + 6 <= end, p[i] == UInt8(ascii: "\\"), p[i + 1] == UInt8(ascii: "u") {
                            i += 2
                            guard hex4() != nil else { return false }
                        }
                        continue
                    default:
                        return false
                    }
                }
                if b < 0x20 { return false }
                j &+= 1
            }
        }
    }

    /// The high bit of each byte of `w` (first byte lowest) that is a quote, a backslash or a
    /// control byte, and possibly of bytes after such a one: the lowest bit set marks the first
    /// of them exactly (a borrow only runs upward from a byte that is one), zero when there is none.
    @inline(__always)
    static func stringSpecialFlags(_ w: UInt64) -> UInt64 {
        let low: UInt64 = 0x0101_0101_0101_0101
        let high: UInt64 = 0x8080_8080_8080_8080
        let quote = w ^ (low &* 0x22), backslash = w ^ (low &* 0x5C)
        let zeroQuote = (quote &- low) & ~quote
        let zeroBackslash = (backslash &- low) & ~backslash
        let below20 = (w &- low &* 0x20) & ~w
        return (zeroQuote | zeroBackslash | below20) & high
    }

    private static func kind(_ first: UInt8) -> Kind? {
        switch first {
        case UInt8(ascii: "{"): .object
        case UInt8(ascii: "["): .array
        case UInt8(ascii: "\""): .string
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): .number
        case UInt8(ascii: "t"), UInt8(ascii: "f"), UInt8(ascii: "n"): .literal
        default: nil
        }
    }

    // MARK: stepping through a validated value

    /// The members of the object at `span`, in order (keys may repeat). `span` must come from
    /// `validate` or from this skimmer's own `members`/`items`: the text is known to be valid.
    public func members(of span: Span) -> [Member] {
        guard span.kind == .object else { return [] }
        var out: [Member] = []
        var i = span.start + 1
        while true {
            i = skipSpace(i)
            guard i < span.end, bytes[i] == UInt8(ascii: "\"") else { return out }
            let key = Span(start: i, end: skipString(i), kind: .string)
            i = skipSpace(key.end)
            guard i < span.end, bytes[i] == UInt8(ascii: ":") else { return out }
            i = skipSpace(i + 1)
            guard i < span.end, let value = valueSpan(at: i) else { return out }
            out.append(Member(key: key, value: value))
            i = skipSpace(value.end)
            guard i < span.end, bytes[i] == UInt8(ascii: ",") else { return out }
            i += 1
        }
    }

    /// The items of the array at `span`, in order (see `members` for what `span` must be).
    public func items(of span: Span) -> [Span] {
        guard span.kind == .array else { return [] }
        var out: [Span] = []
        var i = skipSpace(span.start + 1)
        guard i < span.end, bytes[i] != UInt8(ascii: "]") else { return out }
        while true {
            i = skipSpace(i)
            guard i < span.end, let value = valueSpan(at: i) else { return out }
            out.append(value)
            i = skipSpace(value.end)
            guard i < span.end, bytes[i] == UInt8(ascii: ",") else { return out }
            i += 1
        }
    }

    /// The bytes of the string at `span` with its escapes undone, exactly as `JSONParser` gives them.
    public func string(_ span: Span) -> [UInt8] {
        guard span.kind == .string, span.end - span.start >= 2 else { return [] }
        let inner = (span.start + 1)..<(span.end - 1)
        if !bytes[inner].contains(UInt8(ascii: "\\")) { return Array(bytes[inner]) }
        if let s = simplyUnescaped(inner) { return s }
        // Anything unusual (a surrogate, a broken escape, a control byte): let the parser decode
        // (one code path for what it means).
        if case .string(let s)? = (try? JSONParser(maxDepth: 1).parse(bytes[span.start..<span.end]))?.kind { return s }
        return []
    }

    /// The bytes of `inner` (a string's bytes between its quotes) with their escapes undone, when
    /// every escape is one letter or a `\u` outside the surrogates and no byte is a quote or a
    /// control byte: what `JSONParser` gives for them, without its setup. Nil otherwise.
    private func simplyUnescaped(_ inner: Range<Int>) -> [UInt8]? {
        bytes.withUnsafeBufferPointer { p -> [UInt8]? in
            guard inner.lowerBound >= 0, inner.upperBound <= p.count else { return nil }
            var out: [UInt8] = []
            out.reserveCapacity(inner.count)
            var i = inner.lowerBound
            let end = inner.upperBound
            while i < end {
                let b = p[i]
                if b == UInt8(ascii: "\"") || b < 0x20 { return nil }
                guard b == UInt8(ascii: "\\") else { out.append(b); i += 1; continue }
                guard i + 1 < end else { return nil }
                let e = p[i + 1]
                if let simple = jsonSimpleEscape(e) { out.append(simple); i += 2; continue }
                guard e == UInt8(ascii: "u"), i + 6 <= end else { return nil }
                var v: UInt32 = 0
                for k in (i + 2)..<(i + 6) {
                    guard let h = hexNibble(p[k]) else { return nil }
                    v = v << 4 | UInt32(h)
                }
                if v >= 0xD800 && v < 0xE000 { return nil }
                if v < 0x80 {
                    out.append(UInt8(v))
                } else if v < 0x800 {
                    out.append(UInt8(0xC0 | v >> 6))
                    out.append(UInt8(0x80 | v & 0x3F))
                } else {
                    out.append(UInt8(0xE0 | v >> 12))
                    out.append(UInt8(0x80 | (v >> 6) & 0x3F))
                    out.append(UInt8(0x80 | v & 0x3F))
                }
                i += 6
            }
            return out
        }
    }

    /// `string(span)` as a slice: of `bytes` itself (no copy) when the string holds no escape.
    public func stringSlice(_ span: Span) -> ArraySlice<UInt8> {
        guard span.kind == .string, span.end - span.start >= 2 else { return [] }
        let inner = bytes[(span.start + 1)..<(span.end - 1)]
        return inner.contains(UInt8(ascii: "\\")) ? string(span)[...] : inner
    }

    /// `String(decoding: string(span), as: UTF8.self)` without the intermediate array when the
    /// string holds no escape.
    public func text(_ span: Span) -> String {
        guard span.kind == .string, span.end - span.start >= 2 else { return "" }
        let inner = bytes[(span.start + 1)..<(span.end - 1)]
        return String(decoding: inner.contains(UInt8(ascii: "\\")) ? string(span)[...] : inner, as: UTF8.self)
    }

    /// `stringSlice(entry.span)` for a string of `tape`, without looking for escapes again.
    public func stringSlice(_ entry: Entry) -> ArraySlice<UInt8> {
        guard entry.kind == .string, entry.end - entry.start >= 2, entry.end <= bytes.count, entry.start >= 0 else { return [] }
        return entry.escaped ? string(entry.span)[...] : bytes[(entry.start + 1)..<(entry.end - 1)]
    }

    /// The text of the key of a member of `tape` (`text(key)`, without looking for escapes again);
    /// empty for an entry without a key.
    public func keyText(_ entry: Entry) -> String {
        guard let key = entry.key, key.end - key.start >= 2, key.end <= bytes.count else { return "" }
        if entry.keyEscaped { return String(decoding: string(key), as: UTF8.self) }
        return bytes.withUnsafeBufferPointer { p in
            String(decoding: UnsafeBufferPointer(rebasing: p[(key.start + 1)..<(key.end - 1)]), as: UTF8.self)
        }
    }

    /// The string at `span` decodes to fewer than `n` bytes (cheap: escapes only shorten it, and
    /// are decoded only when the raw length leaves a doubt).
    public func stringIsShorter(_ span: Span, than n: Int) -> Bool {
        let raw = span.end - span.start - 2
        if raw < n { return true }
        // An escape is at most 6 raw bytes per byte it decodes to (`\u0041`; a surrogate pair,
        // even a broken one, is 12 for 3 or 4): this many raw bytes hold at least `n`.
        if raw >= 6 * n { return false }
        let inner = (span.start + 1)..<(span.end - 1)
        if !bytes[inner].contains(UInt8(ascii: "\\")) { return false }
        return string(span).count < n
    }

    private func skipSpace(_ from: Int) -> Int {
        var i = from
        while i < bytes.count {
            let b = bytes[i]
            if b == 0x20 || b == 0x0A || b == 0x0D || b == 0x09 { i += 1 } else { break }
        }
        return i
    }

    /// End of the string whose opening quote is at `start` (after its closing quote).
    private func skipString(_ start: Int) -> Int {
        var i = start + 1
        while i < bytes.count {
            let b = bytes[i]
            if b == UInt8(ascii: "\"") { return i + 1 }
            i += b == UInt8(ascii: "\\") ? 2 : 1
        }
        return bytes.count
    }

    /// The span of the (valid) value starting at `i`.
    private func valueSpan(at i: Int) -> Span? {
        guard i < bytes.count, let kind = Self.kind(bytes[i]) else { return nil }
        var j = i
        switch kind {
        case .string:
            j = skipString(i)
        case .number:
            j += 1
            while j < bytes.count, Self.isNumberByte(bytes[j]) { j += 1 }
        case .literal:
            j += bytes[i] == UInt8(ascii: "f") ? 5 : 4
        case .object, .array:
            if let known = knownEnd(ofContainerAt: i) { return Span(start: i, end: known, kind: kind) }
            // Skip to the matching bracket, stepping over strings.
            var depth = 0
            while j < bytes.count {
                let b = bytes[j]
                if b == UInt8(ascii: "\"") { j = skipString(j); continue }
                if b == UInt8(ascii: "{") || b == UInt8(ascii: "[") { depth += 1 }
                if b == UInt8(ascii: "}") || b == UInt8(ascii: "]") {
                    depth -= 1
                    if depth == 0 { j += 1; break }
                }
                j += 1
            }
        }
        return Span(start: i, end: min(j, bytes.count), kind: kind)
    }

    /// The end `validateIndexing` recorded for the container starting at `i`, if it recorded one.
    private func knownEnd(ofContainerAt i: Int) -> Int? {
        var low = 0, high = tape.count
        while low < high {
            let mid = (low + high) / 2
            if tape[mid].start < i { low = mid + 1 } else { high = mid }
        }
        guard low < tape.count, tape[low].start == i else { return nil }
        return tape[low].end
    }

    private static func isNumberByte(_ b: UInt8) -> Bool {
        (b >= 0x30 && b <= 0x39) || b == UInt8(ascii: ".") || b == UInt8(ascii: "e") || b == UInt8(ascii: "E")
            || b == UInt8(ascii: "+") || b == UInt8(ascii: "-")
    }
}

/// Finds every occurrence of many byte patterns in one pass (Aho–Corasick compiled to a DFA over
/// byte classes, ASCII case folded). To keep the automaton small, only the first `prefixLength`
/// bytes of each pattern go into the DFA; a hit on a prefix is confirmed against the whole
/// pattern (case-sensitively when the pattern asks for it) and its boundaries.
public struct MultiPatternMatcher: Sendable {
    /// One pattern and how to confirm it.
    public struct Pattern: Sendable {
        public var bytes: [UInt8]
        /// Compare exactly (base64 is case-sensitive); otherwise ASCII case is ignored.
        public var caseSensitive: Bool
        /// Require that the bytes before and after the match are not ASCII letters or digits.
        public var wordBoundary: Bool
        /// Require that the match is a whole name-like word (`isNameWordByte`): no such byte
        /// after it, none before it but `-` and `'` (a word starts at its first byte >= `A`).
        /// The span scan's name parts.
        public var nameWord: Bool
        public init(bytes: [UInt8], caseSensitive: Bool = false, wordBoundary: Bool = true, nameWord: Bool = false) {
            self.bytes = bytes
            self.caseSensitive = caseSensitive
            self.wordBoundary = wordBoundary
            self.nameWord = nameWord
        }
    }

    /// A confirmed occurrence: which pattern, and where in the haystack.
    public struct Match: Sendable, Hashable {
        public var pattern: Int
        public var start: Int
        public var end: Int
    }

    public let patterns: [Pattern]
    public let prefixLength: Int
    private let tables: Tables
    /// Matches of patterns from here on (in the tables' numbering) are not reported: this matcher
    /// shares another's automaton (`restricted(toFirst:)`).
    private let patternLimit: Int

    public init(patterns: [Pattern], prefixLength: Int = 12) {
        self.init(patterns: patterns, prefixLength: prefixLength, narrow: true)
    }

    /// `narrow` false keeps the transitions 32 bits wide whatever the automaton's size (tests:
    /// both widths give the same matches).
    init(patterns: [Pattern], prefixLength: Int = 12, narrow: Bool) {
        self.patterns = patterns
        self.prefixLength = prefixLength
        self.patternLimit = patterns.count
        // Byte classes: every folded byte that appears in a prefix gets its own class (up to 254);
        // the rest share one.
        var classOf = [UInt8](repeating: 0, count: 256)
        var next: Int = 1
        for p in patterns {
            for b in p.bytes.prefix(prefixLength) {
                let f = foldASCII(b)
                if classOf[Int(f)] == 0, next < 255 { classOf[Int(f)] = UInt8(next); next += 1 }
            }
        }
        let classes = next
        // Numbered for the cache, not by first appearance: hex digits first (the 16 entries of a
        // row that hex text reads, in one 64-byte line), then the other letters, the other bytes
        // of prefixes, and the bytes of no prefix last.
        var order: [UInt8] = []
        for b in Array("0123456789abcdefghijklmnopqrstuvwxyz".utf8) where classOf[Int(b)] != 0 { order.append(classOf[Int(b)]) }
        for c in 1..<classes where !order.contains(UInt8(c)) { order.append(UInt8(c)) }
        order.append(0)
        var number = [UInt8](repeating: 0, count: classes)
        for (k, c) in order.enumerated() { number[Int(c)] = UInt8(k) }
        for b in 0..<256 { classOf[b] = number[Int(classOf[Int(foldASCII(UInt8(b)))])] }
        // Trie.
        var goto: [[Int32]] = [[Int32](repeating: -1, count: classes)]
        var outs: [[Int32]] = [[]]
        for (index, p) in patterns.enumerated() where !p.bytes.isEmpty {
            var s = 0
            for b in p.bytes.prefix(prefixLength) {
                let c = Int(classOf[Int(b)])
                if goto[s][c] < 0 {
                    goto[s][c] = Int32(goto.count)
                    goto.append([Int32](repeating: -1, count: classes))
                    outs.append([])
                }
                s = Int(goto[s][c])
            }
            outs[s].append(Int32(index))
        }
        // Failure links, breadth first, turning the trie into a DFA.
        var fail = [Int](repeating: 0, count: goto.count)
        var queue: [Int] = []
        for c in 0..<classes {
            if goto[0][c] < 0 { goto[0][c] = 0 } else { queue.append(Int(goto[0][c])) }
        }
        var head = 0
        while head < queue.count {
            let s = queue[head]
            head += 1
            outs[s].append(contentsOf: outs[fail[s]])
            for c in 0..<classes {
                let t = Int(goto[s][c])
                if t >= 0 {
                    fail[t] = Int(goto[fail[s]][c])
                    queue.append(t)
                } else {
                    goto[s][c] = goto[fail[s]][c]
                }
            }
        }
        self.tables = Tables(classOf: classOf, classCount: classes, goto: goto, outputs: outs, patterns: patterns,
                             breadthFirst: [0] + queue, narrow: narrow)
    }

    private init(sharing other: MultiPatternMatcher, first count: Int) {
        self.patterns = Array(other.patterns.prefix(count))
        self.prefixLength = other.prefixLength
        self.tables = other.tables
        self.patternLimit = min(count, other.patternLimit)
    }

    /// A matcher of this one's first `count` patterns that shares its automaton (no memory of
    /// its own: the profile's matcher and the span scan's, which adds patterns after the
    /// variants, read the same tables). Its matches are this one's of those patterns, in the
    /// same order: a state's outputs list its own patterns, then those of its suffixes, longest
    /// first, each in pattern order, and the other patterns' states only add entries between.
    func restricted(toFirst count: Int) -> MultiPatternMatcher {
        MultiPatternMatcher(sharing: self, first: count)
    }

    /// Number of DFA states (for diagnostics and benchmarks).
    public var stateCount: Int { tables.stateCount }

    /// The transitions are 16 bits wide (see `Tables`).
    var isNarrow: Bool { tables.narrow }

    /// Calls `body` for every confirmed match in `haystack`, in the order of the automaton's run
    /// (see `Automaton.forEachAccepting`).
    public func forEachMatch(in haystack: UnsafeBufferPointer<UInt8>, _ body: (Match) -> Void) {
        let n = haystack.count
        guard n > 0, !patterns.isEmpty, let h = haystack.baseAddress else { return }
        automaton.forEachAccepting(in: h, count: n, depth: prefixLength) { state, i in
            confirmMatches(state: state, endingAt: i, in: h, count: n, body)
        }
    }

    /// The automaton as raw pointers, for a scanner that runs the matcher's step inside its
    /// own byte loop (the profile's span scan): `state = step(state, byte, entry)` from `start`,
    /// `entry` `UInt16` when `narrow`, else `Int32` (a loop generic over it, run with the one
    /// `narrow` says: each width its own compiled loop), and a state `>= firstAccepting` ends
    /// some pattern prefix: pass it to `confirmMatches`. The memory lives as long as this matcher.
    struct Automaton {
        /// Byte classes (256 bytes).
        let classes: UnsafeRawPointer
        /// The transitions (see `Tables`).
        let rows: UnsafeRawPointer
        /// Transitions are 16 bits wide (else 32).
        let narrow: Bool
        let start: Int
        /// States from here on (the last rows) end a pattern prefix.
        let firstAccepting: Int

        /// A state is its row's offset in `rows` in units of 32 bytes (`Tables.rowUnitShift`). The entry's
        /// address in its row depends on the byte only, so that the state waits for one shift and
        /// one load.
        @inline(__always)
        func step<Entry: FixedWidthInteger>(_ state: Int, _ byte: UInt8, _ entry: Entry.Type) -> Int {
            let c = Int(classes.load(fromByteOffset: Int(byte), as: UInt8.self))
            let column = rows + c &* MemoryLayout<Entry>.size
            return Int(truncatingIfNeeded: column.load(fromByteOffset: state &<< Tables.rowUnitShift, as: Entry.self))
        }
    }

    var automaton: Automaton {
        Automaton(classes: UnsafeRawPointer(tables.memory), rows: UnsafeRawPointer(tables.memory + Tables.classBytes),
                  narrow: tables.narrow, start: 0, firstAccepting: tables.firstAccepting)
    }

    /// The confirmed matches of the prefixes that accepting `state` ends at haystack index `i`.
    func confirmMatches(state: Int, endingAt i: Int, in h: UnsafePointer<UInt8>, count n: Int, _ body: (Match) -> Void) {
        let t = tables
        let row = (state << Tables.rowUnitShift) / t.rowBytes
        for j in Int(t.outStart[row])..<Int(t.outStart[row + 1]) {
            let pi = Int(t.outList[j])
            guard pi < patternLimit else { continue }
            let start = i + 1 - min(Int(t.patLength[pi]), prefixLength)
            if let m = t.confirm(pi, start: start, prefixLength: prefixLength, in: h, count: n) { body(m) }
        }
    }

    /// Every confirmed match in `bytes`.
    public func matches(in bytes: [UInt8]) -> [Match] {
        var out: [Match] = []
        bytes.withUnsafeBufferPointer { buf in forEachMatch(in: buf) { out.append($0) } }
        return out
    }

    /// The compiled automaton in flat, manually managed memory: the scan loop touches only raw
    /// pointers (no array bounds checks, retains or closures per byte). Immutable after init.
    /// `memory` holds the byte classes (256 bytes), then the transitions, a row per state.
    /// States are renumbered so that those ending a pattern prefix come last (one comparison per
    /// byte tells whether to look for matches), and a state is the offset of its row in units of
    /// 32 bytes (`rowUnitShift`: a shift per byte, no multiplication). Entries are `UInt16` when every
    /// state fits (automata up to 2 MB of rows: half the cache footprint of `Int32`, and the
    /// scan waits on these loads), else `Int32`.
    private final class Tables: @unchecked Sendable {
        static let classBytes = 256
        /// Rows are a multiple of 1 << this many bytes (16 entries of 16 bits), and states count
        /// in that unit.
        static let rowUnitShift = 5
        let memory: UnsafeMutableRawPointer
        let classCount: Int
        /// Entries per row: `classCount` rounded up to a multiple of 16, so that rows start on
        /// 32- or 64-byte boundaries (the first 16 classes of a row in one line).
        let rowEntries: Int
        /// Entries are `UInt16` (else `Int32`).
        let narrow: Bool
        /// Bytes per row.
        let rowBytes: Int
        /// States from here on end a pattern prefix.
        let firstAccepting: Int
        /// By row (state) number: where its outputs start in `outList`.
        let outStart: UnsafeMutablePointer<Int32>
        let outList: UnsafeMutablePointer<Int32>
        let patBytes: UnsafeMutablePointer<UInt8>
        let patStart: UnsafeMutablePointer<Int32>
        let patLength: UnsafeMutablePointer<Int32>
        let patFlags: UnsafeMutablePointer<UInt8>
        let stateCount: Int

        /// `breadthFirst`: every state, the root first, then by depth in the trie. `narrow` false:
        /// `Int32` entries whatever the size.
        init(classOf: [UInt8], classCount: Int, goto: [[Int32]], outputs: [[Int32]], patterns: [Pattern], breadthFirst: [Int],
             narrow: Bool) {
            self.classCount = classCount
            let rowEntries = (classCount + 15) & ~15
            self.rowEntries = rowEntries
            self.stateCount = goto.count
            // 16-bit entries when the last row's offset, in units, fits them.
            let narrow = narrow && 2 * goto.count * rowEntries <= (Int(UInt16.max) + 1) << Self.rowUnitShift
            self.narrow = narrow
            let entryBytes = narrow ? 2 : 4
            rowBytes = entryBytes * rowEntries
            // Row offsets must fit an Int32: past that the table alone would take 64 GB.
            precondition(4 * goto.count * rowEntries >> Self.rowUnitShift < Int(Int32.max), "automaton too large")
            // New numbers: states without outputs first (the root, without outputs, stays 0), each
            // kind breadth first: the states text visits most (the shallow ones) share cache lines
            // and pages.
            var renumbered = [Int](repeating: 0, count: goto.count)
            var order: [Int] = []
            order.reserveCapacity(goto.count)
            for s in breadthFirst where outputs[s].isEmpty { renumbered[s] = order.count; order.append(s) }
            let accepting = order.count
            for s in breadthFirst where !outputs[s].isEmpty { renumbered[s] = order.count; order.append(s) }
            let rowBytes = rowBytes
            func offset(_ row: Int) -> Int { row * rowBytes >> Self.rowUnitShift }
            self.firstAccepting = offset(accepting)
            self.memory = .allocate(byteCount: Self.classBytes + goto.count * rowBytes, alignment: 64)
            memory.initializeMemory(as: UInt8.self, from: classOf, count: 256)
            let rows = memory + Self.classBytes
            rows.initializeMemory(as: UInt8.self, repeating: 0, count: goto.count * rowBytes)
            for (row, s) in order.enumerated() {
                for c in 0..<classCount {
                    let next = offset(renumbered[Int(goto[s][c])])
                    let at = row * rowBytes + c * entryBytes
                    if narrow { rows.storeBytes(of: UInt16(next), toByteOffset: at, as: UInt16.self) } else {
                        rows.storeBytes(of: Int32(next), toByteOffset: at, as: Int32.self)
                    }
                }
            }
            let totalOut = outputs.reduce(0) { $0 + $1.count }
            self.outStart = .allocate(capacity: outputs.count + 1)
            self.outList = .allocate(capacity: max(1, totalOut))
            var at: Int32 = 0
            for (row, s) in order.enumerated() {
                let o = outputs[s]
                outStart[row] = at
                (outList + Int(at)).initialize(from: o, count: o.count)
                at += Int32(o.count)
            }
            outStart[outputs.count] = at
            let totalBytes = patterns.reduce(0) { $0 + $1.bytes.count }
            self.patBytes = .allocate(capacity: max(1, totalBytes))
            self.patStart = .allocate(capacity: max(1, patterns.count))
            self.patLength = .allocate(capacity: max(1, patterns.count))
            self.patFlags = .allocate(capacity: max(1, patterns.count))
            var b = 0
            for (i, p) in patterns.enumerated() {
                patStart[i] = Int32(b)
                patLength[i] = Int32(p.bytes.count)
                patFlags[i] = (p.caseSensitive ? 1 : 0) | (p.wordBoundary ? 2 : 0) | (p.nameWord ? 4 : 0)
                // A pattern compared ignoring case is kept folded (one fold per byte to confirm it).
                (patBytes + b).initialize(from: p.caseSensitive ? p.bytes : p.bytes.map(foldASCII), count: p.bytes.count)
                b += p.bytes.count
            }
        }

        deinit {
            memory.deallocate(); outStart.deallocate(); outList.deallocate()
            patBytes.deallocate(); patStart.deallocate(); patLength.deallocate(); patFlags.deallocate()
        }

        /// `h[from..<to]` (`foldASCII` of each byte when `folding`) is `p[from..<to]`: 8 bytes at a
        /// time (long variants: hashes, base64 forms, e-mail addresses), then one by one.
        @inline(__always)
        static func same(_ h: UnsafePointer<UInt8>, _ p: UnsafePointer<UInt8>, from: Int, to end: Int, folding: Bool) -> Bool {
            var j = from
            while j + 8 <= end {
                let x = UnsafeRawPointer(h + j).loadUnaligned(as: UInt64.self)
                let y = UnsafeRawPointer(p + j).loadUnaligned(as: UInt64.self)
                if (folding ? foldedASCII(x) : x) != y { return false }
                j += 8
            }
            while j < end {
                if (folding ? foldASCII(h[j]) : h[j]) != p[j] { return false }
                j += 1
            }
            return true
        }

        @inline(__always)
        func confirm(_ pi: Int, start: Int, prefixLength: Int, in h: UnsafePointer<UInt8>, count n: Int) -> Match? {
            let length = Int(patLength[pi])
            let end = start + length
            guard start >= 0, end <= n else { return nil }
            let p = patBytes + Int(patStart[pi])
            let flags = patFlags[pi]
            if flags & 1 != 0 {
                guard Self.same(h + start, p, from: 0, to: length, folding: false) else { return nil }
            } else if length > prefixLength {
                guard Self.same(h + start, p, from: prefixLength, to: length, folding: true) else { return nil }
            }
            if flags & 2 != 0 {
                if isASCIIAlnum(p[0]), start > 0, isASCIIAlnum(h[start - 1]) { return nil }
                if isASCIIAlnum(p[length - 1]), end < n, isASCIIAlnum(h[end]) { return nil }
            }
            if flags & 4 != 0 {
                if end < n, isNameWordByte(h[end]) { return nil }
                var k = start - 1
                while k >= 0, h[k] == 0x2D || h[k] == 0x27 { k -= 1 }
                if k >= 0, isNameWordByte(h[k]) { return nil }
            }
            return Match(pattern: pi, start: start, end: end)
        }
    }
}

@inline(__always)
func foldASCII(_ b: UInt8) -> UInt8 { (b >= 0x41 && b <= 0x5A) ? b | 0x20 : b }

/// `foldASCII` of each byte of `x`: a byte from `A` to `Z` (its low seven bits at least 0x41 and
/// below 0x5B, its high bit clear) gets 0x20 added. No byte's sum carries into the next one (the
/// low seven bits plus at most 0x3F).
@inline(__always)
func foldedASCII(_ x: UInt64) -> UInt64 {
    let ones: UInt64 = 0x0101_0101_0101_0101
    let low = x & (0x7F &* ones)
    let atLeastA = low &+ ((0x80 - 0x41) &* ones)
    let aboveZ = low &+ ((0x80 - 0x5B) &* ones)
    let upper = atLeastA & ~aboveZ & ~x & (0x80 &* ones)
    return x | upper >> 2
}

/// A byte of a name-like word as the span scan reads them: `A` and above (every non-ASCII byte
/// too), `-`, `'`.
@inline(__always)
func isNameWordByte(_ b: UInt8) -> Bool { b >= 0x41 || b == 0x2D || b == 0x27 }

@inline(__always)
func isASCIIAlnum(_ b: UInt8) -> Bool {
    (b >= 0x30 && b <= 0x39) || (b >= 0x41 && b <= 0x5A) || (b >= 0x61 && b <= 0x7A)
}

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
        public init(bytes: [UInt8], caseSensitive: Bool = false, wordBoundary: Bool = true) {
            self.bytes = bytes
            self.caseSensitive = caseSensitive
            self.wordBoundary = wordBoundary
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
    private let classOf: [UInt8]
    private let classCount: Int
    private let table: [Int32]
    private let outputs: [[Int32]]
    private let hasOutput: [Bool]

    public init(patterns: [Pattern], prefixLength: Int = 12) {
        self.patterns = patterns
        self.prefixLength = prefixLength
        // Byte classes: every folded byte that appears in a prefix gets its own class; the rest share 0.
        var classOf = [UInt8](repeating: 0, count: 256)
        var next: Int = 1
        for p in patterns {
            for b in p.bytes.prefix(prefixLength) {
                let f = foldASCII(b)
                if classOf[Int(f)] == 0, next < 255 { classOf[Int(f)] = UInt8(next); next += 1 }
            }
        }
        for b in 0..<256 { classOf[b] = classOf[Int(foldASCII(UInt8(b)))] }
        let classes = next
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
        self.classOf = classOf
        self.classCount = classes
        self.table = goto.flatMap { $0 }
        self.outputs = outs
        self.hasOutput = outs.map { !$0.isEmpty }
    }

    /// Number of DFA states (for diagnostics and benchmarks).
    public var stateCount: Int { outputs.count }

    /// Calls `body` for every confirmed match in `haystack`.
    public func forEachMatch(in haystack: UnsafeBufferPointer<UInt8>, _ body: (Match) -> Void) {
        let n = haystack.count
        if n == 0 || patterns.isEmpty { return }
        table.withUnsafeBufferPointer { table in
            classOf.withUnsafeBufferPointer { classOf in
                hasOutput.withUnsafeBufferPointer { hasOutput in
                    var s = 0
                    let k = classCount
                    for i in 0..<n {
                        s = Int(table[s &* k &+ Int(classOf[Int(haystack[i])])])
                        if hasOutput[s] {
                            for pi in outputs[s] {
                                let p = patterns[Int(pi)]
                                let prefix = min(p.bytes.count, prefixLength)
                                let start = i + 1 - prefix
                                if let m = confirm(p, index: Int(pi), start: start, in: haystack) { body(m) }
                            }
                        }
                    }
                }
            }
        }
    }

    /// Every confirmed match in `bytes`.
    public func matches(in bytes: [UInt8]) -> [Match] {
        var out: [Match] = []
        bytes.withUnsafeBufferPointer { buf in forEachMatch(in: buf) { out.append($0) } }
        return out
    }

    private func confirm(_ p: Pattern, index: Int, start: Int, in h: UnsafeBufferPointer<UInt8>) -> Match? {
        let end = start + p.bytes.count
        guard start >= 0, end <= h.count else { return nil }
        if p.caseSensitive {
            for j in 0..<p.bytes.count where h[start + j] != p.bytes[j] { return nil }
        } else if p.bytes.count > prefixLength {
            for j in prefixLength..<p.bytes.count where foldASCII(h[start + j]) != foldASCII(p.bytes[j]) { return nil }
        }
        if p.wordBoundary {
            if isASCIIAlnum(p.bytes[0]), start > 0, isASCIIAlnum(h[start - 1]) { return nil }
            if let last = p.bytes.last, isASCIIAlnum(last), end < h.count, isASCIIAlnum(h[end]) { return nil }
        }
        return Match(pattern: index, start: start, end: end)
    }
}

@inline(__always)
func foldASCII(_ b: UInt8) -> UInt8 { (b >= 0x41 && b <= 0x5A) ? b | 0x20 : b }

@inline(__always)
func isASCIIAlnum(_ b: UInt8) -> Bool {
    (b >= 0x30 && b <= 0x39) || (b >= 0x41 && b <= 0x5A) || (b >= 0x61 && b <= 0x7A)
}

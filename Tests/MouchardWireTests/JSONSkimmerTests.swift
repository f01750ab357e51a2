import MouchardTestSupport
import Testing
@testable import MouchardWire

/// The skimmer must accept exactly what `JSONParser` accepts and read the same structure, or the
/// inspector would walk a body differently in profile mode.
@Suite struct JSONSkimmerTests {
    /// The structure read by the skimmer, as a `JSONValue` (offsets relative to `base`).
    func rebuild(_ s: JSONSkimmer, _ span: JSONSkimmer.Span, base: Int) -> JSONValue {
        switch span.kind {
        case .object:
            return JSONValue(offset: span.start - base, kind: .object(s.members(of: span).map {
                JSONMember(key: String(decoding: s.string($0.key), as: UTF8.self), keyOffset: $0.key.start - base,
                           value: rebuild(s, $0.value, base: base))
            }))
        case .array:
            return JSONValue(offset: span.start - base, kind: .array(s.items(of: span).map { rebuild(s, $0, base: base) }))
        case .string:
            return JSONValue(offset: span.start - base, kind: .string(s.string(span)))
        case .number:
            return JSONValue(offset: span.start - base, kind: .number(Array(s.bytes[span.start..<span.end])))
        case .literal:
            let b = s.bytes[span.start]
            return JSONValue(offset: span.start - base, kind: b == UInt8(ascii: "n") ? .null : .bool(b == UInt8(ascii: "t")))
        }
    }

    /// The structure recorded on the skimmer's tape from entry `index`, as a `JSONValue`.
    func rebuildFromTape(_ s: JSONSkimmer, _ index: Int, base: Int) -> JSONValue {
        let entry = s.tape[index]
        var children: [Int] = []
        var child = index + 1
        while child < entry.next { children.append(child); child = s.tape[child].next }
        switch entry.kind {
        case .object:
            return JSONValue(offset: entry.start - base, kind: .object(children.map { c in
                let key = s.tape[c].key ?? JSONSkimmer.Span(start: 0, end: 0, kind: .string)
                return JSONMember(key: String(decoding: s.string(key), as: UTF8.self), keyOffset: key.start - base,
                                  value: rebuildFromTape(s, c, base: base))
            }))
        case .array:
            return JSONValue(offset: entry.start - base, kind: .array(children.map { rebuildFromTape(s, $0, base: base) }))
        case .string:
            #expect(entry.escaped == s.bytes[(entry.start + 1)..<(entry.end - 1)].contains(UInt8(ascii: "\\")))
            return JSONValue(offset: entry.start - base, kind: .string(Array(s.stringSlice(entry))))
        case .number, .literal:
            return rebuild(s, entry.span, base: base)
        }
    }

    func check(_ text: [UInt8], prefix: Int = 0) {
        let padded = Array(repeating: UInt8(ascii: "x"), count: prefix) + text
        let skimmer = JSONSkimmer(padded)
        let span = skimmer.validate(prefix..<padded.count)
        let parsed = try? JSONParser().parse(text)
        #expect((span != nil) == (parsed != nil), "\(String(decoding: text, as: UTF8.self))")
        if let span, let parsed {
            #expect(rebuild(skimmer, span, base: prefix) == parsed, "\(String(decoding: text, as: UTF8.self))")
            #expect(span.start - prefix == parsed.offset)
        }
        // The indexing validation accepts the same texts and, stepping over nested containers by
        // their recorded ends, reads the same structure.
        var indexed = JSONSkimmer(padded)
        let indexedSpan = indexed.validateIndexing(prefix..<padded.count)
        #expect(indexedSpan == span, "\(String(decoding: text, as: UTF8.self))")
        if let indexedSpan, let parsed {
            #expect(rebuild(indexed, indexedSpan, base: prefix) == parsed, "\(String(decoding: text, as: UTF8.self))")
            // The tape alone reads the same structure (the walk reads nothing else).
            #expect(indexed.tape.first?.span == indexedSpan)
            #expect(rebuildFromTape(indexed, 0, base: prefix) == parsed, "\(String(decoding: text, as: UTF8.self))")
        }
        // Told the spans a pruned walk skips by, it accepts the same texts and records all the
        // walk reads: the same entries, visited by the same rule, as on the whole tape.
        let n = padded.count
        var spanSets: [[Range<Int>]] = [[], [(n / 2)..<n]]
        for k in stride(from: prefix, to: n, by: max(1, text.count / 4)) { spanSets.append([k..<(k + 1)]) }
        for spans in spanSets {
            var pruned = JSONSkimmer(padded)
            #expect(pruned.validateIndexing(prefix..<n, walkedSpans: spans) == span, "\(String(decoding: text, as: UTF8.self))")
            if span != nil {
                #expect(walkedEntries(pruned, 0, spans: spans, end: n) == walkedEntries(indexed, 0, spans: spans, end: n),
                        "\(String(decoding: text, as: UTF8.self)) \(spans)")
            }
        }
    }

    /// The entries a walk pruned by `spans` reads from entry `index` on, as `walkJSON` prunes: every
    /// child of a container it enters, and a nested container entered only when its bytes, up to
    /// the next sibling's key or start (`end` for the last), touch a span.
    func walkedEntries(_ s: JSONSkimmer, _ index: Int, spans: [Range<Int>], end: Int) -> [String] {
        let entry = s.tape[index]
        var out = ["\(entry.start)..<\(entry.end) \(entry.kind) key \(entry.keyStart)..<\(entry.keyEnd)"]
        guard entry.kind == .object || entry.kind == .array else { return out }
        var child = index + 1
        while child < entry.next {
            let c = s.tape[child]
            let following = c.next
            let childEnd = following < entry.next ? (entry.kind == .object ? s.tape[following].keyStart : s.tape[following].start) : end
            if c.kind == .object || c.kind == .array, spans.contains(where: { $0.upperBound > c.start && $0.lowerBound < childEnd }) {
                out += walkedEntries(s, child, spans: spans, end: childEnd)
            } else {
                out.append("\(c.start)..<\(c.end) \(c.kind) key \(c.keyStart)..<\(c.keyEnd)")
            }
            child = following
        }
        return out
    }

    static let samples: [String] = [
        #"{"a":1,"b":[true,false,null],"c":{"d":"e\"f\\g\/h\u00e9\ud83d\ude00"},"n":-12.5e+3}"#,
        #"  [ 1 , "x" , { } , [ ] , 0.25 ]  "#, #"{"dup":1,"dup":2}"#, #""just a string""#, "42", "-0", "012",
        #"{"a":}"#, #"{"a":1,}"#, "[1,]", "[", "{", #"{"a" 1}"#, "1.", "1e", "-", #""\x""#, "\"\u{01}\"", #""\u12""#,
        #""\ud800\u12zz""#, "tru", "nul", "[1] 2", "", "   ", #"{"k":"v"}x"#, #"["\ud800"]"#, "[[[[[[]]]]]]",
        #"{"events":[{"e":1},{"e":2,"u":{"m":"a@b.c"}}],"loc":[2.39,47.08]}"#,
        #"[{"a":[1,{"b":2}]}, [[3], {"c":{}}], {"d":[4]} , {"e":{"f":[5,6]}}]"#, #"{"a":{"b":1},"c":[{"d":[]},2],"e":{} }"#,
        #"{"a":[1,{"b":[}]}"#, #"[[1],[2,[3]],[4,]]"#,
    ]

    @Test func agreesWithTheParserOnSamples() {
        for s in Self.samples {
            check(Array(s.utf8))
            check(Array(s.utf8), prefix: 3)
        }
    }

    /// Containers nested after every span are checked but their contents left off the tape.
    @Test func containersAfterEverySpanAreCheckedNotRecorded() {
        let bytes = Array(#"{"a":{"b":1},"c":[2,{"d":3}],"e":"x"}"#.utf8)
        var full = JSONSkimmer(bytes)
        _ = full.validateIndexing(0..<bytes.count)
        var pruned = JSONSkimmer(bytes)
        // The span covers the brace of `a`'s object: it is recorded whole, `c`'s array without its items.
        #expect(pruned.validateIndexing(0..<bytes.count, walkedSpans: [5..<6]) == full.validateIndexing(0..<bytes.count))
        #expect(full.tape.count == 8)
        #expect(pruned.tape.map(\.start) == [0, 5, 10, 17, 33])
        #expect(pruned.tape[3].end == 28 && pruned.tape[3].next == 4)
        // What is not recorded is validated all the same.
        for text in [#"{"a":1,"c":[2,{"d":}]}"#, #"{"a":1,"c":[2,{"d":1}}"#, #"[{"a":"\x"}]"#] {
            let bad = Array(text.utf8)
            var skimmer = JSONSkimmer(bad)
            #expect(skimmer.validateIndexing(0..<bad.count, walkedSpans: []) == nil, "\(text)")
        }
    }

    @Test func depthLimitIsTheParsers() {
        check(Array((String(repeating: "[", count: 64) + String(repeating: "]", count: 64)).utf8))
        check(Array((String(repeating: "[", count: 63) + String(repeating: "]", count: 63)).utf8))
        check(Array((String(repeating: "{\"a\":", count: 70) + "1" + String(repeating: "}", count: 70)).utf8))
    }

    @Test func sequencesOfValues() {
        func spans(_ text: String) -> [String]? {
            let bytes = Array(text.utf8)
            return JSONSkimmer(bytes).validateSequence(0..<bytes.count)?.map { String(decoding: bytes[$0.start..<$0.end], as: UTF8.self) }
        }
        #expect(spans("{\"a\":1}\n{\"b\":[2]}\n") == [#"{"a":1}"#, #"{"b":[2]}"#])
        #expect(spans(" 1 \"x\" true ") == ["1", #""x""#, "true"])
        #expect(spans(#"{"a":1}"#) == nil)          // one value is not a sequence
        #expect(spans("{} {") == nil)               // every value must be whole
        #expect(spans("{} x") == nil)
        #expect(spans("") == nil)
        #expect(spans("[1] 2") == ["[1]", "2"])
        #expect(spans(#"{"a":} {}"#) == nil)         // each value must be one the parser accepts
        // The recording check accepts the same sequences, its roots at the same places.
        for text in ["{\"a\":1}\n{\"b\":[2]}\n", " 1 \"x\" true ", #"{"a":1}"#, "{} {", "[1] 2", #"{"a":} {}"#, ""] {
            let bytes = Array(text.utf8)
            var skimmer = JSONSkimmer(bytes)
            let roots = skimmer.validateSequenceIndexing(0..<bytes.count)
            #expect(roots?.map { skimmer.tape[$0].span } == JSONSkimmer(bytes).validateSequence(0..<bytes.count), "\(text)")
        }
    }

    /// The string scan's word step agrees with the parser whatever lands where: an escape (good
    /// or broken), a control byte, a quote, a backslash or a non-ASCII byte at every offset of a
    /// string of every length around the eight-byte boundaries, at every alignment in the buffer,
    /// near the buffer's end and cut short.
    @Test func stringScanAgreesAtEveryOffset() {
        let inserts: [[UInt8]] = [
            Array(#"\""#.utf8), Array(#"\\"#.utf8), Array(#"\n"#.utf8), Array(#"\u00e9"#.utf8), Array(#"\ud83d\ude00"#.utf8),
            Array(#"\ud800"#.utf8), Array(#"\x"#.utf8), Array(#"\u12"#.utf8), Array(#"\"#.utf8), [0x01], [0x1F], [0x00], [0x7F],
            [0xC3, 0xA9], [0xFF], [0x22], [0x20], [0x5B],
        ]
        for length in 0..<18 {
            for offset in 0...length {
                for insert in inserts {
                    var inner = [UInt8](repeating: UInt8(ascii: "a"), count: length)
                    inner.insert(contentsOf: insert, at: offset)
                    let string = [0x22] + inner + [0x22]
                    let member = Array(#"{"k":"#.utf8) + string + Array(#","z":[1]}"#.utf8)
                    for prefix in [0, 1, 3, 7] {
                        check(string, prefix: prefix)
                        check(member, prefix: prefix)
                    }
                    for cut in 1..<min(member.count, 12) { check(Array(member.dropLast(cut))) }
                }
            }
        }
    }

    /// Texts holding far more values than the tape reserves room for (one per 16 bytes) read as
    /// the parser reads them, at every length down to the densest (a value per byte or two),
    /// pruned or not, valid or cut short; sequences too.
    @Test func denseTextsReadAsTheParserDoes() {
        for n in 0..<70 {
            let digits = (0..<n).map { String($0 % 10) }
            var texts = ["[" + digits.joined(separator: ",") + "]", "{" + digits.map { "\"\":" + $0 }.joined(separator: ",") + "}",
                         "[" + String(repeating: "[],", count: n) + "[]]", "[" + String(repeating: "{},", count: n) + "0]",
                         String(repeating: "[", count: min(n, 64)) + String(repeating: "]", count: min(n, 64))]
            texts += texts.map { String($0.dropLast()) } + texts.map { $0 + "," }
            for text in texts { check(Array(text.utf8)) }
            // Sequences: the same roots at the same places as the plain check's spans.
            for text in [digits.joined(separator: " "), digits.joined(separator: "\n") + " [", Array(repeating: "[]", count: n).joined()] {
                let bytes = Array(text.utf8)
                var skimmer = JSONSkimmer(bytes)
                let roots = skimmer.validateSequenceIndexing(0..<bytes.count)
                #expect(roots?.map { skimmer.tape[$0].span } == JSONSkimmer(bytes).validateSequence(0..<bytes.count), "\(text)")
                #expect(roots != nil || skimmer.tape.isEmpty)
                if let roots { #expect(skimmer.tape.count == roots.count) }
            }
        }
    }

    /// The eight-byte step of the string scan stops at the first quote, backslash or control
    /// byte exactly, whatever the bytes around it, and only at one.
    @Test func wordStepFindsTheFirstSpecialByte() {
        func isSpecial(_ b: UInt8) -> Bool { b < 0x20 || b == 0x22 || b == 0x5C }
        for filler: UInt8 in [0x61, 0x80, 0xFF, 0x21, 0x5D, 0x20, 0x7F] {
            for b in 0...255 {
                for k in 0..<8 {
                    for after: UInt8 in [filler, 0x00, 0x22] {
                        var bytes = [UInt8](repeating: filler, count: 8)
                        bytes[k] = UInt8(b)
                        for j in (k + 1)..<8 where j % 2 == 0 { bytes[j] = after }
                        let w = UInt64(littleEndian: bytes.withUnsafeBytes { $0.loadUnaligned(as: UInt64.self) })
                        let flags = JSONSkimmer.stringSpecialFlags(w)
                        let first = bytes.firstIndex(where: isSpecial)
                        #expect((flags == 0 ? nil : flags.trailingZeroBitCount >> 3) == first, "\(bytes)")
                    }
                }
            }
        }
    }

    /// Escaped strings decoded without the parser (simple escapes, `\u` outside the surrogates)
    /// read the same bytes as the parser, and the others still fall back to it.
    @Test func escapedStringsDecodeAsTheParserDoes() {
        let strings = [
            #""a\u00e9\u0041\u20ac\u07ff\u0800\uffff\n\t\/\b\f\r\"\\z""#, #""\u0000x""#, #""\uD83D\uDE00""#,
            #""\ud800\u0041""#, #""\udc00""#, #""abc\""#, #""\u12""#, #""\u12zz""#, #""\x""#, "\"a\\n\u{01}\"",
            #""a"b\n""#, #""\uE000\u00""#, "\"\\u00e9\u{e9}\"",
        ]
        for text in strings {
            let bytes = Array(text.utf8)
            let span = JSONSkimmer.Span(start: 0, end: bytes.count, kind: .string)
            let parsed: [UInt8]
            if case .string(let s)? = (try? JSONParser(maxDepth: 1).parse(bytes))?.kind { parsed = s } else { parsed = [] }
            #expect(JSONSkimmer(bytes).string(span) == parsed, "\(text)")
        }
    }

    @Test(arguments: [UInt64(1), 2, 3])
    func agreesWithTheParserOnMutations(seed: UInt64) {
        var mutator = ByteMutator(seed: seed)
        let donors = Self.samples.map { Array($0.utf8) }
        for round in 0..<3000 {
            let base = donors[round % donors.count]
            check(mutator.mutate(base, maxMutations: 3, donors: donors))
        }
    }
}

import Testing
@testable import MouchardInspection

/// The span scan's own tests of decoded bytes (`DecodedBytesShape`) answer as the walk's do:
/// `ByteCodecs.looksLikeText` and `ProtobufScanner.scan`. A wrong "no" would let the scan drop a
/// base64 run the walk finds something in. Also the base64 check's search for cuts in a run.
@Suite struct DecodedBytesShapeTests {
    func shape(_ bytes: [UInt8]) -> (text: Bool, utf8: Bool, protobuf: Bool) {
        bytes.withUnsafeBufferPointer {
            (DecodedBytesShape.looksLikeText($0), UTF8Validation.isValid($0), DecodedBytesShape.isProtobufMessage($0, maxFields: 5))
        }
    }

    func check(_ bytes: [UInt8], sourceLocation: SourceLocation = #_sourceLocation) {
        let s = shape(bytes)
        #expect(s.text == ByteCodecs.looksLikeText(bytes[...]), "\(bytes)", sourceLocation: sourceLocation)
        #expect(s.utf8 == (String(validating: bytes, as: UTF8.self) != nil), "\(bytes)", sourceLocation: sourceLocation)
        #expect(s.protobuf == (ProtobufScanner.scan(bytes[...], maxFields: 5) != nil), "\(bytes)", sourceLocation: sourceLocation)
    }

    @Test func randomBytesAnswerAsTheWalk() {
        var rng = SplitMix(seed: 0xdec0de)
        for _ in 0..<20_000 {
            let n = Int(rng.next() % 24)
            check((0..<n).map { _ in UInt8(truncatingIfNeeded: rng.next()) })
        }
    }

    /// Text with a few bytes changed: every UTF-8 edge (overlong forms, surrogates, code points
    /// past U+10FFFF, cut sequences) and control bytes around the one-in-ten limit.
    @Test func mutatedTextAnswersAsTheWalk() {
        var rng = SplitMix(seed: 0x7e47)
        let samples = ["héllo wörld", "日本語のテキスト", "emoji 😀 here", "plain ascii text", "tab\tand\nlines\r", "\u{10FFFF}\u{E000}\u{FFFD}"]
        let edges: [UInt8] = [0x00, 0x01, 0x09, 0x7F, 0x80, 0xBF, 0xC0, 0xC1, 0xC2, 0xDF, 0xE0, 0xED, 0xEF, 0xF0, 0xF4, 0xF5, 0xFF, 0x9F, 0xA0, 0x8F, 0x90]
        for _ in 0..<20_000 {
            var bytes = Array(samples[Int(rng.next() % UInt64(samples.count))].utf8)
            for _ in 0..<Int(rng.next() % 3) where !bytes.isEmpty {
                let at = Int(rng.next() % UInt64(bytes.count))
                switch rng.next() % 3 {
                case 0: bytes[at] = edges[Int(rng.next() % UInt64(edges.count))]
                case 1: bytes.insert(edges[Int(rng.next() % UInt64(edges.count))], at: at)
                default: bytes.removeSubrange(at...)
                }
            }
            check(bytes)
        }
    }

    /// Messages of a few fields of every wire type, some cut or with a byte changed; more fields
    /// than `maxFields`.
    @Test func mutatedMessagesAnswerAsTheWalk() {
        var rng = SplitMix(seed: 0x9b)
        for _ in 0..<20_000 {
            var bytes: [UInt8] = []
            for _ in 0..<Int(1 + rng.next() % 7) {
                let number = UInt8(1 + rng.next() % 15)
                switch rng.next() % 4 {
                case 0: bytes += [number << 3, 0x96, 0x01]
                case 1: bytes += [number << 3 | 1] + (0..<8).map { _ in UInt8(truncatingIfNeeded: rng.next()) }
                case 2: bytes += [number << 3 | 2, 3, 0x61, 0x62, 0x63]
                default: bytes += [number << 3 | 5, 0, 0, 0x80, 0x3F]
                }
            }
            if rng.next() % 2 == 0, !bytes.isEmpty {
                let at = Int(rng.next() % UInt64(bytes.count))
                if rng.next() % 2 == 0 { bytes[at] = UInt8(truncatingIfNeeded: rng.next()) } else { bytes.removeSubrange(at...) }
            }
            check(bytes)
        }
        // Varints of ten bytes and more.
        check([0x08] + [UInt8](repeating: 0xFF, count: 9) + [0x01])
        check([0x08] + [UInt8](repeating: 0xFF, count: 10) + [0x01])
        check([0xFF, 0xFF, 0xFF, 0xFF, 0x0F, 0x00])
    }

    /// The 8-bytes-at-a-time search for a cut in a base64 run (`+`, `/` in a path) finds what a
    /// plain loop finds.
    @Test func cutsInRunsAreFoundAsByAPlainLoop() {
        var rng = SplitMix(seed: 0xc07)
        let alphabet = Array("aZ09+/=-_k".utf8)
        for _ in 0..<20_000 {
            let n = Int(rng.next() % 40)
            let bytes = (0..<n).map { _ in rng.next() % 6 == 0 ? alphabet[Int(rng.next() % 10)] : UInt8(0x41 + rng.next() % 26) }
            let s = n == 0 ? 0 : Int(rng.next() % UInt64(n)), e = s + (n == s ? 0 : Int(rng.next() % UInt64(n - s + 1)))
            for slash in [false, true] {
                let plain = bytes[s..<e].contains { $0 == 0x2B || ($0 == 0x2F && slash) }
                #expect(bytes.withUnsafeBufferPointer { KnownValueMatcher.holdsCut($0, s, e, slash: slash) } == plain, "\(bytes) \(s) \(e)")
            }
        }
    }
}

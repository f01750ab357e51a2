import MouchardWire

/// Where the bytes a span scan reads come from: whether the decode walk splits them at `/` (a
/// request target's path, `FieldWalker.walkPath`; not header values, bodies or decoded values),
/// and how many decodings of the span checks deep they are.
struct SpanContext {
    var splitsAtSlash: Bool
    var depth: Int
    /// Only whether there is a span is asked (the checks of decoded runs): the scan stops at
    /// the first one it finds.
    var firstSpanOnly = false

    /// A request target (`/path?query`).
    static let target = SpanContext(splitsAtSlash: true, depth: 0)
    /// A header value or a body.
    static let value = SpanContext(splitsAtSlash: false, depth: 0)
    /// How deep the checks of base64 and hex runs decode: deeper runs are kept as spans unchecked.
    static let maxDecodeDepth = 3

    /// The bytes a run of these decodes to.
    var decoded: SpanContext { SpanContext(splitsAtSlash: false, depth: depth + 1, firstSpanOnly: true) }
}

/// A base64 or hex run whose decoded bytes could hold nothing the walk finds is not a span: the
/// walk would decode it (`FieldWalker.tryBase64`, `tryHex`) and find nothing, so a part whose
/// only spans are such runs is not walked at all (most are tokens, request ids, build numbers).
///
/// The checks decode the run the way the walk does and scan what comes out with the same span
/// scan (a value the walk decodes is walked like a header value: what it can find there, the
/// spans show). Where the walk could see the run cut differently, or decodes further than these
/// checks go, the run stays a span.
///
/// Why the walk sees the run as it is written: a part is skipped only when no span touches it,
/// and then its values are its raw bytes (escapes — `%XX`, JSON `\` — are spans of their own);
/// the only bytes a walk turns into a cut without an escape are `+` (a space in forms) and `/`
/// (between path segments), both handled below.
extension KnownValueMatcher {
    /// The base64-alphabet run `p[s..<e]` (maximal, `base64Suspect`) could give the walk something.
    func base64RunMatters(_ p: UnsafeBufferPointer<UInt8>, _ s: Int, _ e: Int, context: SpanContext) -> Bool {
        guard context.depth < SpanContext.maxDecodeDepth else { return true }
        // `+` is a space in a form value, `/` ends a path segment: the walk may see pieces of the run.
        if Self.holdsCut(p, s, e, slash: context.splitsAtSlash) { return true }
        // The walk's candidate takes up to two `=` of padding after the run.
        var end = e
        while end < p.count, end - e < 2, p[end] == 0x3D { end += 1 }
        let padded = UnsafeBufferPointer(rebasing: p[s..<end])
        if base64CandidateMatters(padded, context) { return true }
        // Without its padding the run decodes to the same bytes, unless the padding made the
        // layout invalid (`base64Layout`): only then is there something else to check.
        return end > e && ByteCodecs.base64Layout(padded) == nil
            && base64CandidateMatters(UnsafeBufferPointer(rebasing: p[s..<e]), context)
    }

    /// `p[s..<e]` holds a `+`, or a `/` when `slash` (8 bytes at a time).
    static func holdsCut(_ p: UnsafeBufferPointer<UInt8>, _ s: Int, _ e: Int, slash: Bool) -> Bool {
        guard let h = p.baseAddress, s >= 0, e <= p.count else { return false }
        let ones: UInt64 = 0x0101_0101_0101_0101, highs: UInt64 = 0x8080_8080_8080_8080
        // `/` is `+` | 4: with `slash`, bit 2 is dropped before comparing with `+`.
        let fold: UInt64 = slash ? ~(0x04 &* ones) : ~0
        var k = s
        while k + 8 <= e {
            let x = (UnsafeRawPointer(h + k).loadUnaligned(as: UInt64.self) & fold) ^ (0x2B &* ones)
            if (x &- ones) & ~x & highs != 0 { break }
            k += 8
        }
        while k < e {
            let b = h[k]
            if b == 0x2B || (b == 0x2F && slash) { return true }
            k += 1
        }
        return false
    }

    /// What `FieldWalker.tryBase64` does with one candidate could find something: it decodes to
    /// gzip, to text with spans, or to a well-formed protobuf message. Decoded on the stack as
    /// `ByteCodecs.base64Decode` does (most candidates are tokens: random bytes, no text).
    private func base64CandidateMatters(_ run: UnsafeBufferPointer<UInt8>, _ context: SpanContext) -> Bool {
        guard let layout = ByteCodecs.base64Layout(run), layout.bytes >= 4 else { return false }
        let count = layout.bytes
        return withUnsafeTemporaryAllocation(of: UInt8.self, capacity: count) { out -> Bool in
            guard let base = out.baseAddress, ByteCodecs.base64Decode(run, characters: layout.characters, into: base) else { return false }
            let decoded = UnsafeBufferPointer(out)
            if decoded[0] == 0x1F, decoded[1] == 0x8B { return true }
            if DecodedBytesShape.looksLikeText(decoded) {
                var found: [Range<Int>] = []
                scanSpans(decoded, base: 0, context: context.decoded, into: &found)
                return !found.isEmpty
            }
            return count >= 8 && DecodedBytesShape.isProtobufMessage(decoded)
        }
    }

    /// The hex run `p[s..<e]` (maximal) could give the walk something. `tryHex` decodes only a
    /// whole value: a run glued to a letter, `-`, `_` or `.` never is one (no walk cuts there,
    /// checked first: most runs are parts of UUIDs); a run that may be is decoded when it is
    /// `hexText`, and its text scanned.
    func hexRunMatters(_ p: UnsafeBufferPointer<UInt8>, _ s: Int, _ e: Int, context: SpanContext) -> Bool {
        if s > 0, isHexGlue(p[s - 1]) { return false }
        if e < p.count, isHexGlue(p[e]) { return false }
        guard hexText(p, s, e) else { return false }
        guard context.depth < SpanContext.maxDecodeDepth, e - s <= 1 << 16, (e - s) % 2 == 0 else { return true }
        return withUnsafeTemporaryAllocation(of: UInt8.self, capacity: (e - s) / 2) { out -> Bool in
            for k in 0..<out.count {
                guard let h = hexNibble(p[s + 2 * k]), let l = hexNibble(p[s + 2 * k + 1]) else { return true }
                out[k] = h << 4 | l
            }
            var found: [Range<Int>] = []
            scanSpans(UnsafeBufferPointer(out), base: 0, context: context.decoded, into: &found)
            return !found.isEmpty
        }
    }

}

/// A byte that no walk cuts a value at (and that no unescaping without a span removes): a hex
/// run next to one is never a whole value (`hexRunMatters`). The span scan has no event for a
/// hex run that such a byte ends (`spanLaneTable`).
@inline(__always)
func isHexGlue(_ b: UInt8) -> Bool {
    let lower = b | 0x20
    return (lower >= 0x61 && lower <= 0x7A) || b == 0x2D || b == 0x5F || b == 0x2E
}

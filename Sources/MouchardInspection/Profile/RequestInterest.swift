/// Where, in the raw bytes of one request, a profile value may hide: the spans of each part
/// (target, header values, body) that hold a profile variant, a phone-like run, a name part, a
/// number near the profile's latitude, or something the variants cannot see through (JSON
/// escapes, percent-escapes, base64 and hex runs that decode to something, compression magic).
///
/// With a device profile most requests carry none of the device's values, and the ones that do
/// carry them in a few fields. One pass over the raw bytes finds these spans
/// (`KnownValueMatcher.interest`); the decode walk then skips requests with none (`needsWalk`
/// false) and, inside the others, every query pair, header, cookie, path segment, form pair and
/// JSON member whose bytes touch no span. A skipped part could not have produced a profile
/// detection: the spans are a superset of what the walk's decoders and the matcher can find there.
struct RequestInterest {
    /// Spans over the request target's bytes (`Array(pathAndQuery.utf8)`), sorted.
    var target: [Range<Int>] = []
    /// Spans over each header's value bytes, by header index, sorted.
    var headers = HeaderSpans()
    /// Spans over the raw body, sorted; nil when the body was not scanned (compressed or binary:
    /// it is walked whole after decoding, see `FieldWalker.walkBody`).
    var body: [Range<Int>]? = []
    /// Something makes the whole request worth walking without spans (Content-Encoding, binary
    /// body, credentials in cleartext).
    var walkAll = false
    /// Parts may be skipped by their spans; false when every field must be seen (credentials in
    /// cleartext are detected by key names, which the spans do not cover).
    var prunes = true

    /// Whether the decode walk can find anything at all.
    var needsWalk: Bool {
        walkAll || !target.isEmpty || body.map { !$0.isEmpty } ?? true || !headers.isEmpty
    }

    /// The spans of each header of a request, by header index, in two flat arrays of plain
    /// values: a request has some twenty headers, most without a span, and an array of arrays
    /// would be destroyed element by element (through the runtime's generic witnesses) after
    /// every request; these are at most two buffers freed, none when no header has a span.
    struct HeaderSpans {
        /// Every header's spans end to end, header i's at `ends[i - 1]..<ends[i]` (from 0 for the first).
        private var spans: [Range<Int>] = []
        /// Where each header's spans end in `spans`, up to the last header that has some: the
        /// headers after it have none.
        private var ends: [Int] = []
        /// How many headers have been added.
        private(set) var count = 0

        /// Adds the next header's spans (sorted).
        mutating func append(_ headerSpans: [Range<Int>]) {
            count += 1
            guard !headerSpans.isEmpty else { return }
            if ends.isEmpty { ends.reserveCapacity(count) }
            while ends.count < count - 1 { ends.append(spans.count) }
            spans.append(contentsOf: headerSpans)
            ends.append(spans.count)
        }

        /// No header has a span.
        var isEmpty: Bool { spans.isEmpty }

        /// The spans of header `index` (< `count`), sorted.
        subscript(index: Int) -> ArraySlice<Range<Int>> {
            guard index < ends.count else { return [] }
            return spans[(index == 0 ? 0 : ends[index - 1])..<ends[index]]
        }
    }
}

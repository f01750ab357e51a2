/// The spans of a pruned walk (sorted by lower bound), asked about ranges that never start
/// before the previous one did (a JSON walk visits values in the order of their bytes): spans
/// ending before a range can touch no later one either and are passed once and for all, where
/// `touches(spans, range)` would read them again for every range.
struct SpanCursor {
    let spans: [Range<Int>]
    /// The first span that may still touch a range: every span before it ends at or before the
    /// lower bound of the last range asked about.
    private var first = 0

    init(_ spans: [Range<Int>]) {
        self.spans = spans
    }

    /// `touches(spans, range)` for a non-empty `range` starting at or after the last one asked about.
    mutating func touches(_ range: Range<Int>) -> Bool {
        while first < spans.count, spans[first].upperBound <= range.lowerBound { first += 1 }
        return first < spans.count && spans[first].lowerBound < range.upperBound
    }
}

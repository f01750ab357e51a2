/// The URL path: each segment is a leaf (location `url`, named by the segment before it).
extension FieldWalker {
    /// `spans` (over the target's bytes) skips segments that cannot hold a profile value.
    /// Consecutive segments that are each one decimal number (`/map/53.5509/9.9937/16.png`) are
    /// also a number group: the pair is split over segments, so no single leaf holds it. They are
    /// read whatever the spans (a longitude seldom has a span of its own).
    mutating func walkPath(_ path: ArraySlice<UInt8>, spans: [Range<Int>]?) {
        var previous: ArraySlice<UInt8> = []
        var numbers: [NumberGroup.Member] = []
        var runKey: ArraySlice<UInt8> = []
        forEachPart(of: path, separatedBy: UInt8(ascii: "/")) { segment in
            if spans.map({ touches($0, segment.startIndex..<segment.endIndex) }) ?? true {
                leaf(segment, FieldOrigin(location: "url", key: String(decoding: previous, as: UTF8.self)), depth: 0)
            }
            if let n = parseDecimal(segment) {
                if numbers.isEmpty { runKey = previous }
                numbers.appendMember(.init(key: String(numbers.count), value: n.value, decimals: n.decimals))
            } else {
                pathNumbers(&numbers, key: runKey)
            }
            previous = segment
            return true
        }
        pathNumbers(&numbers, key: runKey)
    }

    /// A run of decimal path segments ended: two or more make a group (`url`, from one string as
    /// `/47.1,2.3/` would).
    private mutating func pathNumbers(_ numbers: inout [NumberGroup.Member], key: ArraySlice<UInt8>) {
        defer { numbers.removeAll(keepingCapacity: true) }
        guard numbers.count >= 2 else { return }
        result.groups.append(NumberGroup(prefix: "url", inner: nil, decodings: [], containerKey: String(decoding: key, as: UTF8.self),
                                         members: numbers, fromOneString: true))
    }
}

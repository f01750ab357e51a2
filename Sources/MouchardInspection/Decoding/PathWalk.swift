/// The URL path: each segment is a leaf (location `url`, named by the segment before it).
extension FieldWalker {
    /// `spans` (over the target's bytes) skips segments that cannot hold a profile value.
    mutating func walkPath(_ path: ArraySlice<UInt8>, spans: [Range<Int>]?) {
        var previous: ArraySlice<UInt8> = []
        forEachPart(of: path, separatedBy: UInt8(ascii: "/")) { segment in
            if spans.map({ touches($0, segment.startIndex..<segment.endIndex) }) ?? true {
                leaf(segment, FieldOrigin(location: "url", key: String(decoding: previous, as: UTF8.self)), depth: 0)
            }
            previous = segment
            return true
        }
    }
}

import Foundation

/// Which flows of a source a command works on: `--flows 3,5-9` (ids as `mouchard flows` lists them).
public struct FlowSelection: Sendable, Hashable, CustomStringConvertible {
    public var ranges: [ClosedRange<Int>]

    /// Every flow.
    public static let all = FlowSelection(ranges: [])

    public init(ranges: [ClosedRange<Int>]) { self.ranges = ranges }

    /// Parses `3,5-9`; nil when a part is not a number or a range `A-B` with 1 ≤ A ≤ B.
    public init?(parsing text: String) {
        var out: [ClosedRange<Int>] = []
        for part in text.split(separator: ",", omittingEmptySubsequences: false) {
            let p = part.trimmingCharacters(in: .whitespaces)
            let bounds = p.split(separator: "-", omittingEmptySubsequences: false)
            guard bounds.count == 1 || bounds.count == 2, let low = Int(bounds[0]), low >= 1 else { return nil }
            let high = bounds.count == 2 ? Int(bounds[1]) : low
            guard let high, high >= low else { return nil }
            out.append(low...high)
        }
        guard !out.isEmpty else { return nil }
        ranges = out
    }

    public var isAll: Bool { ranges.isEmpty }

    public func contains(_ id: Int) -> Bool { ranges.isEmpty || ranges.contains { $0.contains(id) } }

    /// The selected ids that are not in `ids` (a flow number out of range), sorted.
    public func missing(from ids: Set<Int>) -> [Int] {
        var out: [Int] = []
        for r in ranges {
            // Bounded: a huge range only reports its first few missing ids.
            for id in r where !ids.contains(id) {
                out.append(id)
                if out.count >= 10 { return out }
            }
        }
        return out
    }

    public var description: String {
        ranges.isEmpty ? "all" : ranges.map { $0.lowerBound == $0.upperBound ? "\($0.lowerBound)" : "\($0.lowerBound)-\($0.upperBound)" }
            .joined(separator: ",")
    }
}

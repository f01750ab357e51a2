import Foundation

/// Durations counted in logarithmic buckets (5% wide, from 1 µs to over an hour): percentiles in
/// constant memory, however many flows a session uploads.
public struct LatencyHistogram: Sendable, Hashable {
    static let growth = 1.05
    static let bucketCount = 512

    private var counts = [Int](repeating: 0, count: bucketCount)
    public private(set) var total = 0
    public private(set) var maximum: Double = 0

    public init() {}

    /// Counts `weight` events that took `seconds`.
    public mutating func record(_ seconds: Double, weight: Int = 1) {
        guard weight > 0, seconds.isFinite else { return }
        let micros = max(1, seconds * 1e6)
        let bucket = min(Self.bucketCount - 1, Int(log(micros) / log(Self.growth)))
        counts[bucket] += weight
        total += weight
        maximum = max(maximum, seconds)
    }

    public mutating func merge(_ other: LatencyHistogram) {
        for i in 0..<Self.bucketCount { counts[i] += other.counts[i] }
        total += other.total
        maximum = max(maximum, other.maximum)
    }

    /// The duration under which `fraction` (0...1) of the events fall (the upper edge of its
    /// bucket), 0 when nothing was recorded.
    public func percentile(_ fraction: Double) -> Double {
        guard total > 0 else { return 0 }
        let wanted = max(1, Int((Double(total) * fraction).rounded(.up)))
        var seen = 0
        for (i, n) in counts.enumerated() {
            seen += n
            if seen >= wanted { return min(maximum, pow(Self.growth, Double(i + 1)) / 1e6) }
        }
        return maximum
    }
}

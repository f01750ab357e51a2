import MouchardFlow

/// Where the proxy hands every completed exchange (and every tunnel it could not decrypt).
/// Called from event-loop threads: implementations must be thread-safe and return quickly
/// (queue the work; never inspect or write to disk on the caller's thread).
public protocol FlowSink: Sendable {
    /// Records one flow. `flow.id` is 0: the sink numbers flows in the order it receives them.
    func record(_ flow: Flow)
}

/// A sink that drops everything (benchmarks of the bare proxy, tests that do not look at flows).
public struct DiscardingFlowSink: FlowSink {
    public init() {}
    public func record(_ flow: Flow) {}
}

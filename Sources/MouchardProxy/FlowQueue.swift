import Foundation
import MouchardFlow

/// A `FlowSink` that numbers flows (1, 2, 3... in the order they complete) and hands them to
/// `process` in batches (everything queued since the last call) on its own worker thread, so inspection and storage never stall an event loop.
/// The queue is bounded: when the worker falls behind by more than `capacity` flows, new flows
/// are counted as dropped rather than growing memory without limit.
public final class FlowQueue: FlowSink, @unchecked Sendable {
    private let condition = NSCondition()
    private var pending: [Flow] = []
    private var nextID = 1
    private var stopped = false
    private var busy = false
    private var finished = false
    private let process: @Sendable ([Flow]) -> Void
    public let capacity: Int
    /// Flows handed to `process` at once (one store transaction).
    static let maxBatch = 2048
    private var droppedCount = 0
    private var processedCount = 0

    public init(capacity: Int = 100_000, process: @escaping @Sendable ([Flow]) -> Void) {
        self.capacity = capacity
        self.process = process
        let t = Thread { [unowned self] in self.work() }
        t.name = "mouchard-flows"
        t.start()
    }

    public func record(_ flow: Flow) {
        condition.lock()
        defer { condition.unlock() }
        guard !stopped else { return }
        guard pending.count < capacity else {
            droppedCount += 1
            return
        }
        var f = flow
        f.id = nextID
        nextID += 1
        pending.append(f)
        condition.signal()
    }

    /// Flows numbered so far, processed so far, dropped because the queue was full.
    public var counts: (recorded: Int, processed: Int, dropped: Int) {
        condition.lock()
        defer { condition.unlock() }
        return (nextID - 1, processedCount, droppedCount)
    }

    /// Waits until every queued flow is processed (or `timeout` seconds pass); returns true when drained.
    @discardableResult
    public func drain(timeout: Double = 10) -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        condition.lock()
        defer { condition.unlock() }
        while !pending.isEmpty || busy {
            if !condition.wait(until: deadline) { return false }
        }
        return true
    }

    /// Processes what is queued, then stops the worker.
    public func close(timeout: Double = 10) {
        drain(timeout: timeout)
        condition.lock()
        stopped = true
        condition.broadcast()
        condition.unlock()
    }

    private func work() {
        while true {
            condition.lock()
            while pending.isEmpty && !stopped { condition.wait() }
            if pending.isEmpty && stopped {
                finished = true
                condition.unlock()
                return
            }
            let batch: [Flow]
            if pending.count <= Self.maxBatch {
                batch = pending
                pending.removeAll(keepingCapacity: true)
            } else {
                batch = Array(pending.prefix(Self.maxBatch))
                pending.removeFirst(Self.maxBatch)
            }
            busy = true
            condition.unlock()
            process(batch)
            condition.lock()
            busy = false
            processedCount += batch.count
            condition.broadcast()
            condition.unlock()
        }
    }
}

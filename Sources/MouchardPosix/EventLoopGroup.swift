import Foundation

/// N event loops, each on its own thread (one per core by default). `next()` spreads work
/// round-robin; `shutdown()` stops every loop and waits for its thread to end.
public final class EventLoopGroup: @unchecked Sendable {
    public let loops: [EventLoop]
    private let finished = DispatchGroup()
    private let counter = NSLock()
    private var nextIndex = 0

    /// Creates and starts `threads` loops (at least 1).
    public init(threads: Int) throws(PosixError) {
        var loops: [EventLoop] = []
        for i in 0..<max(1, threads) { loops.append(try EventLoop(index: i)) }
        self.loops = loops
        for loop in loops {
            finished.enter()
            let done = finished
            let thread = Thread {
                loop.run()
                done.leave()
            }
            thread.name = "mouchard-loop-\(loop.index)"
            thread.stackSize = 1 << 20
            thread.start()
        }
    }

    public static var defaultThreadCount: Int { max(1, ProcessInfo.processInfo.activeProcessorCount) }

    public func next() -> EventLoop {
        counter.lock()
        defer { counter.unlock() }
        let loop = loops[nextIndex % loops.count]
        nextIndex &+= 1
        return loop
    }

    /// Stops every loop and waits (up to `timeoutSeconds`) for their threads to end.
    public func shutdown(timeoutSeconds: Double = 5) {
        for loop in loops { loop.stop() }
        _ = finished.wait(timeout: .now() + timeoutSeconds)
    }
}

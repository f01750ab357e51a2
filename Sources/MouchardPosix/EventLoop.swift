#if canImport(Glibc)
import Glibc
#endif
import CMouchardShims
import Synchronization

/// Readiness reported by epoll for one file descriptor.
public struct IOEvents: OptionSet, Sendable {
    public let rawValue: UInt8
    public init(rawValue: UInt8) { self.rawValue = rawValue }
    public static let readable = IOEvents(rawValue: 1)
    public static let writable = IOEvents(rawValue: 2)
    /// The peer closed (or half-closed) the connection.
    public static let hangup = IOEvents(rawValue: 4)
    public static let error = IOEvents(rawValue: 8)
}

/// Something registered on an event loop that reacts to its descriptor's readiness.
/// Called on the loop's thread only.
public protocol IOHandler: AnyObject {
    func handle(_ events: IOEvents)
}

/// Identifies a timer so it can be cancelled.
public struct TimerHandle: Sendable, Hashable {
    let id: UInt64
}

/// One epoll event loop: a thread running `epoll_wait` over edge-triggered non-blocking sockets,
/// timers, tasks posted from other threads (woken through an eventfd) and tasks deferred to
/// the end of the current batch. Everything registered on a loop runs on its thread only, so
/// connection state needs no locks.
public final class EventLoop: @unchecked Sendable {
    private struct Slot {
        var handler: IOHandler?
        var generation: UInt32
    }

    /// Position in its group (0-based), for logs and load spreading.
    public let index: Int
    private let epfd: Int32
    private let wakeFD: Int32
    private var slots: [Slot] = []
    private var generation: UInt32 = 0
    private let inbox = Mutex<(tasks: [@Sendable () -> Void], woken: Bool)>(([], false))
    private var deferred: [() -> Void] = []
    private var timers = TimerHeap()
    private var timerCallbacks: [UInt64: () -> Void] = [:]
    private var nextTimerID: UInt64 = 1
    private let stopping = Atomic<Bool>(false)
    private let loopThread = Mutex<pthread_t?>(nil)
    /// A 64 KiB buffer that handlers on this loop read into (valid only during one handler call).
    public let readBuffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 64 * 1024, alignment: 16)
    /// Monotonic milliseconds, refreshed once per loop iteration.
    public private(set) var now: UInt64 = EventLoop.monotonicMilliseconds()

    public init(index: Int = 0) throws(PosixError) {
        self.index = index
        let ep = mouchard_epoll_create()
        guard ep >= 0 else { throw PosixError(operation: "epoll_create1") }
        let ev = mouchard_eventfd()
        guard ev >= 0 else {
            Glibc.close(ep)
            throw PosixError(operation: "eventfd")
        }
        epfd = ep
        wakeFD = ev
        guard mouchard_epoll_ctl(epfd, EPOLL_CTL_ADD, wakeFD, UInt32(MOUCHARD_EPOLLIN), UInt64.max) == 0 else {
            throw PosixError(operation: "epoll_ctl eventfd")
        }
    }

    deinit {
        Glibc.close(epfd)
        Glibc.close(wakeFD)
        readBuffer.deallocate()
    }

    /// Milliseconds from a monotonic clock.
    public static func monotonicMilliseconds() -> UInt64 {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return UInt64(ts.tv_sec) * 1000 + UInt64(ts.tv_nsec) / 1_000_000
    }

    /// True when called on this loop's thread.
    public var inLoop: Bool {
        loopThread.withLock { t in t.map { pthread_equal($0, pthread_self()) != 0 } ?? false }
    }

    /// Watches `socket` (edge-triggered: read and write until `wouldBlock`) and calls `handler` on readiness.
    public func register(_ socket: Socket, handler: IOHandler) throws(PosixError) {
        let fd = Int(socket.fd)
        if fd >= slots.count {
            slots.append(contentsOf: repeatElement(Slot(handler: nil, generation: 0), count: max(fd + 1 - slots.count, 256)))
        }
        generation &+= 1
        slots[fd] = Slot(handler: handler, generation: generation)
        let mask = UInt32(MOUCHARD_EPOLLIN | MOUCHARD_EPOLLOUT | MOUCHARD_EPOLLRDHUP) | MOUCHARD_EPOLLET
        let data = UInt64(generation) << 32 | UInt64(UInt32(bitPattern: socket.fd))
        guard mouchard_epoll_ctl(epfd, EPOLL_CTL_ADD, socket.fd, mask, data) == 0 else {
            slots[fd].handler = nil
            throw PosixError(operation: "epoll_ctl add")
        }
    }

    /// Stops watching `socket`. With `closing` (the caller closes it right after, and never
    /// duplicated it), the kernel drops it from epoll by itself and the epoll_ctl call is skipped.
    public func deregister(_ socket: Socket, closing: Bool = false) {
        let fd = Int(socket.fd)
        if fd < slots.count { slots[fd].handler = nil }
        if !closing { _ = mouchard_epoll_ctl(epfd, EPOLL_CTL_DEL, socket.fd, 0, 0) }
    }

    /// Runs `task` on the loop's thread soon; callable from any thread.
    public func execute(_ task: @escaping @Sendable () -> Void) {
        let mustWake = inbox.withLock { box -> Bool in
            box.tasks.append(task)
            if box.woken { return false }
            box.woken = true
            return true
        }
        if mustWake {
            var one: UInt64 = 1
            _ = Glibc.write(wakeFD, &one, 8)
        }
    }

    /// Runs `task` after the current batch of events (loop thread only): for work that must not
    /// re-enter the handler being called, such as resuming reads.
    public func deferToEndOfBatch(_ task: @escaping () -> Void) {
        deferred.append(task)
    }

    /// Calls `callback` once after `milliseconds` (loop thread only).
    @discardableResult
    public func schedule(afterMilliseconds milliseconds: UInt64, _ callback: @escaping () -> Void) -> TimerHandle {
        let id = nextTimerID
        nextTimerID += 1
        timerCallbacks[id] = callback
        timers.push(deadline: EventLoop.monotonicMilliseconds() + milliseconds, id: id)
        return TimerHandle(id: id)
    }

    /// Cancels a timer that has not fired yet (loop thread only).
    public func cancel(_ timer: TimerHandle) {
        timerCallbacks[timer.id] = nil
    }

    /// Asks the loop to return from `run()`; callable from any thread.
    public func stop() {
        stopping.store(true, ordering: .releasing)
        execute {}
    }

    /// Runs the loop on the calling thread until `stop()`.
    public func run() {
        loopThread.withLock { $0 = pthread_self() }
        let capacity = 512
        var events = [UInt32](repeating: 0, count: capacity)
        var datas = [UInt64](repeating: 0, count: capacity)
        while !stopping.load(ordering: .acquiring) {
            let timeout = nextTimeout()
            let n = events.withUnsafeMutableBufferPointer { e in
                datas.withUnsafeMutableBufferPointer { d in
                    mouchard_epoll_wait(epfd, e.baseAddress, d.baseAddress, Int32(capacity), timeout)
                }
            }
            now = EventLoop.monotonicMilliseconds()
            if n > 0 {
                for i in 0..<Int(n) {
                    let data = datas[i]
                    if data == UInt64.max {
                        drainInbox()
                        continue
                    }
                    let fd = Int(UInt32(truncatingIfNeeded: data))
                    let gen = UInt32(truncatingIfNeeded: data >> 32)
                    guard fd < slots.count, slots[fd].generation == gen, let handler = slots[fd].handler else { continue }
                    handler.handle(IOEvents(epoll: events[i]))
                    runDeferred()
                }
            }
            runDeferred()
            fireTimers()
            runDeferred()
        }
        drainInbox()
        runDeferred()
    }

    private func nextTimeout() -> Int32 {
        if !deferred.isEmpty { return 0 }
        while let top = timers.peek() {
            if timerCallbacks[top.id] == nil {
                _ = timers.pop()
                continue
            }
            let current = EventLoop.monotonicMilliseconds()
            return top.deadline <= current ? 0 : Int32(min(top.deadline - current, 60_000))
        }
        return -1
    }

    private func fireTimers() {
        let current = EventLoop.monotonicMilliseconds()
        while let top = timers.peek(), top.deadline <= current {
            _ = timers.pop()
            if let cb = timerCallbacks.removeValue(forKey: top.id) { cb() }
        }
    }

    private func drainInbox() {
        var counter: UInt64 = 0
        _ = Glibc.read(wakeFD, &counter, 8)
        let tasks = inbox.withLock { box -> [@Sendable () -> Void] in
            let t = box.tasks
            box.tasks.removeAll(keepingCapacity: true)
            box.woken = false
            return t
        }
        for t in tasks { t() }
    }

    private func runDeferred() {
        while !deferred.isEmpty {
            let batch = deferred
            deferred.removeAll(keepingCapacity: true)
            for t in batch { t() }
        }
    }
}

extension IOEvents {
    init(epoll mask: UInt32) {
        var e: IOEvents = []
        if mask & UInt32(MOUCHARD_EPOLLIN) != 0 { e.insert(.readable) }
        if mask & UInt32(MOUCHARD_EPOLLOUT) != 0 { e.insert(.writable) }
        if mask & UInt32(MOUCHARD_EPOLLRDHUP | MOUCHARD_EPOLLHUP) != 0 { e.insert(.hangup) }
        if mask & UInt32(MOUCHARD_EPOLLERR) != 0 { e.insert(.error) }
        self = e
    }
}

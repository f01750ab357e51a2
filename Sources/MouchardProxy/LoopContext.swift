import Foundation
import MouchardFlow
import MouchardPosix

/// What the sessions of one event loop share: the loop, the upstream pool, the live sessions
/// (which also keeps them alive) and a once-a-second timeout sweep. Touched on the loop's thread only.
final class LoopContext {
    let loop: EventLoop
    let shared: ProxyShared
    let pool: UpstreamPool
    private var sessions: [ObjectIdentifier: ProxySession] = [:]
    private var sweepTimer: TimerHandle?

    init(loop: EventLoop, shared: ProxyShared) {
        self.loop = loop
        self.shared = shared
        self.pool = UpstreamPool(maxPerTarget: shared.configuration.maxIdleUpstreamsPerTarget)
    }

    var sessionCount: Int { sessions.count }

    func add(_ session: ProxySession) { sessions[ObjectIdentifier(session)] = session }
    func remove(_ session: ProxySession) { sessions[ObjectIdentifier(session)] = nil }

    func startSweeping() {
        sweepTimer = loop.schedule(afterMilliseconds: 1000) { [weak self] in
            guard let self else { return }
            let now = self.loop.now
            for s in Array(self.sessions.values) { s.checkTimeouts(now: now) }
            self.pool.sweep(now: now, limit: self.shared.configuration.upstreamIdleTimeoutMilliseconds)
            self.startSweeping()
        }
    }

    /// Closes everything (shutdown).
    func closeAll() {
        if let t = sweepTimer { loop.cancel(t) }
        for s in Array(sessions.values) { s.abort() }
        sessions = [:]
        pool.closeAll()
    }
}

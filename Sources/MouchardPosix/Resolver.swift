import Foundation
import CMouchardShims
import Synchronization

/// Resolves host names with getaddrinfo on a few worker threads so event loops never block,
/// and keeps answers for a short time. IP literals are answered at once without a thread.
public final class Resolver: @unchecked Sendable {
    private struct Job {
        var host: String
        var port: Int
        var deliver: @Sendable (Result<[SocketAddress], PosixError>) -> Void
    }

    private let condition = NSCondition()
    private var jobs: [Job] = []
    private var stopped = false
    private let cache = Mutex<[String: (expires: UInt64, addresses: [SocketAddress])]>([:])
    /// How long an answer is reused, in milliseconds.
    public let cacheMilliseconds: UInt64

    public init(threads: Int = 2, cacheMilliseconds: UInt64 = 30_000) {
        self.cacheMilliseconds = cacheMilliseconds
        for i in 0..<max(1, threads) {
            let t = Thread { [weak self] in self?.work() }
            t.name = "mouchard-dns-\(i)"
            t.start()
        }
    }

    /// Stops the worker threads (pending look-ups are dropped).
    public func shutdown() {
        condition.lock()
        stopped = true
        condition.broadcast()
        condition.unlock()
    }

    /// Resolves `host` and calls `completion` on `loop`'s thread with the addresses (IPv4 first) or the error.
    public func resolve(host: String, port: Int, on loop: EventLoop,
                        _ completion: @escaping @Sendable (Result<[SocketAddress], PosixError>) -> Void) {
        if let literal = SocketAddress(ip: host, port: port) {
            completion(.success([literal]))
            return
        }
        let key = "\(host.lowercased()):\(port)"
        let now = EventLoop.monotonicMilliseconds()
        if let hit = cache.withLock({ $0[key] }), hit.expires > now {
            completion(.success(hit.addresses))
            return
        }
        let job = Job(host: host, port: port, deliver: { result in loop.execute { completion(result) } })
        condition.lock()
        jobs.append(job)
        condition.signal()
        condition.unlock()
    }

    /// Resolves synchronously on the calling thread (for tests and the CLI, never on a loop).
    public func resolveBlocking(host: String, port: Int) -> Result<[SocketAddress], PosixError> {
        if let literal = SocketAddress(ip: host, port: port) { return .success([literal]) }
        var storage = [sockaddr_storage](repeating: sockaddr_storage(), count: 8)
        var lengths = [socklen_t](repeating: 0, count: 8)
        let n = mouchard_resolve_tcp(host, String(port), &storage, &lengths, 8)
        guard n > 0 else {
            return .failure(PosixError(kind: .nameResolution, operation: "resolve \(host)", code: n == 0 ? EAI_NONAME : n))
        }
        var addresses = (0..<Int(n)).map { SocketAddress(storage: storage[$0], length: lengths[$0]) }
        addresses.sort { !$0.isIPv6 && $1.isIPv6 }
        let key = "\(host.lowercased()):\(port)"
        let expires = EventLoop.monotonicMilliseconds() + cacheMilliseconds
        cache.withLock { $0[key] = (expires, addresses) }
        return .success(addresses)
    }

    private func work() {
        while true {
            condition.lock()
            while jobs.isEmpty && !stopped { condition.wait() }
            if stopped {
                condition.unlock()
                return
            }
            let job = jobs.removeFirst()
            condition.unlock()
            job.deliver(resolveBlocking(host: job.host, port: job.port))
        }
    }
}

import Foundation
import MouchardFlow
import MouchardPosix
import MouchardTLS
import MouchardWire
import Synchronization

/// Sends prepared requests to origins through the proxy's own upstream client (`UpstreamLink`:
/// resolver off the loop, non-blocking connect, TLS verified unless told otherwise), `concurrency`
/// requests at a time, each lane keeping its connection alive while the next request goes to the
/// same target. The requests' bytes are sent as given: the caller decides what goes on the wire.
public final class ReplayClient: Sendable {
    /// One request to send: where, and the bytes (head and framed body).
    public struct Request: Sendable {
        public var target: UpstreamTarget
        /// The method (a HEAD response has no body).
        public var method: String
        public var bytes: [UInt8]

        public init(target: UpstreamTarget, method: String, bytes: [UInt8]) {
            self.target = target
            self.method = method
            self.bytes = bytes
        }
    }

    /// What came back for one request.
    public struct Outcome: Sendable {
        public var response: HTTPResponse?
        public var error: String?
        public var started: Date
        public var server: Endpoint?
        public var connectMilliseconds: Double?
        public var handshakeMilliseconds: Double?
        /// From the first byte sent to the first response byte, then to the last.
        public var waitMilliseconds: Double?
        public var receiveMilliseconds: Double?
    }

    public struct Settings: Sendable {
        public var concurrency: Int
        public var threads: Int
        public var verification: UpstreamVerification
        public var keyLogPath: String?
        public var connectTimeoutMilliseconds: UInt64
        public var responseTimeoutMilliseconds: UInt64
        /// Bytes of each response body kept (the rest is read and counted, not kept).
        public var bodyLimit: Int

        public init(concurrency: Int = 8, threads: Int = min(2, EventLoopGroup.defaultThreadCount),
                    verification: UpstreamVerification = .system, keyLogPath: String? = nil,
                    connectTimeoutMilliseconds: UInt64 = 10_000, responseTimeoutMilliseconds: UInt64 = 60_000,
                    bodyLimit: Int = 16 << 20) {
            self.concurrency = concurrency
            self.threads = threads
            self.verification = verification
            self.keyLogPath = keyLogPath
            self.connectTimeoutMilliseconds = connectTimeoutMilliseconds
            self.responseTimeoutMilliseconds = responseTimeoutMilliseconds
            self.bodyLimit = bodyLimit
        }
    }

    public let settings: Settings
    let tlsContext: TLSClientContext

    public init(settings: Settings) throws {
        self.settings = settings
        let keyLog = try settings.keyLogPath.map { try TLSKeyLog(path: $0) }
        tlsContext = try TLSClientContext(verification: settings.verification, alpn: ["http/1.1"], keyLog: keyLog)
    }

    /// Sends every request and returns when each has an outcome; `onOutcome(index, outcome)` is
    /// called on a loop thread as each completes (in completion order).
    public func run(_ requests: [Request], onOutcome: @escaping @Sendable (Int, Outcome) -> Void) throws {
        guard !requests.isEmpty else { return }
        let group = try EventLoopGroup(threads: max(1, settings.threads))
        let resolver = Resolver(threads: 2)
        let work = ReplayWork(requests: requests, onOutcome: onOutcome)
        let lanes = max(1, min(settings.concurrency, requests.count))
        for i in 0..<lanes {
            work.done.enter()
            let loop = group.loops[i % group.loops.count]
            let box = UncheckedBox((self, loop, resolver, work))
            loop.execute {
                let (client, loop, resolver, work) = box.value
                let lane = ReplayLane(client: client, loop: loop, resolver: resolver, work: work)
                lane.next()
            }
        }
        work.done.wait()
        group.shutdown()
        resolver.shutdown()
    }
}

/// The requests and the shared cursor of one `run`.
final class ReplayWork: Sendable {
    let requests: [ReplayClient.Request]
    let onOutcome: @Sendable (Int, ReplayClient.Outcome) -> Void
    let cursor = Atomic<Int>(0)
    let done = DispatchGroup()

    init(requests: [ReplayClient.Request], onOutcome: @escaping @Sendable (Int, ReplayClient.Outcome) -> Void) {
        self.requests = requests
        self.onOutcome = onOutcome
    }
}

/// One of the `concurrency` request lanes: sends a request, reads its response, takes the next.
/// Loop-confined; keeps itself alive through its link's owner reference and its timers until done.
final class ReplayLane: UpstreamLinkOwner {
    let client: ReplayClient
    let loop: EventLoop
    let resolver: Resolver
    let work: ReplayWork
    private var link: UpstreamLink?
    private var index = -1
    private var request: ReplayClient.Request?
    private var stream: HTTPResponseStream?
    private var head: HTTPResponseHead?
    private var body: BodyCapture = BodyCapture(limit: 0)
    private var started = Date()
    private var sentAt: UInt64 = 0
    private var firstByteAt: UInt64?
    private var retried = false
    private var sequence = 0
    private var timer: TimerHandle?
    /// Keeps the lane alive while a request is in flight (links hold their owner weakly).
    private var selfReference: ReplayLane?

    init(client: ReplayClient, loop: EventLoop, resolver: Resolver, work: ReplayWork) {
        self.client = client
        self.loop = loop
        self.resolver = resolver
        self.work = work
    }

    func next() {
        selfReference = self
        let i = work.cursor.wrappingAdd(1, ordering: .relaxed).oldValue
        guard i < work.requests.count else {
            link?.close()
            link = nil
            selfReference = nil
            work.done.leave()
            return
        }
        index = i
        retried = false
        send(work.requests[i], reuse: true)
    }

    private func send(_ r: ReplayClient.Request, reuse: Bool) {
        request = r
        sequence += 1
        stream = HTTPResponseStream(requestMethod: r.method)
        head = nil
        body = BodyCapture(limit: client.settings.bodyLimit)
        started = Date()
        firstByteAt = nil
        if !reuse || link == nil || link?.target != r.target || link?.isUsable != true {
            link?.close()
            link = nil
            if !open(r.target) { return }
        }
        sentAt = loop.now
        link?.send(r.bytes)
        armTimer()
    }

    private func open(_ target: UpstreamTarget) -> Bool {
        let l = UpstreamLink(target: target, loop: loop, owner: self)
        if target.tls {
            do {
                l.tls = UpstreamTLSClient(session: try TLSClientSession(context: client.tlsContext, host: target.host))
            } catch {
                complete(error: "TLS setup for \(target.authority) failed: \(error)")
                return false
            }
        }
        link = l
        l.start(resolver: resolver)
        return true
    }

    private func armTimer() {
        if let t = timer { loop.cancel(t) }
        let expected = sequence
        let limit = client.settings.responseTimeoutMilliseconds + client.settings.connectTimeoutMilliseconds
        timer = loop.schedule(afterMilliseconds: limit) { [weak self] in
            guard let self, self.sequence == expected, self.request != nil else { return }
            self.link?.close()
            self.link = nil
            self.complete(error: "no complete response within \(limit / 1000) s")
        }
    }

    private func complete(error: String?) {
        guard request != nil else { return }
        if let t = timer { loop.cancel(t) }
        timer = nil
        let now = loop.now
        let response = head.map { HTTPResponse(head: $0, body: body.bytes, bodyTruncated: body.truncated) }
        let fresh = link.map { $0.servedExchanges == 0 } ?? false
        let outcome = ReplayClient.Outcome(
            response: error == nil ? response : nil, error: error, started: started,
            server: link?.remote.map { Endpoint(address: $0.ip, port: $0.port) },
            connectMilliseconds: fresh ? link?.connectMilliseconds : nil,
            handshakeMilliseconds: fresh ? link?.handshakeMilliseconds : nil,
            waitMilliseconds: firstByteAt.map { Double($0 >= sentAt ? $0 - sentAt : 0) },
            receiveMilliseconds: firstByteAt.map { Double(now >= $0 ? now - $0 : 0) })
        link?.servedExchanges += 1
        request = nil
        stream = nil
        work.onOutcome(index, outcome)
        next()
    }

    private func pump() {
        guard var s = stream else { return }
        while true {
            let part: HTTPStreamPart<HTTPResponseHead>?
            do {
                part = try s.next()
            } catch {
                stream = s
                link?.close()
                link = nil
                complete(error: "invalid response: \(error)")
                return
            }
            guard let part else { break }
            switch part {
            case .informational, .trailers:
                continue
            case .head(let h):
                head = h
            case .body(let b):
                body.append(b)
            case .end:
                stream = s
                let keepAlive = head.map { HopByHopHeaders.wantsKeepAlive($0.headers, version: $0.version) } ?? false
                if !keepAlive || s.wasCloseDelimited {
                    link?.close()
                    link = nil
                }
                complete(error: nil)
                return
            }
        }
        stream = s
    }

    // MARK: UpstreamLinkOwner

    func upstreamReady(_ link: UpstreamLink) {}

    func upstreamFailed(_ failed: UpstreamLink, _ failure: UpstreamFailure) {
        guard failed === link else { return }
        link = nil
        if retryOnFreshConnection(failed) { return }
        complete(error: "\(failure)")
    }

    func upstream(_ from: UpstreamLink, received bytes: [UInt8]) {
        guard from === link, var s = stream else { return }
        if firstByteAt == nil { firstByteAt = loop.now }
        s.append(bytes)
        stream = s
        pump()
    }

    func upstreamEnded(_ ended: UpstreamLink) {
        guard ended === link else { return }
        link = nil
        guard var s = stream else { return }
        if firstByteAt == nil, retryOnFreshConnection(ended) { return }
        do {
            if let part = try s.finish(), case .end = part {
                stream = s
                complete(error: nil)
                return
            }
        } catch {}
        stream = s
        complete(error: head == nil ? "the server closed the connection before responding"
                                    : "the server closed the connection in the middle of the response")
    }

    func upstreamDrained(_ link: UpstreamLink) {}

    /// A kept-alive connection the server closed before answering (the usual race): once, on a new one.
    private func retryOnFreshConnection(_ failed: UpstreamLink) -> Bool {
        guard failed.servedExchanges > 0, !retried, firstByteAt == nil, let r = request else { return false }
        retried = true
        send(r, reuse: false)
        return true
    }
}

import MouchardPosix

/// Who is using an upstream connection right now: a proxy session, or the pool while it is idle.
protocol UpstreamLinkOwner: AnyObject {
    func upstreamReady(_ link: UpstreamLink)
    func upstreamFailed(_ link: UpstreamLink, _ failure: UpstreamFailure)
    func upstream(_ link: UpstreamLink, received bytes: [UInt8])
    func upstreamEnded(_ link: UpstreamLink)
    func upstreamDrained(_ link: UpstreamLink)
}

/// A plaintext pipe to one origin server: resolves the name off-loop, connects without blocking,
/// (for `https` targets) runs the TLS client (`UpstreamTLSClient`), and hands plaintext to its owner.
final class UpstreamLink: StreamConnectionDelegate {
    enum State: Equatable {
        case resolving
        case connecting
        case handshaking
        case ready
        case closed
    }

    let target: UpstreamTarget
    let loop: EventLoop
    weak var owner: UpstreamLinkOwner?
    private(set) var state: State = .resolving
    private(set) var stream: StreamConnection?
    private(set) var remote: SocketAddress?
    /// Plaintext queued before the connection (and TLS handshake) is ready.
    private var pending: [[UInt8]] = []
    let startedAt: UInt64
    private(set) var connectedAt: UInt64?
    private(set) var readyAt: UInt64?
    /// When it went back to the pool (for the idle timeout).
    var idleSince: UInt64 = 0
    /// TLS client for `https` targets, set by the interception layer before `start`.
    var tls: UpstreamTLSClient?
    /// The SNI sent to the origin (nil when none was sent).
    var serverName: String?
    /// `h2` was offered to the origin in ALPN (when it chose HTTP/1.1 anyway, a phone offering h2
    /// may reuse this link: the origin does not speak h2).
    var offeredHTTP2 = false

    /// A TLS link: another tunnel to the same target with the same SNI may reuse it (the pool's key
    /// holds both).
    var isPoolableTLS: Bool { tls != nil && !isHTTP2 }
    /// The origin chose `h2` in ALPN: this link speaks HTTP/2 and is never pooled for HTTP/1.
    var isHTTP2: Bool { tls?.session.alpnProtocol == "h2" }
    /// True when this connection already served an exchange (a reused connection may have been
    /// closed by the origin meanwhile, so a failure before any response byte may be retried).
    var servedExchanges = 0

    init(target: UpstreamTarget, loop: EventLoop, owner: UpstreamLinkOwner) {
        self.target = target
        self.loop = loop
        self.owner = owner
        self.startedAt = loop.now
    }

    /// Resolves and connects; the owner hears `upstreamReady` or `upstreamFailed`.
    func start(resolver: Resolver) {
        let me = UncheckedBox(WeakBox(self))
        resolver.resolve(host: target.host, port: target.port, on: loop) { result in
            // Delivered on this link's loop.
            me.value.value?.resolved(result)
        }
    }

    private func resolved(_ result: Result<[SocketAddress], PosixError>) {
        guard state == .resolving else { return }
        switch result {
        case .failure(let error):
            fail(.dnsFailed("\(error)"))
        case .success(let addresses):
            guard let address = addresses.first else {
                fail(.dnsFailed("\(target.host): no address"))
                return
            }
            remote = address
            do {
                let socket = try Socket.connect(to: address)
                let s = StreamConnection(socket: socket, loop: loop, connecting: true)
                s.delegate = self
                stream = s
                state = .connecting
                try s.start()
            } catch {
                fail(Self.failure(for: error, target: target))
            }
        }
    }

    var isUsable: Bool { state != .closed && !(stream?.isClosed ?? false) }
    var isAboveHighWater: Bool { stream?.isAboveHighWater ?? false }

    /// Sends plaintext (queued until ready).
    func send(_ bytes: [UInt8]) {
        guard !bytes.isEmpty else { return }
        if state == .ready {
            if let tls {
                stream?.send(tls.encrypt(bytes))
            } else {
                stream?.send(bytes)
            }
        } else if state != .closed {
            pending.append(bytes)
        }
    }

    func pauseReading() { stream?.pauseReading() }
    func resumeReading() { stream?.resumeReading() }

    func close() {
        guard state != .closed else { return }
        state = .closed
        pending = []
        stream?.close()
        owner = nil
    }

    /// Elapsed connect time in ms (nil when reused or not connected).
    var connectMilliseconds: Double? { connectedAt.map { Double($0 - startedAt) } }
    var handshakeMilliseconds: Double? {
        guard tls != nil, let c = connectedAt, let r = readyAt else { return nil }
        return Double(r - c)
    }

    private func becomeReady() {
        state = .ready
        readyAt = loop.now
        let queued = pending
        pending = []
        for b in queued { send(b) }
        owner?.upstreamReady(self)
    }

    private func fail(_ failure: UpstreamFailure) {
        guard state != .closed else { return }
        let o = owner
        close()
        o?.upstreamFailed(self, failure)
    }

    static func failure(for error: any Error, target: UpstreamTarget) -> UpstreamFailure {
        guard let e = error as? PosixError else { return .reset("\(target.authority): \(error)") }
        switch e.kind {
        case .connectionRefused: return .refused(target.authority)
        case .connectionReset, .brokenPipe, .connectionAborted: return .reset(target.authority)
        case .timedOut: return .timedOut("connecting to \(target.authority)")
        case .hostUnreachable, .networkUnreachable: return .unreachable(target.authority)
        case .nameResolution: return .dnsFailed(target.host)
        default: return .reset("\(target.authority): \(e)")
        }
    }

    /// Called by the session's timeout sweep.
    func checkConnectTimeout(now: UInt64, limit: UInt64) {
        if (state == .resolving || state == .connecting || state == .handshaking) && now - startedAt > limit {
            fail(.timedOut("connecting to \(target.authority) took more than \(limit / 1000) s"))
        }
    }

    // MARK: StreamConnectionDelegate

    func streamConnected(_ stream: StreamConnection, error: PosixError?) {
        if let error {
            fail(Self.failure(for: error, target: target))
            return
        }
        connectedAt = loop.now
        if let tls {
            state = .handshaking
            stream.send(tls.start())
        } else {
            becomeReady()
        }
    }

    func stream(_ stream: StreamConnection, received bytes: [UInt8]) {
        guard let tls else {
            owner?.upstream(self, received: bytes)
            return
        }
        do {
            let result = try tls.receive(bytes)
            if !result.toPeer.isEmpty { stream.send(result.toPeer) }
            if state == .handshaking && result.handshakeDone { becomeReady() }
            if !result.plaintext.isEmpty { owner?.upstream(self, received: result.plaintext) }
            if result.closed {
                let o = owner
                close()
                o?.upstreamEnded(self)
            }
        } catch {
            if state == .handshaking {
                fail(.tlsFailed("\(target.authority): \(error)"))
            } else {
                let o = owner
                close()
                o?.upstreamEnded(self)
            }
        }
    }

    func streamEnded(_ stream: StreamConnection, error: PosixError?) {
        switch state {
        case .resolving, .connecting:
            fail(error.map { Self.failure(for: $0, target: target) } ?? .closedEarly)
        case .handshaking:
            fail(.tlsFailed("\(target.authority): connection closed during the handshake"))
        case .ready:
            let o = owner
            close()
            o?.upstreamEnded(self)
        case .closed:
            break
        }
    }

    func streamDrained(_ stream: StreamConnection) {
        owner?.upstreamDrained(self)
    }
}

/// A weak reference, to hand a loop-confined object to a callback without keeping it alive.
final class WeakBox<T: AnyObject> {
    weak var value: T?
    init(_ value: T) { self.value = value }
}

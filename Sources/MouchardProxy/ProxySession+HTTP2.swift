import MouchardHTTP2
import MouchardPosix

/// The session's HTTP/2 mode: an intercepted tunnel where the phone chose `h2` is carried by an
/// `HTTP2ProxyMachine` when the origin chose `h2` too, by an `HTTP2TranslationMachine` when it
/// speaks HTTP/1.1 (decrypted client bytes and upstream bytes in, frames for either side, new
/// origin connections and finished exchanges out).
extension ProxySession {
    /// The phone accepted our certificate and chose h2: from now on this connection carries HTTP/2
    /// streams. `early`: application bytes that came with its Finished. `translating`: the origin
    /// speaks HTTP/1.1.
    func startInterceptedHTTP2(target: UpstreamTarget, early: [UInt8], translating: Bool = false) {
        let machine: any HTTP2SessionMachine
        let authority = tunnelServerName ?? target.authority
        let limit = shared.configuration.bodyCaptureLimit
        do {
            if translating {
                machine = try HTTP2TranslationMachine(target: target, fallbackAuthority: authority, bodyCaptureLimit: limit,
                                                      upstreamReady: upstream?.state == .ready,
                                                      upstreamReused: (upstream?.servedExchanges ?? 0) > 0)
            } else {
                machine = try HTTP2ProxyMachine(target: target, fallbackAuthority: authority, bodyCaptureLimit: limit,
                                                webSocketMaxFrameLength: shared.configuration.webSocketMaxFrameLength)
            }
        } catch {
            shared.configuration.log("HTTP/2 setup failed: \(error)")
            close()
            return
        }
        mode = .http2
        http2 = machine
        shared.statistics.http2Connections.wrappingAdd(1, ordering: .relaxed)
        machine.now = loop.now
        performHTTP2(machine.start())
        if !heldUpstreamBytes.isEmpty {
            let held = heldUpstreamBytes
            heldUpstreamBytes = []
            feedHTTP2(.upstreamBytes(held))
        }
        if !early.isEmpty { feedHTTP2(.clientBytes(early)) }
        updateReading()
    }

    /// Keeps an h2 origin's first bytes until the phone's handshake is done; an origin saying more
    /// than `heldUpstreamLimit` before any request is not an HTTP/2 server.
    func holdUpstreamBytes(_ bytes: [UInt8]) {
        heldUpstreamBytes += bytes
        if heldUpstreamBytes.count > Self.heldUpstreamLimit { finishTunnel(error: "the h2 origin sent too much before any request") }
    }

    static let heldUpstreamLimit = 64 * 1024

    /// The tunnel's interception is gone (cannot happen while its h2 connection lives).
    struct TranslationLinkError: Error, CustomStringConvertible {
        var description: String { "no intercepted tunnel to connect for" }
    }

    /// Client ciphertext in: decrypted, then read by the machine.
    func http2ClientBytes(_ bytes: [UInt8]) {
        guard let tls = clientTLS else { return }
        let step: TLSStep
        do {
            step = try tls.receive(bytes)
        } catch {
            feedHTTP2(.clientEnded)
            return
        }
        if !step.toPeer.isEmpty { client.send(step.toPeer) }
        if !step.plaintext.isEmpty { feedHTTP2(.clientBytes(step.plaintext)) }
        if step.closed { feedHTTP2(.clientEnded) }
    }

    func feedHTTP2(_ input: HTTP2ProxyMachine.Input) {
        guard let machine = http2, mode == .http2 else { return }
        machine.now = loop.now
        noteBacklogs()
        performHTTP2(machine.handle(input))
        shared.statistics.http2PeakBufferedBodyBytes.max(machine.peakBufferedBodyBytes, ordering: .relaxed)
        updateReading()
    }

    /// Tells the machine which socket write buffers are over their high-water mark.
    func noteBacklogs() {
        http2?.clientBacklogged = client.isAboveHighWater
        http2?.upstreamBacklogged = upstream?.isAboveHighWater ?? false
    }

    private func performHTTP2(_ actions: [HTTP2ProxyMachine.Action]) {
        for action in actions {
            switch action {
            case .sendClient(let bytes):
                sendToClient(bytes)
            case .sendUpstream(let bytes):
                upstream?.send(bytes)
            case .completed(let exchange):
                record(exchange)
            case .webSocketMessages(let relay, let final):
                recordWebSocket(relay, final: final)
            case .closeUpstream:
                upstream?.close()
                upstream = nil
            case .connectUpstream:
                openTranslationLink()
            case .closeClient:
                if let failure = http2?.clientFailure {
                    shared.statistics.http2Refused.wrappingAdd(1, ordering: .relaxed)
                    shared.configuration.log("HTTP/2 client \(clientAddress): \(failure)")
                }
                if let tls = clientTLS { client.send(tls.closeNotify()) }
                client.closeAfterFlushing()
                finish()
            }
        }
    }

    /// A new HTTP/1.1 origin connection for the translation machine (no ALPN offered: the origin
    /// declined h2 already). Its readiness comes back as `upstreamConnected`.
    private func openTranslationLink() {
        guard let target = (http2 as? HTTP2TranslationMachine)?.target else { return }
        upstream?.close()
        upstream = nil
        let link = UpstreamLink(target: target, loop: loop, owner: self)
        do {
            guard let interception else { throw TranslationLinkError() }
            link.tls = try interception.makeUpstreamTLS(for: target)
            link.serverName = interception.serverName
            // Pooled with the links that offered h2: this origin declined it on the tunnel's first connection.
            link.offeredHTTP2 = true
        } catch {
            let why = "TLS setup failed: \(error)"
            loop.schedule(afterMilliseconds: 0) { [weak self] in self?.feedHTTP2(.upstreamFailed(why)) }
            return
        }
        upstream = link
        link.start(resolver: shared.resolver)
    }

    /// Idle h2 connections close like idle HTTP/1 ones; streams waiting on a silent origin end as
    /// the HTTP/1 path's 504 does, with the origin connection.
    func checkHTTP2Timeouts(now: UInt64) {
        guard let machine = http2 else { return }
        let c = shared.configuration
        let last = max(client.lastActivity, upstream?.stream?.lastActivity ?? 0)
        if machine.isBusy {
            if now - last > c.responseTimeoutMilliseconds {
                feedHTTP2(.upstreamFailed("no response within \(c.responseTimeoutMilliseconds / 1000) s"))
            }
        } else if now - last > c.clientIdleTimeoutMilliseconds {
            close()
        }
    }
}

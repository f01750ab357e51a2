import Foundation
import MouchardFlow
import MouchardPosix
import MouchardTLS
import MouchardWire

/// One client connection of the proxy: drives a `ForwardProxyMachine` with socket events and
/// carries out its actions, manages the upstream connection (pooled per target), backpressure
/// (a side stops being read while the other's output is above the high-water mark), timeouts,
/// and CONNECT tunnels (raw, or intercepted through `TunnelInterception`).
///
/// In transparent (gateway) mode the same session serves a redirected connection: its first bytes
/// decide whether it is plain HTTP (the machine, with the original destination as its only target),
/// TLS (the same interception as a CONNECT tunnel, minus the 200), or anything else (a raw tunnel to
/// the original destination); a connection that stays silent is a server-first protocol.
final class ProxySession: StreamConnectionDelegate, UpstreamLinkOwner {
    enum Mode {
        /// HTTP requests (plain, or decrypted inside an intercepted tunnel).
        case http
        /// HTTP/2 streams inside an intercepted tunnel where the phone chose h2 (`ProxySession+HTTP2`):
        /// to an h2 origin, or translated into HTTP/1.1 requests.
        case http2
        /// Bytes copied both ways untouched.
        case rawTunnel
        /// Waiting for the ClientHello / the upstream handshake / our handshake with the client.
        case intercepting
        /// Transparent mode: waiting for the client's first bytes to tell what it speaks.
        case awaitingFirstBytes
        case closed
    }

    let context: LoopContext
    let client: StreamConnection
    let clientAddress: SocketAddress
    var machine: ForwardProxyMachine
    var upstream: UpstreamLink?
    var mode: Mode = .http
    /// Decrypts the client side once a tunnel is intercepted.
    var clientTLS: ClientTLS?
    var interception: TunnelInterception?
    /// Facts about the tunnel this session carries (CONNECT target, SNI, ALPN, TLS version).
    var tunnel: TunnelFacts?

    /// Transparent mode: where the client meant to go (nil for a forward-proxy connection).
    let redirect: TransparentRedirect?
    /// Transparent mode: the client's bytes until they tell what protocol this is.
    private var firstBytes: [UInt8] = []
    /// A WebSocket connection whose frames are read while relayed (after its 101).
    var webSocket: WebSocketRelay?
    /// The HTTP/2 machine of an intercepted h2 connection (mode `.http2`).
    var http2: (any HTTP2SessionMachine)?
    /// What an h2 origin sent before the machine existed (read by it first).
    var heldUpstreamBytes: [UInt8] = []

    init(context: LoopContext, client: StreamConnection, clientAddress: SocketAddress, redirect: TransparentRedirect? = nil) {
        self.context = context
        self.client = client
        self.clientAddress = clientAddress
        self.redirect = redirect
        let target = redirect.map { r in r.toGatewayItself ? nil : r.target } ?? nil
        self.machine = ForwardProxyMachine(configuration: context.shared.machineConfiguration(scheme: "http", tunnelTarget: target))
        if redirect != nil {
            mode = .awaitingFirstBytes
            let wait = context.shared.configuration.serverFirstWaitMilliseconds
            context.loop.schedule(afterMilliseconds: wait) { [weak self] in self?.clientStayedSilent() }
        }
    }

    var shared: ProxyShared { context.shared }
    var loop: EventLoop { context.loop }

    // MARK: - Client side

    func streamConnected(_ stream: StreamConnection, error: PosixError?) {}

    func stream(_ stream: StreamConnection, received bytes: [UInt8]) {
        switch mode {
        case .http:
            if clientTLS == nil, startsDirectTLS(bytes) { return }
            if let tls = clientTLS {
                let step: TLSStep
                do {
                    step = try tls.receive(bytes)
                } catch {
                    close()
                    return
                }
                if !step.toPeer.isEmpty { client.send(step.toPeer) }
                if !step.plaintext.isEmpty { feed(.clientBytes(step.plaintext)) }
                if step.closed { feed(.clientEnded) }
            } else {
                feed(.clientBytes(bytes))
            }
        case .rawTunnel:
            interception?.noteClientBytes(bytes, session: self)
            if let tls = clientTLS {
                do {
                    let step = try tls.receive(bytes)
                    if !step.toPeer.isEmpty { client.send(step.toPeer) }
                    relayToUpstream(step.plaintext)
                    if step.closed { finishTunnel(error: nil) }
                } catch {
                    finishTunnel(error: nil)
                }
            } else {
                relayToUpstream(bytes)
            }
            updateReading()
        case .intercepting:
            interception?.clientBytes(bytes, session: self)
        case .http2:
            http2ClientBytes(bytes)
        case .awaitingFirstBytes:
            firstBytes += bytes
            routeTransparent(final: false)
        case .closed:
            break
        }
    }

    func streamEnded(_ stream: StreamConnection, error: PosixError?) {
        switch mode {
        case .http:
            feed(.clientEnded)
        case .rawTunnel:
            finishTunnel(error: nil)
        case .intercepting:
            interception?.clientEnded(session: self)
        case .http2:
            feedHTTP2(.clientEnded)
        case .awaitingFirstBytes:
            if firstBytes.isEmpty { close() } else { routeTransparent(final: true) }
        case .closed:
            break
        }
    }

    func streamDrained(_ stream: StreamConnection) {
        if mode == .http2 { feedHTTP2(.writeBufferDrained) } else { updateReading() }
    }

    // MARK: - Upstream side

    func upstreamReady(_ link: UpstreamLink) {
        guard link === upstream else { return }
        switch mode {
        case .http: feed(.upstreamConnected)
        case .intercepting: interception?.upstreamReady(link, session: self)
        case .rawTunnel: rawTunnelConnected()
        case .http2: feedHTTP2(.upstreamConnected)
        case .awaitingFirstBytes, .closed: break
        }
    }

    func upstreamFailed(_ link: UpstreamLink, _ failure: UpstreamFailure) {
        guard link === upstream else { return }
        upstream = nil
        if retryOnFreshConnection(link) { return }
        switch mode {
        case .http: feed(.upstreamFailed(failure))
        case .intercepting: interception?.upstreamFailed(failure, session: self)
        case .rawTunnel: rawTunnelFailed(failure)
        case .http2: feedHTTP2(.upstreamFailed("\(failure)"))
        case .awaitingFirstBytes, .closed: break
        }
    }

    func upstream(_ link: UpstreamLink, received bytes: [UInt8]) {
        guard link === upstream else { return }
        switch mode {
        case .http:
            retry.responseSeen = true
            feed(.upstreamBytes(bytes))
        case .rawTunnel:
            interception?.noteUpstreamBytes(bytes)
            relayToClient(bytes)
            updateReading()
        case .http2:
            feedHTTP2(.upstreamBytes(bytes))
        case .intercepting where link.isHTTP2:
            // An h2 origin speaks first (its SETTINGS) while the phone's handshake is still going.
            holdUpstreamBytes(bytes)
        default: break
        }
    }

    func upstreamEnded(_ link: UpstreamLink) {
        guard link === upstream else { return }
        upstream = nil
        if retryOnFreshConnection(link) { return }
        switch mode {
        case .http: feed(.upstreamEnded)
        case .rawTunnel: finishTunnel(error: nil)
        case .intercepting: interception?.upstreamFailed(.closedEarly, session: self)
        case .http2: feedHTTP2(.upstreamEnded)
        case .awaitingFirstBytes, .closed: break
        }
    }

    func upstreamDrained(_ link: UpstreamLink) {
        if mode == .http2 { feedHTTP2(.writeBufferDrained) } else { updateReading() }
    }

    // MARK: - Driving the machine

    func feed(_ input: ForwardProxyMachine.Input) {
        machine.now = loop.now
        perform(machine.handle(input))
        updateReading()
    }

    /// Sends plaintext to the client (through TLS when intercepted).
    func sendToClient(_ bytes: [UInt8]) {
        if let tls = clientTLS { client.send(tls.encrypt(bytes)) } else { client.send(bytes) }
    }

    private func perform(_ actions: [ForwardProxyMachine.Action]) {
        for action in actions {
            switch action {
            case .connectUpstream(let target):
                attachUpstream(target)
            case .sendUpstream(let bytes):
                if !retry.overflow {
                    if retry.sent.count + bytes.count <= RetryState.limit {
                        retry.sent += bytes
                    } else {
                        retry.overflow = true
                        retry.sent = []
                    }
                }
                upstream?.send(bytes)
            case .sendClient(let bytes):
                sendToClient(bytes)
            case .releaseUpstream:
                if let u = upstream {
                    u.servedExchanges += 1
                    upstream = nil
                    if clientTLS != nil {
                        // An intercepted tunnel keeps its upstream: requests in it all go there.
                        upstream = u
                    } else {
                        context.pool.put(u, now: loop.now)
                    }
                }
            case .closeUpstream:
                upstream?.close()
                upstream = nil
            case .closeClient:
                if let tls = clientTLS { client.send(tls.closeNotify()) }
                client.closeAfterFlushing()
                finish()
            case .openTunnel(let target, let leftover):
                openTunnel(target, leftover: leftover)
            case .completed(let exchange):
                // A WebSocket upgrade is recorded with its messages (`ProxySession+WebSocket`).
                if !holdWebSocketUpgrade(exchange) { record(exchange) }
            case .switchProtocols(let clientLeftover, let upstreamLeftover):
                // WebSocket and other upgrades: copy bytes both ways (through TLS when intercepted),
                // WebSocket frames read on the way.
                mode = .rawTunnel
                relayToUpstream(clientLeftover)
                relayToClient(upstreamLeftover)
            }
        }
    }

    private func attachUpstream(_ target: UpstreamTarget) {
        retry = RetryState()
        if let u = upstream, u.target == target, u.isUsable { return }
        upstream?.close()
        upstream = nil
        if let pooled = context.pool.take(target, serverName: target.tls ? interception?.serverName : nil, for: self) {
            upstream = pooled
            return
        }
        openLink(target)
    }

    private func openLink(_ target: UpstreamTarget) {
        let link = UpstreamLink(target: target, loop: loop, owner: self)
        if target.tls, let interception {
            do {
                link.tls = try interception.makeUpstreamTLS(for: target)
                link.serverName = interception.serverName
            } catch {
                feed(.upstreamFailed(.tlsFailed("\(error)")))
                return
            }
        }
        upstream = link
        link.start(resolver: shared.resolver)
    }

    /// What is needed to resend a request when a reused keep-alive connection turns out to be
    /// closed by the origin before answering (the usual keep-alive race): one retry, on a fresh
    /// connection, when the request fitted in `limit` bytes and no response byte arrived.
    struct RetryState {
        static let limit = 64 * 1024
        var sent: [UInt8] = []
        var overflow = false
        var responseSeen = false
        var used = false
    }

    var retry = RetryState()

    /// Retries the current request on a new connection if the failed link was a reused one.
    private func retryOnFreshConnection(_ link: UpstreamLink) -> Bool {
        guard mode == .http, machine.isBusy, link.servedExchanges > 0, !retry.used, !retry.overflow,
              !retry.responseSeen, !retry.sent.isEmpty else { return false }
        retry.used = true
        let bytes = retry.sent
        openLink(link.target)
        upstream?.send(bytes)
        return upstream != nil
    }

    /// Stops reading a side whose peer cannot keep up (or whose bytes the machine cannot take yet).
    func updateReading() {
        guard mode != .closed else { return }
        let upstreamFull = upstream?.isAboveHighWater ?? false
        let clientPaused: Bool
        switch mode {
        case .http: clientPaused = upstreamFull || machine.wantsClientPaused && !machine.isClosed
        case .rawTunnel: clientPaused = upstreamFull
        case .http2: clientPaused = http2?.wantsClientPaused == true  // flow control holds the client back
        default: clientPaused = false
        }
        if clientPaused { client.pauseReading() } else { client.resumeReading() }
        noteBacklogs()
        let upstreamPaused = mode == .http2 ? http2?.wantsUpstreamPaused == true : client.isAboveHighWater
        if upstreamPaused { upstream?.pauseReading() } else { upstream?.resumeReading() }
    }

    // MARK: - Tunnels

    func openTunnel(_ target: UpstreamTarget, leftover: [UInt8]) {
        beginTunnel(target, leftover: leftover, answerConnect: true)
    }

    /// A TLS tunnel: a CONNECT (`answerConnect`: the 200 goes first) or a redirected TLS connection.
    private func beginTunnel(_ target: UpstreamTarget, leftover: [UInt8], answerConnect: Bool) {
        shared.statistics.tunnels.wrappingAdd(1, ordering: .relaxed)
        let facts = TunnelFacts(target: target, started: Date(), startedMonotonic: loop.now)
        tunnel = facts
        if shared.interceptor == nil {
            startRawTunnel(target, leftover: leftover, replied: !answerConnect)
            return
        }
        // Even an --ignore-host target goes through the ClientHello first, to record its SNI.
        mode = .intercepting
        let i = TunnelInterception(target: target)
        interception = i
        if answerConnect { sendToClient(Array("HTTP/1.1 200 Connection established\r\n\r\n".utf8)) }
        if !leftover.isEmpty { i.clientBytes(leftover, session: self) }
        if answerConnect && leftover.isEmpty {
            // A server-first protocol (SMTP, SSH, FTP banners) waits for the origin to speak: no
            // ClientHello within the wait means a blind tunnel, so the origin's first bytes get through.
            loop.schedule(afterMilliseconds: shared.configuration.serverFirstWaitMilliseconds) { [weak self, weak i] in
                guard let self, let i, self.interception === i, self.mode == .intercepting else { return }
                i.clientStayedSilent(session: self)
            }
        }
        updateReading()
    }

    // MARK: - Transparent connections

    /// Decides from the first client bytes how a redirected connection is carried (`final`: the
    /// client stopped sending, so no more bytes will come to make up its mind).
    private func routeTransparent(final: Bool) {
        guard let redirect, mode == .awaitingFirstBytes else { return }
        var verdict = FirstBytes.classify(client: firstBytes)
        if verdict == .needMore && (final || firstBytes.count >= Self.firstBytesLimit) { verdict = .opaque }
        let bytes = firstBytes
        switch verdict {
        case .needMore:
            return
        case .http:
            firstBytes = []
            mode = .http
            if redirect.toGatewayItself {
                // The phone browsing to the gateway's own address: the CA onboarding page, whatever the Host.
                let onboarding = shared.localResponder
                var c = shared.machineConfiguration(scheme: "http", tunnelTarget: nil)
                c.localResponder = { head in
                    var h = head
                    h.headers.replaceOrAdd(name: "Host", value: OnboardingPage.host)
                    return onboarding(h) ?? .error(status: 404, message: "this is the Mouchard gateway: see http://\(OnboardingPage.host)/")
                }
                machine = ForwardProxyMachine(configuration: c)
            }
            feed(.clientBytes(bytes))
        case .tls, .opaque:
            firstBytes = []
            guard !redirect.toGatewayItself else {
                close()  // nothing else is served on the gateway's own address
                return
            }
            if verdict == .tls {
                beginTunnel(UpstreamTarget(host: redirect.original.ip, port: redirect.original.port, tls: true),
                            leftover: bytes, answerConnect: false)
            } else {
                beginRawTransparentTunnel(redirect, leftover: bytes)
            }
        }
    }

    /// The client said nothing for `serverFirstWaitMilliseconds`: a server-first protocol (SSH,
    /// SMTP...) or a client that waits for a banner. Tunnel it so the server can speak.
    private func clientStayedSilent() {
        guard let redirect, mode == .awaitingFirstBytes else { return }
        if !firstBytes.isEmpty {
            routeTransparent(final: true)
            return
        }
        guard !redirect.toGatewayItself else {
            close()
            return
        }
        beginRawTransparentTunnel(redirect, leftover: [])
    }

    private func beginRawTransparentTunnel(_ redirect: TransparentRedirect, leftover: [UInt8]) {
        shared.statistics.tunnels.wrappingAdd(1, ordering: .relaxed)
        tunnel = TunnelFacts(target: redirect.target, started: Date(), startedMonotonic: loop.now)
        startRawTunnel(redirect.target, leftover: leftover, replied: true)
    }

    /// Client bytes kept while deciding; more than this without a verdict is not HTTP or TLS.
    static let firstBytesLimit = 64

    /// Copies bytes both ways. `replied` = the 200 was already sent (SNI-based decision).
    func startRawTunnel(_ target: UpstreamTarget, leftover: [UInt8], replied: Bool) {
        mode = .rawTunnel
        if interception == nil { interception = TunnelInterception(target: target) }
        interception?.rawReplied = replied
        interception?.noteClientBytes(leftover, session: self)
        let link = UpstreamLink(target: UpstreamTarget(host: target.host, port: target.port, tls: false), loop: loop, owner: self)
        upstream = link
        link.send(leftover)
        link.start(resolver: shared.resolver)
        if !replied { client.pauseReading() }
    }

    /// A CONNECT tunnel whose client speaks cleartext HTTP: the requests go to the tunnel's target.
    func startTunneledHTTP(target: UpstreamTarget, leftover: [UInt8]) {
        mode = .http
        machine = ForwardProxyMachine(configuration: shared.machineConfiguration(scheme: "http", tunnelTarget: target))
        feed(.clientBytes(leftover))
    }

    /// The phone accepted our certificate: from now on this connection carries decrypted HTTP.
    func startInterceptedHTTP(target: UpstreamTarget) {
        mode = .http
        machine = ForwardProxyMachine(configuration: shared.machineConfiguration(scheme: "https", tunnelTarget: target))
        updateReading()
    }

    private func rawTunnelConnected() {
        if interception?.rawReplied == false {
            interception?.rawReplied = true
            client.send(Array("HTTP/1.1 200 Connection established\r\n\r\n".utf8))
        }
        updateReading()
    }

    private func rawTunnelFailed(_ failure: UpstreamFailure) {
        if interception?.rawReplied == false {
            let r = LocalResponse.error(status: failure.status, message: "upstream \(tunnel?.target.authority ?? ""): \(failure)")
            client.send(ForwardProxyMachine.serialize(r, close: true))
        }
        finishTunnel(error: "upstream: \(failure)")
    }

    /// Ends a raw tunnel (or a failed interception) and records its metadata flow.
    func finishTunnel(error: String?) {
        guard mode != .closed else { return }
        recordTunnelMetadata(error: error)
        upstream?.close()
        upstream = nil
        client.closeAfterFlushing()
        finish()
    }

    func recordTunnelMetadata(error: String?) {
        guard var facts = tunnel else { return }
        if let i = interception {
            facts.serverName = facts.serverName ?? i.serverName
            facts.alpn = facts.alpn.isEmpty ? i.offeredALPN : facts.alpn
            facts.bytesUp = i.bytesUp
            facts.bytesDown = i.bytesDown
        }
        tunnel = nil
        let now = loop.now
        let guess = interception.map {
            $0.sawClientHello ? "tls" : FirstBytes.protocolGuess(client: $0.clientPrefix, server: $0.serverPrefix,
                                                                 serverSpokeFirst: $0.serverSpokeFirst)
        } ?? "unknown"
        let tls: TLSFacts? = redirect != nil && guess != "tls"
            ? nil : TLSFacts(serverName: facts.serverName, alpn: facts.alpn, version: facts.version)
        var flow = Flow(id: 0, source: redirect == nil ? .proxy : .transparent, transport: .tlsMetadata,
                        timings: FlowTimings(started: facts.started, connect: upstream?.connectMilliseconds,
                                             receive: Double(now - facts.startedMonotonic)),
                        client: Endpoint(address: clientAddress.ip, port: clientAddress.port),
                        server: serverEndpoint(facts.target), tls: tls, error: error)
        if let redirect {
            // The original destination is the fact; the SNI (in `tls`) is only the client's claim.
            flow.extras["_originalDestination"] = "\"\(redirect.original)\""
            flow.extras["_protocol"] = "\"\(guess)\""
            if guess == "tls" && facts.serverName == nil { flow.extras["_sni"] = "\"none: the original IP named the leaf\"" }
        } else {
            flow.extras["_connect"] = "\"\(facts.target.authority)\""
        }
        shared.statistics.bytes.wrappingAdd(facts.bytesUp + facts.bytesDown, ordering: .relaxed)
        flow.extras["_bytesUp"] = String(facts.bytesUp)
        flow.extras["_bytesDown"] = String(facts.bytesDown)
        shared.sink.record(flow)
    }

    private func serverEndpoint(_ target: UpstreamTarget) -> Endpoint {
        if let r = upstream?.remote { return Endpoint(address: r.ip, port: r.port) }
        return Endpoint(address: target.host, port: target.port)
    }

    // MARK: - Recording

    func record(_ e: CapturedExchange) {
        shared.statistics.exchanges.wrappingAdd(1, ordering: .relaxed)
        shared.statistics.bytes.wrappingAdd(e.requestBody.totalBytes + e.responseBody.totalBytes, ordering: .relaxed)
        if e.error != nil { shared.statistics.failures.wrappingAdd(1, ordering: .relaxed) }
        shared.sink.record(flow(of: e))
    }

    /// The flow of one exchange (id 0: the sink numbers flows).
    func flow(of e: CapturedExchange) -> Flow {
        let request = HTTPRequest(head: e.requestHead, scheme: e.scheme, fallbackAuthority: e.fallbackAuthority,
                                  body: e.requestBody.bytes, bodyTruncated: e.requestBody.truncated)
        let response = e.responseHead.map {
            HTTPResponse(head: $0, body: e.responseBody.bytes, bodyTruncated: e.responseBody.truncated)
        }
        let freshConnect = upstream.flatMap { $0.servedExchanges == 0 ? $0.connectMilliseconds : nil }
        let timings = FlowTimings(
            started: e.started, connect: freshConnect,
            ssl: upstream.flatMap { $0.servedExchanges == 0 ? $0.handshakeMilliseconds : nil },
            send: e.requestSentMonotonic.map { Double($0 - e.startedMonotonic) },
            wait: e.responseStartedMonotonic.flatMap { r in e.requestSentMonotonic.map { Double(r >= $0 ? r - $0 : 0) } },
            receive: e.finishedMonotonic.flatMap { f in e.responseStartedMonotonic.map { Double(f - $0) } })
        var flow = Flow(id: 0, source: redirect == nil ? .proxy : .transparent, transport: e.scheme == "https" ? .https : .http,
                        request: request, response: response, timings: timings,
                        client: Endpoint(address: clientAddress.ip, port: clientAddress.port),
                        server: e.upstream.map { serverEndpoint($0) },
                        tls: e.scheme == "https" ? TLSFacts(serverName: tunnelServerName, alpn: tunnelALPN, version: tunnelVersion) : nil,
                        error: e.error)
        if let redirect { flow.extras["_originalDestination"] = "\"\(redirect.original)\"" }
        if e.requestBody.truncated { flow.extras["_requestBodySize"] = String(e.requestBody.totalBytes) }
        if e.responseBody.truncated { flow.extras["_responseBodySize"] = String(e.responseBody.totalBytes) }
        if let note = e.replay { flow.extras["_replay"] = Self.jsonString(note) }
        if let stream = e.streamID { flow.extras["_streamId"] = String(stream) }
        return flow
    }

    /// TLS facts of the intercepted tunnel carrying this session's requests.
    var tunnelServerName: String?
    var tunnelALPN: [String] = []
    var tunnelVersion: String?
    /// Set once the first client bytes arrived (a direct TLS connection is recognised by them).
    var sawClientBytes = false

    // MARK: - Life cycle

    func checkTimeouts(now: UInt64) {
        let c = shared.configuration
        if let u = upstream { u.checkConnectTimeout(now: now, limit: c.connectTimeoutMilliseconds) }
        switch mode {
        case .http:
            if machine.isBusy {
                if machine.phase == .response, upstream?.state == .ready,
                   now - max(client.lastActivity, upstream?.stream?.lastActivity ?? 0) > c.responseTimeoutMilliseconds {
                    feed(.upstreamFailed(.timedOut("no response within \(c.responseTimeoutMilliseconds / 1000) s")))
                }
            } else if now - client.lastActivity > c.clientIdleTimeoutMilliseconds {
                close()
            }
        case .rawTunnel:
            let last = max(client.lastActivity, upstream?.stream?.lastActivity ?? 0)
            if now - last > c.tunnelIdleTimeoutMilliseconds { finishTunnel(error: nil) }
        case .intercepting:
            if now - client.lastActivity > c.connectTimeoutMilliseconds * 2 {
                interception?.timedOut(session: self)
            }
        case .http2:
            checkHTTP2Timeouts(now: now)
        case .awaitingFirstBytes:
            if now - client.lastActivity > c.connectTimeoutMilliseconds * 2 { close() }
        case .closed:
            break
        }
    }

    /// Closes both sides now and forgets the session.
    func close() {
        upstream?.close()
        upstream = nil
        client.close()
        finish()
    }

    /// Shutdown: closes without recording anything more (but the messages of a WebSocket connection
    /// read so far).
    func abort() {
        tunnel = nil
        close()
    }

    func finish() {
        guard mode != .closed else { return }
        finishWebSocket(error: nil)
        mode = .closed
        if let u = upstream {
            upstream = nil
            // The origin side of a finished intercepted tunnel stays useful: the next tunnel to the
            // same host skips its TLS handshake (only our handshake with the phone remains).
            if clientTLS != nil, http2 == nil, u.state == .ready, u.servedExchanges > 0, !machine.isBusy, u.isPoolableTLS {
                context.pool.put(u, now: loop.now)
            } else if let translation = http2 as? HTTP2TranslationMachine, translation.upstreamIsIdle, u.state == .ready, u.isPoolableTLS {
                // The HTTP/1.1 origin connection of a translated h2 connection, between requests.
                u.servedExchanges += 1
                context.pool.put(u, now: loop.now)
            } else {
                u.close()
            }
        }
        context.remove(self)
    }
}

/// What is known about one CONNECT tunnel, for its metadata flow.
struct TunnelFacts {
    var target: UpstreamTarget
    var started: Date
    var startedMonotonic: UInt64
    var serverName: String?
    var alpn: [String] = []
    var version: String?
    var bytesUp = 0
    var bytesDown = 0
}

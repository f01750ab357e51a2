import MouchardWire
import MouchardPosix
import MouchardTLS

/// One CONNECT tunnel on its way to being decrypted (or tunneled untouched):
/// 1. the phone's ClientHello is fed to a `TLSServerSession`, which pauses there and gives the SNI
///    (a copy of the raw bytes is kept in case the tunnel must stay opaque);
/// 2. an `--ignore-host` match, or bytes that are not TLS, turn it into a raw tunnel (cleartext
///    HTTP is read as HTTP: `ws://` through a proxy comes this way);
/// 3. otherwise the origin is connected with TLS (verified), a leaf is minted with the origin
///    certificate's names and the phone's handshake resumes;
/// 4. once the phone accepts, the session speaks HTTP inside (`https` flows); if it rejects our
///    certificate (pinning), a tls-metadata flow records the SNI and the error.
/// When the origin cannot be reached, the phone still gets a leaf (from its SNI) and then a 502 inside TLS.
final class TunnelInterception {
    enum State {
        case awaitingHello
        case connectingUpstream
        case handshakingClient
        /// The origin failed: finish the phone's handshake only to tell it so.
        case reportingFailure(UpstreamFailure)
        case done
    }

    /// The CONNECT target; for a TLS connection made straight to a replaying proxy, the client's
    /// SNI once its ClientHello arrives (empty host until then).
    private(set) var target: UpstreamTarget
    var state: State = .awaitingHello
    var server: TLSServerSession?
    var serverName: String?
    var offeredALPN: [String] = []
    /// Raw client bytes kept until we know the tunnel is intercepted.
    private var raw: [UInt8] = []
    var rawReplied = false
    private(set) var bytesUp = 0
    private(set) var bytesDown = 0
    private static let maxHelloBytes = 64 * 1024

    init(target: UpstreamTarget) { self.target = target }

    /// The first bytes each side sent through a raw tunnel (for the protocol guess).
    private(set) var clientPrefix: [UInt8] = []
    private(set) var serverPrefix: [UInt8] = []
    /// The server sent bytes before the client did (a banner: SSH, SMTP...).
    private(set) var serverSpokeFirst = false
    /// A ClientHello was parsed: this tunnel is TLS, whatever came of it.
    private(set) var sawClientHello = false
    static let prefixLength = 16

    func noteClientBytes(_ bytes: [UInt8], session: ProxySession) {
        bytesUp += bytes.count
        if clientPrefix.count < Self.prefixLength { clientPrefix += bytes.prefix(Self.prefixLength - clientPrefix.count) }
    }

    func noteUpstreamBytes(_ bytes: [UInt8]) {
        bytesDown += bytes.count
        if bytesUp == 0 && !bytes.isEmpty { serverSpokeFirst = true }
        if serverPrefix.count < Self.prefixLength { serverPrefix += bytes.prefix(Self.prefixLength - serverPrefix.count) }
    }

    private var tlsTarget: UpstreamTarget { UpstreamTarget(host: target.host, port: target.port, tls: true) }

    /// A TLS client towards the origin of this tunnel (SNI = the phone's SNI, else the CONNECT host).
    func makeUpstreamTLS(for target: UpstreamTarget) throws -> UpstreamTLSClient {
        guard let interceptor = sessionInterceptor else { throw TLSError.handshakeFailed("no interceptor") }
        return try interceptor.makeUpstreamTLS(host: target.host, serverName: serverName)
    }

    weak var owner: ProxySession?
    private var sessionInterceptor: TLSInterceptor? { owner?.shared.interceptor }

    // MARK: Phone side

    func clientBytes(_ bytes: [UInt8], session: ProxySession) {
        owner = session
        guard let interceptor = session.shared.interceptor else { return }
        switch state {
        case .awaitingHello:
            raw.append(contentsOf: bytes)
            if server == nil {
                do {
                    server = try interceptor.makeServerSession()
                } catch {
                    session.finishTunnel(error: "TLS setup failed: \(error)")
                    return
                }
            }
            guard let server else { return }
            let step: TLSStep
            do {
                step = try TLSStep(server.feed(bytes), output: server.pendingOutput())
            } catch {
                // Not TLS (or garbage): keep it opaque, as the phone sent it.
                becomeRaw(session)
                return
            }
            if let hello = step.clientHello {
                gotHello(hello, session: session, interceptor: interceptor)
            } else if raw.count > Self.maxHelloBytes {
                becomeRaw(session)
            }
        case .connectingUpstream:
            raw.append(contentsOf: bytes)  // the phone's next flight waits for our ServerHello
        case .handshakingClient, .reportingFailure:
            feedServer(bytes, session: session)
        case .done:
            break
        }
    }

    private func gotHello(_ hello: TLSClientHello, session: ProxySession, interceptor: TLSInterceptor) {
        serverName = hello.serverName
        offeredALPN = hello.alpn
        if target.host.isEmpty {
            target.host = hello.serverName ?? "localhost"
            session.tunnel?.target = target
        }
        sawClientHello = true
        session.tunnel?.serverName = hello.serverName
        session.tunnel?.alpn = hello.alpn
        if session.shared.isIgnored(target.host) || (hello.serverName.map { session.shared.isIgnored($0) } ?? false) {
            becomeRaw(session)
            return
        }
        raw = []
        state = .connectingUpstream
        if session.shared.configuration.replay != nil, let server {
            // Answering from recordings: the origin is not asked for its names (it may not be
            // reachable); the leaf is minted for the SNI. A request forwarded on a miss still gets
            // a verified TLS connection of its own.
            provideIdentity(server: server, interceptor: interceptor, names: nil, session: session)
            return
        }
        // A phone offering h2 gets it when the origin chooses it: the origin is asked first, on a
        // fresh connection, unless a pooled one shows it declined h2 (pooled links speak HTTP/1.1).
        let wantsHTTP2 = session.shared.offersHTTP2 && hello.alpn.contains("h2")
        if let pooled = session.context.pool.take(tlsTarget, serverName: hello.serverName, offeringHTTP2: wantsHTTP2, for: session),
           pooled.tls?.session.peerNames != nil {
            session.upstream = pooled
            upstreamReady(pooled, session: session)
            return
        }
        let link = UpstreamLink(target: tlsTarget, loop: session.loop, owner: session)
        link.serverName = hello.serverName
        link.offeredHTTP2 = wantsHTTP2
        do {
            link.tls = try interceptor.makeUpstreamTLS(host: target.host, serverName: hello.serverName,
                                                       alpn: wantsHTTP2 ? ["h2", "http/1.1"] : nil)
        } catch {
            upstreamFailed(.tlsFailed("\(error)"), session: session)
            return
        }
        session.upstream = link
        link.start(resolver: session.shared.resolver)
    }

    /// No byte from the phone since the tunnel opened: tunnel it blind so a server that speaks
    /// first is heard (a ClientHello arriving later goes through untouched).
    func clientStayedSilent(session: ProxySession) {
        guard case .awaitingHello = state, raw.isEmpty, server == nil else { return }
        becomeRaw(session)
    }

    private func becomeRaw(_ session: ProxySession) {
        state = .done
        let bytes = raw
        raw = []
        server = nil
        // Cleartext HTTP through CONNECT (a `ws://` WebSocket behind a proxy, most often): read as
        // HTTP, its exchanges `http` flows, unless the host is to be left alone.
        if FirstBytes.classify(client: bytes) == .http, !session.shared.isIgnored(target.host) {
            session.tunnel = nil
            session.startTunneledHTTP(target: UpstreamTarget(host: target.host, port: target.port, tls: false), leftover: bytes)
            return
        }
        session.startRawTunnel(target, leftover: bytes, replied: true)
    }

    private func feedServer(_ bytes: [UInt8], session: ProxySession) {
        guard let server else { return }
        let step: TLSStep
        do {
            step = try TLSStep(server.feed(bytes), output: server.pendingOutput())
        } catch {
            session.client.send(server.pendingOutput())
            clientHandshakeFailed(error, session: session)
            return
        }
        if !step.toPeer.isEmpty { session.client.send(step.toPeer) }
        if step.handshakeDone { clientHandshakeDone(session: session, early: step.plaintext) }
    }

    // MARK: Origin side

    func upstreamReady(_ link: UpstreamLink, session: ProxySession) {
        guard case .connectingUpstream = state, let server, let interceptor = session.shared.interceptor else { return }
        let names = link.tls?.session.peerNames
        // A phone offering h2 gets it: carried as h2 when the origin chose h2 too, translated into
        // HTTP/1.1 requests when it did not (it was offered h2 and declined, or was pooled as HTTP/1.1).
        let translate = session.shared.offersHTTP2 && offeredALPN.contains("h2") && !link.isHTTP2
        server.serveProtocols(link.isHTTP2 ? ["h2"] : translate ? ["h2", "http/1.1"] : ["http/1.1"])
        provideIdentity(server: server, interceptor: interceptor, names: names, session: session)
    }

    func upstreamFailed(_ failure: UpstreamFailure, session: ProxySession) {
        session.upstream = nil
        switch state {
        case .connectingUpstream, .awaitingHello:
            guard let server, let interceptor = session.shared.interceptor else {
                session.finishTunnel(error: "upstream: \(failure)")
                return
            }
            state = .reportingFailure(failure)
            provideIdentity(server: server, interceptor: interceptor, names: nil, session: session)
        default:
            session.finishTunnel(error: "upstream: \(failure)")
        }
    }

    private func provideIdentity(server: TLSServerSession, interceptor: TLSInterceptor, names: CertificateNames?,
                                 session: ProxySession) {
        let identity: TLSIdentity
        do {
            identity = try interceptor.minter.identity(serverName: serverName ?? target.host, upstream: names)
        } catch {
            session.finishTunnel(error: "cannot mint a certificate for \(serverName ?? target.host): \(error)")
            return
        }
        if case .connectingUpstream = state { state = .handshakingClient }
        let events = server.provideIdentity(identity)
        let step: TLSStep
        do {
            step = try TLSStep(events, output: server.pendingOutput())
        } catch {
            session.client.send(server.pendingOutput())
            clientHandshakeFailed(error, session: session)
            return
        }
        if !step.toPeer.isEmpty { session.client.send(step.toPeer) }
        if step.handshakeDone { clientHandshakeDone(session: session, early: step.plaintext) }
        // Bytes of the phone's next flight that arrived while we were connecting upstream.
        if !raw.isEmpty {
            let pending = raw
            raw = []
            feedServer(pending, session: session)
        }
    }

    // MARK: Outcomes

    private func clientHandshakeDone(session: ProxySession, early: [UInt8]) {
        guard let server else { return }
        let failure: UpstreamFailure?
        if case .reportingFailure(let f) = state { failure = f } else { failure = nil }
        state = .done
        session.clientTLS = ClientTLS(session: server)
        session.tunnelServerName = serverName
        session.tunnelALPN = offeredALPN
        session.tunnelVersion = server.protocolVersion
        session.tunnel?.version = server.protocolVersion
        session.shared.statistics.intercepted.wrappingAdd(1, ordering: .relaxed)
        if let failure {
            let text = "upstream \(target.authority): \(failure)"
            session.sendToClient(ForwardProxyMachine.serialize(.error(status: failure.status, message: text), close: true))
            session.finishTunnel(error: text)
            return
        }
        session.tunnel = nil  // decrypted: the https flows tell the story
        if server.alpnProtocol == "h2" {
            session.startInterceptedHTTP2(target: tlsTarget, early: early, translating: session.upstream?.isHTTP2 != true)
            return
        }
        session.startInterceptedHTTP(target: tlsTarget)
        if !early.isEmpty { session.feed(.clientBytes(early)) }
    }

    private func clientHandshakeFailed(_ error: TLSError, session: ProxySession) {
        state = .done
        if case .clientRejectedCertificate(_, let alert) = error {
            session.shared.statistics.rejectedCertificates.wrappingAdd(1, ordering: .relaxed)
            let why = alert.map { " (alert: \($0))" } ?? ""
            session.finishTunnel(error: "client rejected the proxy certificate\(why): certificate pinning or CA not trusted")
        } else {
            session.finishTunnel(error: "client TLS handshake failed: \(error)")
        }
    }

    func clientEnded(session: ProxySession) {
        switch state {
        case .handshakingClient, .reportingFailure:
            guard let server else { fallthrough }
            let events = server.endOfInput()
            do {
                _ = try TLSStep(events, output: [])
                session.finishTunnel(error: "client closed during the TLS handshake")
            } catch {
                clientHandshakeFailed(error, session: session)
            }
        default:
            session.finishTunnel(error: state.isDone ? nil : "client closed before the TLS handshake finished")
        }
    }

    func timedOut(session: ProxySession) {
        session.finishTunnel(error: "TLS interception timed out")
    }
}

extension TunnelInterception.State {
    var isDone: Bool {
        if case .done = self { return true }
        return false
    }
}

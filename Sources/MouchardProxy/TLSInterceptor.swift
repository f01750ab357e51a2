import MouchardFlow
import MouchardTLS
import MouchardWire

/// The TLS half of interception, shared by every loop: the CA and leaf minter (cached leaves over
/// one shared key), one phone-facing server context (ALPN http/1.1) and one origin-facing client
/// context (system trust store, plus `--upstream-ca`, or off with `--insecure-upstream`).
public final class TLSInterceptor: Sendable {
    public let authority: CertificateAuthority
    public let minter: LeafCertificateMinter
    let serverContext: TLSServerContext
    let clientContext: TLSClientContext
    public let settings: InterceptionSettings

    public init(settings: InterceptionSettings) throws {
        self.settings = settings
        var keyLog: TLSKeyLog?
        if let path = settings.keyLogPath { keyLog = try TLSKeyLog(path: path) }
        authority = try CertificateAuthority.loadOrCreate(directory: settings.authorityDirectory)
        minter = try LeafCertificateMinter(authority: authority)
        serverContext = try TLSServerContext(alpn: ["http/1.1"], keyLog: keyLog)
        let verification: UpstreamVerification
        if settings.insecureUpstream {
            verification = .insecure
        } else if let ca = settings.upstreamCAFile {
            verification = .systemPlus(anchorFiles: [ca])
        } else {
            verification = .system
        }
        clientContext = try TLSClientContext(verification: verification, alpn: ["http/1.1"], keyLog: keyLog)
    }

    func makeServerSession() throws -> TLSServerSession {
        try TLSServerSession(context: serverContext)
    }

    /// A TLS client towards an origin; `alpn` replaces the context's offer (`h2, http/1.1` when the
    /// phone offered h2).
    func makeUpstreamTLS(host: String, serverName: String?, alpn: [String]? = nil) throws -> UpstreamTLSClient {
        UpstreamTLSClient(session: try TLSClientSession(context: clientContext, host: host, serverName: serverName, alpn: alpn))
    }
}

/// What one step of a TLS session produced, in the shape the proxy's links consume.
struct TLSStep {
    var toPeer: [UInt8] = []
    var plaintext: [UInt8] = []
    var handshakeDone = false
    var closed = false
    var clientHello: TLSClientHello?

    /// Folds the session's events; throws the session's failure.
    init(_ events: [TLSSessionEvent], output: [UInt8]) throws(TLSError) {
        toPeer = output
        for event in events {
            switch event {
            case .clientHello(let hello): clientHello = hello
            case .handshakeCompleted: handshakeDone = true
            case .plaintext(let bytes): plaintext.append(contentsOf: bytes)
            case .closeNotify: closed = true
            case .failed(let error): throw error
            }
        }
    }
}

/// One side of an intercepted connection's TLS, driven by the proxy: bytes read from the socket go
/// in, ciphertext to send comes out. The origin-facing client of an `UpstreamLink` and the
/// phone-facing server of an intercepted tunnel are the same pipe over different sessions.
final class TLSEndpoint<Session: TLSSession> {
    let session: Session

    init(session: Session) { self.session = session }

    /// What to send first (the ClientHello, on the client side).
    func start() -> [UInt8] { session.pendingOutput() }

    func receive(_ bytes: [UInt8]) throws(TLSError) -> TLSStep {
        let events = session.feed(bytes)
        return try TLSStep(events, output: session.pendingOutput())
    }

    /// Ciphertext for `plaintext` (after a failed write: whatever alert is pending).
    func encrypt(_ plaintext: [UInt8]) -> [UInt8] {
        try? session.write(plaintext)
        return session.pendingOutput()
    }

    func closeNotify() -> [UInt8] {
        session.close()
        return session.pendingOutput()
    }
}

/// The origin-facing TLS client of an `UpstreamLink`.
typealias UpstreamTLSClient = TLSEndpoint<TLSClientSession>
/// The phone-facing TLS server of an intercepted tunnel.
typealias ClientTLS = TLSEndpoint<TLSServerSession>

extension TLSInterceptor {
    /// Answers `http://mouchard.ca/...` with the CA onboarding page and downloads (never forwarded).
    public var onboardingResponder: @Sendable (HTTPRequestHead) -> LocalResponse? {
        let authority = self.authority
        return { head in
            let host: String
            let path: String
            if let parts = URLParts(absolute: head.target) {
                host = parts.authority
                path = parts.pathAndQuery
            } else {
                host = head.headers["Host"] ?? ""
                path = head.target
            }
            guard OnboardingPage.isOnboardingHost(host) else { return nil }
            let r = OnboardingPage.response(for: path, authority: authority)
            return LocalResponse(status: r.status, reason: r.reason, contentType: r.contentType, body: r.body,
                                 extraHeaders: HTTPHeaders(r.headers.map { HTTPField(name: $0.0, value: $0.1) }))
        }
    }
}

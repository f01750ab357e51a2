import MouchardWire

/// One phone-facing TLS connection, sans-I/O: feed it the ciphertext read from the socket, send
/// what `pendingOutput()` returns. The handshake pauses at the ClientHello (`.clientHello` event
/// with the SNI) until `provideIdentity(_:)` supplies the leaf — so the proxy may connect
/// upstream first and mint a leaf with the origin's names. Use from one thread at a time.
///
///     let session = try TLSServerSession(context: serverContext)
///     for event in session.feed(bytesFromPhone) {
///         switch event {
///         case .clientHello(let hello): // hello.serverName → mint → then:
///             handle(session.provideIdentity(try minter.identity(serverName: hello.serverName)))
///         case .handshakeCompleted: ...
///         case .plaintext(let bytes): ...  // HTTP request bytes
///         case .closeNotify: ...
///         case .failed(let error): ...      // .clientRejectedCertificate → pinning
///         }
///     }
///     socket.send(session.pendingOutput())
public final class TLSServerSession: TLSSession, @unchecked Sendable {
    public let context: TLSServerContext

    /// A session for one accepted connection. `identity` may be given now (when the host is
    /// already known, e.g. from CONNECT) to skip the pause at the ClientHello.
    public init(context: TLSServerContext, identity: TLSIdentity? = nil) throws(TLSError) {
        self.context = context
        super.init(engine: try TLSEngine(context: context.pointer, role: .server))
        engine.identity = identity
    }

    /// Supplies the certificate for a paused handshake and resumes it.
    public func provideIdentity(_ identity: TLSIdentity) -> [TLSSessionEvent] {
        engine.identity = identity
        return engine.advance()
    }

    /// The protocols this connection may choose in ALPN, in preference order, instead of the
    /// context's (call before the handshake resumes: the choice is made with the ServerHello).
    public func serveProtocols(_ names: [String]) {
        engine.servedProtocols = ALPNPreference(names)
    }

    /// The client closed the TCP connection. During the handshake after our certificate was
    /// sent, this is reported as `.clientRejectedCertificate(alert: nil)` (pinning clients often
    /// just hang up).
    public override func endOfInput() -> [TLSSessionEvent] { engine.endOfInput() }

    /// The ClientHello (SNI, ALPN offer) once received.
    public var clientHello: TLSClientHello? { engine.clientHello }
    public var serverName: String? { engine.clientHello?.serverName }
    /// True while paused at the ClientHello waiting for `provideIdentity`.
    public var isWaitingForIdentity: Bool { engine.waitingForIdentity && engine.identity == nil }
}

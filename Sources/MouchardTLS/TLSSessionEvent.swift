import MouchardWire

/// What a TLS session reports after bytes are fed in (sans-I/O: the caller moves the bytes).
/// After any call, send `pendingOutput()` to the peer — even after `.failed` (it may hold an alert).
public enum TLSSessionEvent: Sendable, Equatable {
    /// Server side only: the ClientHello arrived and the handshake is paused until
    /// `provideIdentity(_:)` is called (the proxy may first connect upstream to learn the names).
    case clientHello(TLSClientHello)
    /// The handshake finished; version, ALPN and peer certificate are now known.
    case handshakeCompleted
    /// Decrypted application data (all records decoded by this call, concatenated).
    case plaintext([UInt8])
    /// The peer sent close_notify: it will send no more data.
    case closeNotify
    /// Fatal: the session is dead; flush `pendingOutput()` (an alert) and close the socket.
    case failed(TLSError)
}

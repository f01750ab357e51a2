/// What both TLS session kinds share (sans-I/O): ciphertext in through `feed`, plaintext in
/// through `write`, ciphertext out through `pendingOutput()`. Not used directly: see
/// `TLSServerSession` (phone side) and `TLSClientSession` (origin side). One thread at a time.
public class TLSSession: @unchecked Sendable {
    let engine: TLSEngine

    init(engine: TLSEngine) { self.engine = engine }

    /// Ciphertext from the peer in; events out.
    public final func feed(_ ciphertext: [UInt8]) -> [TLSSessionEvent] {
        ciphertext.withUnsafeBytes { engine.feed($0) }
    }

    public final func feed(_ ciphertext: UnsafeRawBufferPointer) -> [TLSSessionEvent] { engine.feed(ciphertext) }

    /// The peer closed the TCP connection (read returned 0).
    public func endOfInput() -> [TLSSessionEvent] { engine.endOfInput() }

    /// Encrypts application data (queued until the handshake completes).
    public final func write(_ plaintext: [UInt8]) throws(TLSError) { try engine.write(plaintext) }
    public final func write(_ plaintext: UnsafeRawBufferPointer) throws(TLSError) { try engine.write(plaintext) }

    /// Ciphertext to send to the peer (handshake records, data, alerts); empties the buffer.
    public final func pendingOutput() -> [UInt8] { engine.pendingOutput() }
    public final var pendingOutputCount: Int { engine.pendingOutputCount }

    /// Queues close_notify; send `pendingOutput()` afterwards, then close the socket.
    public final func close() { engine.close() }

    public final var isHandshakeComplete: Bool { engine.handshakeComplete }
    /// "TLSv1.3" or "TLSv1.2" after the handshake.
    public final var protocolVersion: String? { engine.protocolVersion }
    /// The negotiated ALPN protocol ("http/1.1"), nil if none.
    public final var alpnProtocol: String? { engine.alpn }
    public final var cipherSuite: String? { engine.cipherSuite }
    /// Whether the handshake resumed an earlier session (no certificate, no signature).
    public final var isResumed: Bool { engine.isResumed }
    public final var closeNotifyReceived: Bool { engine.closeNotifyReceived }
    /// Whether any application data arrived.
    public final var hasReceivedApplicationData: Bool { engine.receivedApplicationData }
    /// The fatal error, once the session has failed.
    public final var failure: TLSError? { engine.failure }
}

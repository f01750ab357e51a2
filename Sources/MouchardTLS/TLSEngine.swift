import MouchardWire
import COpenSSL
import CMouchardShims

/// The shared core of `TLSServerSession` and `TLSClientSession`: one OpenSSL `SSL` between two
/// memory BIOs (ciphertext in, ciphertext out), driving the handshake and record layer and
/// turning OpenSSL's return codes into `TLSSessionEvent`s. Used from one thread at a time.
final class TLSEngine {
    enum Role { case server, client }

    let ssl: OpaquePointer
    let role: Role
    private var input: OpaquePointer
    private var output: OpaquePointer
    /// A drained memory BIO whose buffer grew past this is replaced (they never shrink): keeps
    /// thousands of idle keep-alive connections small after one large transfer.
    static let bufferReclaimThreshold = 64 * 1024

    private(set) var handshakeComplete = false
    private(set) var failure: TLSError?
    private(set) var closeNotifyReceived = false
    private(set) var receivedApplicationData = false
    /// Plaintext written before the handshake finished, sent as soon as it does.
    private var queued: [UInt8] = []

    // Server side: filled by the ClientHello callback.
    var clientHello: TLSClientHello?
    var identity: TLSIdentity?
    var waitingForIdentity = false
    private var announcedClientHello = false
    var certificateSent = false
    /// Server: the protocols this connection may choose in ALPN, replacing the context's list
    /// (the proxy offers `h2` only when the origin chose it).
    var servedProtocols: ALPNPreference?
    // Client side: the host being verified (for error messages).
    var verifiedHost: String?
    var verifies = false
    /// Client: the key its sessions are cached under (nil: no resumption).
    var sessionCacheKey: String?
    /// The last alert the peer sent (level << 8 | description), from the info callback.
    var lastReceivedAlert: Int32?

    init(context: OpaquePointer, role: Role) throws(TLSError) {
        guard let ssl = SSL_new(context) else { throw openSSLFailure("SSL_new") }
        let input: OpaquePointer, output: OpaquePointer
        do {
            input = try MemoryBIO.make()
            output = try MemoryBIO.make()
        } catch {
            SSL_free(ssl)
            throw error
        }
        SSL_set_bio(ssl, input, output)  // the SSL now owns both BIOs
        self.ssl = ssl
        self.input = input
        self.output = output
        self.role = role
        if role == .server { SSL_set_accept_state(ssl) } else { SSL_set_connect_state(ssl) }
        SSL_set_ex_data(ssl, TLSCallbacks.engineIndex, Unmanaged.passUnretained(self).toOpaque())
    }

    deinit { SSL_free(ssl) }

    // MARK: bytes in

    func feed(_ ciphertext: UnsafeRawBufferPointer) -> [TLSSessionEvent] {
        if failure == nil { MemoryBIO.append(ciphertext, to: input) }
        let events = advance()
        if BIO_ctrl_pending(input) == 0, mouchard_BIO_mem_capacity(input) > Self.bufferReclaimThreshold,
           let fresh = try? MemoryBIO.make() {
            SSL_set0_rbio(ssl, fresh)  // frees the old one
            input = fresh
        }
        return events
    }

    /// Runs the handshake as far as the buffered input allows, then decrypts what it can.
    func advance() -> [TLSSessionEvent] {
        var events: [TLSSessionEvent] = []
        if let failure { return [.failed(failure)] }
        if !handshakeComplete {
            ERR_clear_error()
            let result = SSL_do_handshake(ssl)
            if result == 1 {
                handshakeComplete = true
                events.append(.handshakeCompleted)
                if !queued.isEmpty {
                    let bytes = queued
                    queued = []
                    if let error = encrypt(bytes) { return events + [fail(error)] }
                }
            } else {
                switch SSL_get_error(ssl, result) {
                case SSL_ERROR_WANT_READ, SSL_ERROR_WANT_WRITE:
                    return events
                case SSL_ERROR_WANT_CLIENT_HELLO_CB:
                    if waitingForIdentity, !announcedClientHello, let hello = clientHello {
                        announcedClientHello = true  // once, even if more bytes arrive before the leaf
                        events.append(.clientHello(hello))
                    }
                    return events
                case let code:
                    return [fail(handshakeError(code))]
                }
            }
        }
        decrypt(into: &events)
        return events
    }

    /// The transport reached EOF (the peer closed its side).
    func endOfInput() -> [TLSSessionEvent] {
        if let failure { return [.failed(failure)] }
        guard handshakeComplete else {
            if role == .server, certificateSent {
                return [fail(.clientRejectedCertificate(serverName: clientHello?.serverName, alert: nil))]
            }
            return [fail(.closedDuringHandshake)]
        }
        return []
    }

    private func decrypt(into events: inout [TLSSessionEvent]) {
        var plaintext: [UInt8] = []
        var ended: TLSSessionEvent?
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 16_384) { buffer in
            while true {
                ERR_clear_error()
                let n = SSL_read(ssl, buffer.baseAddress, Int32(buffer.count))
                if n > 0 {
                    plaintext.append(contentsOf: UnsafeBufferPointer(rebasing: buffer[0..<Int(n)]))
                    continue
                }
                switch SSL_get_error(ssl, n) {
                case SSL_ERROR_WANT_READ, SSL_ERROR_WANT_WRITE:
                    break
                case SSL_ERROR_ZERO_RETURN:
                    if !closeNotifyReceived {
                        closeNotifyReceived = true
                        ended = .closeNotify
                    }
                default:
                    let detail = openSSLErrorText()
                    if let alert = lastReceivedAlert, alert & 0xFF != 0 {
                        ended = fail(.peerAlert(Self.alertText(alert)))
                    } else {
                        ended = fail(.protocolError(detail.isEmpty ? "SSL_read failed" : detail))
                    }
                }
                return
            }
        }
        if !plaintext.isEmpty {
            receivedApplicationData = true
            events.append(.plaintext(plaintext))
        }
        if let ended { events.append(ended) }
    }

    // MARK: bytes out

    func write(_ plaintext: UnsafeRawBufferPointer) throws(TLSError) {
        if let failure { throw failure }
        guard handshakeComplete else {
            queued.append(contentsOf: plaintext)
            return
        }
        if let error = encrypt(plaintext) {
            _ = fail(error)
            throw error
        }
    }

    func write(_ plaintext: [UInt8]) throws(TLSError) {
        let error: TLSError? = plaintext.withUnsafeBytes { bytes -> TLSError? in
            do throws(TLSError) { try write(bytes) } catch { return error }
            return nil
        }
        if let error { throw error }
    }

    private func encrypt(_ plaintext: [UInt8]) -> TLSError? {
        plaintext.withUnsafeBytes { encrypt($0) }
    }

    private func encrypt(_ plaintext: UnsafeRawBufferPointer) -> TLSError? {
        var offset = 0
        while offset < plaintext.count, let base = plaintext.baseAddress {
            ERR_clear_error()
            let n = SSL_write(ssl, base + offset, Int32(min(plaintext.count - offset, 1 << 30)))
            guard n > 0 else { return .protocolError("SSL_write failed: \(openSSLErrorText())") }
            offset += Int(n)
        }
        return nil
    }

    func pendingOutput() -> [UInt8] {
        let bytes = MemoryBIO.drain(output)
        if mouchard_BIO_mem_capacity(output) > Self.bufferReclaimThreshold, let fresh = try? MemoryBIO.make() {
            SSL_set0_wbio(ssl, fresh)  // frees the old one
            output = fresh
        }
        return bytes
    }

    var pendingOutputCount: Int { Int(BIO_ctrl_pending(output)) }

    /// Bytes allocated by the two memory BIOs (for tests of the reclaim rule).
    var bufferCapacities: (input: Int, output: Int) {
        (mouchard_BIO_mem_capacity(input), mouchard_BIO_mem_capacity(output))
    }

    /// Queues close_notify (after the handshake); send `pendingOutput()` then close the socket.
    func close() {
        guard handshakeComplete, failure == nil else { return }
        ERR_clear_error()
        _ = SSL_shutdown(ssl)
    }

    // MARK: state

    var protocolVersion: String? {
        guard handshakeComplete, let version = SSL_get_version(ssl) else { return nil }
        return String(cString: version)
    }

    var alpn: String? {
        var data: UnsafePointer<UInt8>?
        var length: UInt32 = 0
        SSL_get0_alpn_selected(ssl, &data, &length)
        guard let data, length > 0 else { return nil }
        return String(decoding: UnsafeBufferPointer(start: data, count: Int(length)), as: UTF8.self)
    }

    var cipherSuite: String? {
        guard let cipher = SSL_get_current_cipher(ssl), let name = SSL_CIPHER_get_name(cipher) else { return nil }
        return String(cString: name)
    }

    var isResumed: Bool { SSL_session_reused(ssl) == 1 }

    // MARK: errors

    private func fail(_ error: TLSError) -> TLSSessionEvent {
        if failure == nil { failure = error }
        return .failed(failure ?? error)
    }

    /// Alert descriptions that mean "I do not accept your certificate".
    static let certificateRejectionAlerts: Set<Int32> = [42, 43, 44, 45, 46, 48]

    private func handshakeError(_ code: Int32) -> TLSError {
        let detail = openSSLErrorText()
        if let alert = lastReceivedAlert, alert & 0xFF != 0 {
            if role == .server, Self.certificateRejectionAlerts.contains(alert & 0xFF) {
                return .clientRejectedCertificate(serverName: clientHello?.serverName, alert: Self.alertText(alert))
            }
            return .peerAlert(Self.alertText(alert))
        }
        if role == .client, verifies {
            let result = SSL_get_verify_result(ssl)
            if result != X509_V_OK {
                let reason = X509_verify_cert_error_string(result).map { String(cString: $0) } ?? "error \(result)"
                return .upstreamCertificateUntrusted(host: verifiedHost ?? "?", reason: reason)
            }
        }
        if code == SSL_ERROR_ZERO_RETURN { return .closedDuringHandshake }
        return .handshakeFailed(detail.isEmpty ? "SSL error \(code)" : detail)
    }

    static func alertText(_ alert: Int32) -> String {
        SSL_alert_desc_string_long(alert).map { String(cString: $0) } ?? "alert \(alert & 0xFF)"
    }

    /// The engine attached to an `SSL` (for callbacks).
    static func from(_ ssl: OpaquePointer?) -> TLSEngine? {
        guard let ssl, let raw = SSL_get_ex_data(ssl, TLSCallbacks.engineIndex) else { return nil }
        return Unmanaged<TLSEngine>.fromOpaque(raw).takeUnretainedValue()
    }
}

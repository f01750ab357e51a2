import COpenSSL
import CMouchardShims

/// The shared OpenSSL `SSL_CTX` for the phone-facing side (we are the server). Create ONE per
/// process and share it across event loops; each connection gets a `TLSServerSession` from it.
/// TLS 1.2–1.3, ALPN limited to what the proxy serves (`http/1.1`), session tickets on so a
/// phone that reconnects skips the certificate signature.
public final class TLSServerContext: @unchecked Sendable {
    let pointer: OpaquePointer
    private let alpn: ALPNPreference
    private let keyLog: TLSKeyLog?

    /// - Parameters:
    ///   - alpn: protocols we can serve, in preference order (the client's other offers are ignored).
    ///   - keyLog: where to write session secrets (`--ssl-keylog`), or nil.
    public init(alpn: [String] = ["http/1.1"], keyLog: TLSKeyLog? = nil) throws(TLSError) {
        guard let context = SSL_CTX_new(TLS_server_method()) else { throw openSSLFailure("SSL_CTX_new(server)") }
        self.pointer = context
        self.alpn = ALPNPreference(alpn)
        self.keyLog = keyLog
        TLSContextSetup.common(context, keyLog: keyLog)
        SSL_CTX_set_client_hello_cb(context, TLSCallbacks.clientHello, nil)
        SSL_CTX_set_alpn_select_cb(context, TLSCallbacks.alpnSelect, Unmanaged.passUnretained(self.alpn).toOpaque())
        _ = SSL_CTX_set_num_tickets(context, 1)
        // AES-128-GCM with SHA-256 first: as safe for this use, and its key schedule hashes with
        // SHA-256, which CPUs accelerate (SHA-NI) where SHA-384 is done in software. Phones offer it
        // first anyway; a client that prefers AES-256 (OpenSSL's default order) costs more per
        // handshake without this.
        _ = SSL_CTX_set_ciphersuites(context, "TLS_AES_128_GCM_SHA256:TLS_CHACHA20_POLY1305_SHA256:TLS_AES_256_GCM_SHA384")
        mouchard_SSL_CTX_prefer_server_ciphers(context)
    }

    deinit { SSL_CTX_free(pointer) }
}

/// Settings both contexts share.
enum TLSContextSetup {
    static func common(_ context: OpaquePointer, keyLog: TLSKeyLog?) {
        _ = mouchard_SSL_CTX_set_min_proto_version(context, TLS1_2_VERSION)
        // Free the 34 KB record buffers of idle connections (thousands of idle keep-alives).
        _ = mouchard_SSL_CTX_set_mode(context, Int(SSL_MODE_RELEASE_BUFFERS))
        mouchard_SSL_CTX_disable_renegotiation_and_compression(context)
        SSL_CTX_set_info_callback(context, TLSCallbacks.info)
        if let keyLog {
            SSL_CTX_set_ex_data(context, TLSCallbacks.keyLogIndex, Unmanaged.passUnretained(keyLog).toOpaque())
            SSL_CTX_set_keylog_callback(context, TLSCallbacks.keyLog)
        }
    }
}

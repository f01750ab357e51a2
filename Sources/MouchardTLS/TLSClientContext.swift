import COpenSSL
import CMouchardShims

/// How the proxy checks origin certificates.
public enum UpstreamVerification: Sendable, Equatable {
    /// The system trust store (the default, and the safe one).
    case system
    /// The system store plus extra trust anchors from PEM files (`--upstream-ca FILE`).
    case systemPlus(anchorFiles: [String])
    /// Only the given anchors, not the system store (tests).
    case only(anchorFiles: [String])
    /// No verification at all (`--insecure-upstream`): say so loudly where it is turned on.
    case insecure
}

/// The shared OpenSSL `SSL_CTX` for the origin-facing side (we are the client). Create ONE per
/// process and share it across event loops; each upstream connection gets a `TLSClientSession`.
public final class TLSClientContext: @unchecked Sendable {
    let pointer: OpaquePointer
    public let verification: UpstreamVerification
    private let keyLog: TLSKeyLog?
    /// Upstream session resumption cache (nil when turned off).
    let sessionCache: TLSSessionCache?

    /// - Parameters:
    ///   - verification: how origin certificates are checked.
    ///   - alpn: protocols offered to origins (we speak HTTP/1.1 upstream).
    ///   - keyLog: where to write session secrets (`--ssl-keylog`), or nil.
    ///   - resumableOrigins: how many origins' session tickets to keep for resumption (0: none).
    public init(verification: UpstreamVerification = .system, alpn: [String] = ["http/1.1"],
                keyLog: TLSKeyLog? = nil, resumableOrigins: Int = 4096) throws(TLSError) {
        guard let context = SSL_CTX_new(TLS_client_method()) else { throw openSSLFailure("SSL_CTX_new(client)") }
        self.pointer = context
        self.verification = verification
        self.keyLog = keyLog
        self.sessionCache = resumableOrigins > 0 ? TLSSessionCache(capacity: resumableOrigins) : nil
        TLSContextSetup.common(context, keyLog: keyLog)
        if let sessionCache {
            _ = mouchard_SSL_CTX_set_session_cache_mode(context, Int(SSL_SESS_CACHE_CLIENT | SSL_SESS_CACHE_NO_INTERNAL_STORE))
            SSL_CTX_set_ex_data(context, TLSCallbacks.sessionCacheIndex, Unmanaged.passUnretained(sessionCache).toOpaque())
            SSL_CTX_sess_set_new_cb(context, TLSCallbacks.newSession)
        }
        var anchors: [String] = []
        switch verification {
        case .system:
            guard SSL_CTX_set_default_verify_paths(context) == 1 else { throw openSSLFailure("loading the system trust store") }
        case .systemPlus(let files):
            guard SSL_CTX_set_default_verify_paths(context) == 1 else { throw openSSLFailure("loading the system trust store") }
            anchors = files
        case .only(let files):
            anchors = files
        case .insecure:
            break
        }
        for file in anchors {
            guard SSL_CTX_load_verify_locations(context, file, nil) == 1 else {
                throw .file(path: file, reason: "cannot load as trust anchors: \(openSSLErrorText())")
            }
        }
        if !anchors.isEmpty {
            // Like curl --cacert: an anchor may be an intermediate or the origin's own certificate.
            X509_STORE_set_flags(SSL_CTX_get_cert_store(context), UInt(X509_V_FLAG_PARTIAL_CHAIN))
        }
        SSL_CTX_set_verify(context, verification == .insecure ? SSL_VERIFY_NONE : SSL_VERIFY_PEER, nil)
        let wire = alpnWireFormat(alpn)
        if !wire.isEmpty {
            // Note: returns 0 on success.
            guard SSL_CTX_set_alpn_protos(context, wire, UInt32(wire.count)) == 0 else { throw openSSLFailure("SSL_CTX_set_alpn_protos") }
        }
    }

    deinit { SSL_CTX_free(pointer) }
}

/// ALPN names in wire format (length-prefixed), as OpenSSL wants them.
func alpnWireFormat(_ protocols: [String]) -> [UInt8] {
    var wire: [UInt8] = []
    for name in protocols {
        let bytes = Array(name.utf8)
        guard !bytes.isEmpty, bytes.count < 256 else { continue }
        wire.append(UInt8(bytes.count))
        wire += bytes
    }
    return wire
}

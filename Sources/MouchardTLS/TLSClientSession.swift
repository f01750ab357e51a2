import COpenSSL
import CMouchardShims

/// One origin-facing TLS connection, sans-I/O. Creating it starts the handshake: send
/// `pendingOutput()` (the ClientHello) to the origin, feed back what it answers. Sends SNI for
/// DNS names, verifies the chain and the name (or IP) per the context's verification mode,
/// and exposes the origin certificate's names so the phone-facing leaf can copy them.
/// Use from one thread at a time.
public final class TLSClientSession: TLSSession, @unchecked Sendable {
    public let context: TLSClientContext
    /// The host we connect to (DNS name or IP literal), as given.
    public let host: String
    /// The name sent as SNI and checked against the certificate (nil: none, the IP is checked).
    public let serverName: String?

    /// - Parameters:
    ///   - host: the CONNECT target: a DNS name (sent as SNI and checked) or an IP literal.
    ///   - serverName: the phone's SNI, when it differs from `host` (typically: an app connecting
    ///     to an IP with a name in its ClientHello). Sent upstream and checked instead of `host`,
    ///     as the app itself would have checked it. Ignored when it is not a valid DNS name.
    ///   - alpn: the protocols offered to this origin, replacing the context's list (nil: the context's).
    public init(context: TLSClientContext, host: String, serverName: String? = nil, alpn: [String]? = nil) throws(TLSError) {
        self.context = context
        self.host = host
        let dnsName: (String?) -> String? = { name in
            guard let lowered = name?.lowercased(), IPAddressText.parse(lowered) == nil,
                  LeafNames.isValidDNSName(lowered.hasSuffix(".") ? String(lowered.dropLast()) : lowered) else { return nil }
            return lowered
        }
        let sni = dnsName(serverName) ?? dnsName(host)
        self.serverName = sni
        super.init(engine: try TLSEngine(context: context.pointer, role: .client))
        let ssl = engine.ssl
        if let sni {
            guard mouchard_SSL_set_tlsext_host_name(ssl, sni) == 1 else { throw openSSLFailure("setting SNI") }
        }
        if context.verification != .insecure {
            engine.verifies = true
            if let sni {
                engine.verifiedHost = sni
                SSL_set_hostflags(ssl, UInt32(X509_CHECK_FLAG_NO_PARTIAL_WILDCARDS))
                guard SSL_set1_host(ssl, sni) == 1 else { throw .invalidName(sni) }
            } else {
                var literal = host
                if literal.hasPrefix("["), literal.hasSuffix("]") { literal = String(literal.dropFirst().dropLast()) }
                engine.verifiedHost = literal
                guard IPAddressText.parse(literal) != nil,
                      X509_VERIFY_PARAM_set1_ip_asc(SSL_get0_param(ssl), literal) == 1 else { throw .invalidName(host) }
            }
        }
        if let alpn {
            let wire = alpnWireFormat(alpn)
            // Note: returns 0 on success.
            guard SSL_set_alpn_protos(ssl, wire, UInt32(wire.count)) == 0 else { throw openSSLFailure("SSL_set_alpn_protos") }
        }
        if let cache = context.sessionCache {
            let key = host.lowercased() + "|" + (sni ?? "")
            engine.sessionCacheKey = key
            if let entry = cache.lookup(key) {
                _ = SSL_set_session(ssl, entry.session)  // takes its own reference
            }
        }
        _ = engine.advance()  // writes the ClientHello
    }

    /// The origin's leaf certificate (after the handshake; also in insecure mode).
    public var peerCertificate: Certificate? {
        guard let x509 = SSL_get1_peer_certificate(engine.ssl) else { return nil }
        return Certificate(taking: x509)
    }

    /// The origin certificate's SAN DNS names, IPs and CN, to mint the phone-facing leaf.
    public var peerNames: CertificateNames? { peerCertificate?.names }

    /// Why the origin's chain would fail verification (nil when it verifies). Meaningful in
    /// insecure mode too, where it is not enforced.
    public var verificationProblem: String? {
        let result = SSL_get_verify_result(engine.ssl)
        guard result != X509_V_OK else { return nil }
        return X509_verify_cert_error_string(result).map { String(cString: $0) } ?? "error \(result)"
    }
}

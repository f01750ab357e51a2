import COpenSSL

/// Why a TLS, certificate or CA operation failed. Each case has a stable `code` (for flows,
/// logs and tests) and a one-line `description` saying what happened and where.
public enum TLSError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The client (the phone) refused the certificate we minted: it sent a certificate alert
    /// (`alert`, e.g. "unknown CA") or closed the connection right after our ServerHello (`alert`
    /// nil). Usually certificate pinning, or our CA not installed/trusted on the device.
    case clientRejectedCertificate(serverName: String?, alert: String?)
    /// The origin's certificate failed verification (untrusted issuer, wrong name, expired...).
    case upstreamCertificateUntrusted(host: String, reason: String)
    /// The peer sent a fatal alert unrelated to certificates.
    case peerAlert(String)
    /// The handshake failed for a protocol reason (detail from OpenSSL's error queue).
    case handshakeFailed(String)
    /// The transport ended before the handshake finished.
    case closedDuringHandshake
    /// A record could not be decrypted or parsed after the handshake (detail from OpenSSL).
    case protocolError(String)
    /// A host name or IP address that cannot go into a certificate.
    case invalidName(String)
    /// An OpenSSL call that should not fail did (`operation`, OpenSSL's error text).
    case openSSL(operation: String, detail: String)
    /// A CA or key file problem: `path` and what is wrong with it.
    case file(path: String, reason: String)

    /// A short stable identifier of the error kind.
    public var code: String {
        switch self {
        case .clientRejectedCertificate: return "client-rejected-certificate"
        case .upstreamCertificateUntrusted: return "upstream-certificate-untrusted"
        case .peerAlert: return "peer-alert"
        case .handshakeFailed: return "handshake-failed"
        case .closedDuringHandshake: return "closed-during-handshake"
        case .protocolError: return "protocol-error"
        case .invalidName: return "invalid-name"
        case .openSSL: return "openssl"
        case .file: return "file"
        }
    }

    public var description: String {
        switch self {
        case .clientRejectedCertificate(let sni, let alert):
            let what = alert.map { "sent alert '\($0)'" } ?? "closed the connection after our ServerHello"
            return "client rejected certificate (pinning?) for \(sni ?? "<no SNI>"): it \(what)"
        case .upstreamCertificateUntrusted(let host, let reason):
            return "upstream certificate for \(host) not trusted: \(reason)"
        case .peerAlert(let alert): return "peer sent fatal alert '\(alert)'"
        case .handshakeFailed(let detail): return "TLS handshake failed: \(detail)"
        case .closedDuringHandshake: return "connection closed during the TLS handshake"
        case .protocolError(let detail): return "TLS protocol error: \(detail)"
        case .invalidName(let name): return "invalid certificate name '\(name)'"
        case .openSSL(let op, let detail): return "\(op) failed: \(detail)"
        case .file(let path, let reason): return "\(path): \(reason)"
        }
    }
}

/// Drains OpenSSL's thread-local error queue into one line ("" when empty).
func openSSLErrorText() -> String {
    var parts: [String] = []
    while true {
        let code = ERR_get_error()
        if code == 0 { break }
        var buffer = [CChar](repeating: 0, count: 256)
        ERR_error_string_n(code, &buffer, buffer.count)
        if parts.count < 4 { parts.append(cString(buffer)) }
    }
    return parts.joined(separator: "; ")
}

/// A `TLSError.openSSL` for `operation`, with the drained error queue.
func openSSLFailure(_ operation: String) -> TLSError {
    let detail = openSSLErrorText()
    return .openSSL(operation: operation, detail: detail.isEmpty ? "no detail" : detail)
}

/// The text of a NUL-terminated C buffer (up to its first NUL).
func cString(_ buffer: [CChar]) -> String {
    let bytes = buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }
    return String(decoding: bytes, as: UTF8.self)
}

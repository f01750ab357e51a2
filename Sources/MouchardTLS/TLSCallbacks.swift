import COpenSSL
import MouchardWire
import CMouchardShims

/// The C callbacks OpenSSL calls during handshakes. They capture nothing: they find their
/// Swift object through ex_data slots on the `SSL` (the engine) and `SSL_CTX` (the key log).
enum TLSCallbacks {
    static let engineIndex: Int32 = mouchard_SSL_get_ex_new_index()
    static let keyLogIndex: Int32 = mouchard_SSL_CTX_get_ex_new_index()
    static let sessionCacheIndex: Int32 = mouchard_SSL_CTX_get_ex_new_index()

    /// Client: keeps a new session (ticket) from the origin for the next connection to it. We
    /// keep a copy: OpenSSL marks the original unresumable when its connection is freed without
    /// close_notify, which is how most upstream connections end.
    static let newSession: @convention(c) (OpaquePointer?, OpaquePointer?) -> Int32 = { ssl, session in
        guard let ssl, let session, let engine = TLSEngine.from(ssl), let key = engine.sessionCacheKey,
              let context = SSL_get_SSL_CTX(ssl), let raw = SSL_CTX_get_ex_data(context, sessionCacheIndex),
              let copy = SSL_SESSION_dup(session) else { return 0 }
        Unmanaged<TLSSessionCache>.fromOpaque(raw).takeUnretainedValue().store(TLSSessionCache.Entry(taking: copy), for: key)
        return 0
    }

    /// Records alerts the peer sends (to tell "pinning" from other failures).
    static let info: @convention(c) (OpaquePointer?, Int32, Int32) -> Void = { ssl, where_, value in
        guard where_ & SSL_CB_READ_ALERT == SSL_CB_READ_ALERT, let engine = TLSEngine.from(ssl) else { return }
        if value & 0xFF != 0 || engine.lastReceivedAlert == nil { engine.lastReceivedAlert = value }
    }

    /// Writes one NSS key log line through the context's `TLSKeyLog`.
    static let keyLog: @convention(c) (OpaquePointer?, UnsafePointer<CChar>?) -> Void = { ssl, line in
        guard let ssl, let line, let context = SSL_get_SSL_CTX(ssl),
              let raw = SSL_CTX_get_ex_data(context, keyLogIndex) else { return }
        let log = Unmanaged<TLSKeyLog>.fromOpaque(raw).takeUnretainedValue()
        let length = strlen(line)
        line.withMemoryRebound(to: UInt8.self, capacity: length) { log.append(line: UnsafeBufferPointer(start: $0, count: length)) }
    }

    /// Server: reads SNI and ALPN from the ClientHello; pauses the handshake (RETRY) until the
    /// session has an identity, then installs its certificate and key.
    static let clientHello: @convention(c) (OpaquePointer?, UnsafeMutablePointer<Int32>?, UnsafeMutableRawPointer?) -> Int32 = { ssl, alert, _ in
        guard let ssl, let engine = TLSEngine.from(ssl) else { return SSL_CLIENT_HELLO_ERROR }
        if engine.clientHello == nil {
            // OpenSSL hands us the raw extension bodies; MouchardWire's ClientHello parser reads them.
            func extensionBody(_ type: Int32) -> UnsafeBufferPointer<UInt8>? {
                var data: UnsafePointer<UInt8>?
                var length = 0
                guard SSL_client_hello_get0_ext(ssl, UInt32(type), &data, &length) == 1, let data else { return nil }
                return UnsafeBufferPointer(start: data, count: length)
            }
            // Only a printable ASCII host name can name a certificate; anything else is treated as absent.
            let serverName = extensionBody(TLSEXT_TYPE_server_name)
                .flatMap { TLSClientHello.serverName(extensionData: $0) }
                .flatMap { name in name.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F }) && name.utf8.count <= 255 ? name : nil }
            let protocols = extensionBody(TLSEXT_TYPE_application_layer_protocol_negotiation)
                .map { TLSClientHello.alpnProtocols(extensionData: $0) } ?? []
            let version = extensionBody(TLSEXT_TYPE_supported_versions)
                .flatMap { TLSClientHello.highestVersion(extensionData: $0) }
                ?? UInt16(truncatingIfNeeded: SSL_client_hello_get0_legacy_version(ssl))
            engine.clientHello = TLSClientHello(serverName: serverName, alpn: protocols, version: version)
        }
        guard let identity = engine.identity else {
            engine.waitingForIdentity = true
            return SSL_CLIENT_HELLO_RETRY
        }
        engine.waitingForIdentity = false
        guard SSL_use_cert_and_key(ssl, identity.certificate.pointer, identity.key.pointer, nil, 1) == 1 else {
            alert?.pointee = SSL_AD_INTERNAL_ERROR
            return SSL_CLIENT_HELLO_ERROR
        }
        engine.certificateSent = true
        return SSL_CLIENT_HELLO_SUCCESS
    }

    /// Server ALPN: picks the first of our protocols (the connection's own list, else the context's
    /// in `arg`) the client offers;
    /// no ALPN at all when none matches (the client then speaks HTTP/1.1 by default).
    static let alpnSelect: @convention(c) (OpaquePointer?, UnsafeMutablePointer<UnsafePointer<UInt8>?>?,
                                           UnsafeMutablePointer<UInt8>?, UnsafePointer<UInt8>?, UInt32,
                                           UnsafeMutableRawPointer?) -> Int32 = { ssl, out, outLength, offered, offeredLength, arg in
        guard let out, let outLength, let offered, let arg else { return SSL_TLSEXT_ERR_NOACK }
        let ours = TLSEngine.from(ssl)?.servedProtocols ?? Unmanaged<ALPNPreference>.fromOpaque(arg).takeUnretainedValue()
        let theirs = UnsafeBufferPointer(start: offered, count: Int(offeredLength))
        for wanted in ours.protocols {
            var offset = 0
            while offset < theirs.count {
                let length = Int(theirs[offset])
                let start = offset + 1
                guard length > 0, start + length <= theirs.count else { break }
                if length == wanted.count, theirs[start..<start + length].elementsEqual(wanted) {
                    out.pointee = offered + start
                    outLength.pointee = UInt8(length)
                    return SSL_TLSEXT_ERR_OK
                }
                offset = start + length
            }
        }
        return SSL_TLSEXT_ERR_NOACK
    }
}

/// Our ALPN preference list (server side), kept alive by its context for the callback.
final class ALPNPreference: Sendable {
    let protocols: [[UInt8]]
    init(_ names: [String]) { protocols = names.map { Array($0.utf8) }.filter { !$0.isEmpty && $0.count < 256 } }
}

/// What a ServerHello decides (RFC 8446 §4.1.3, RFC 5246 §7.4.1.3): the server random, the cipher
/// suite, the version (from supported_versions for TLS 1.3), the echoed session id (TLS 1.2
/// resumption), and the extensions that change how records are protected.
public struct TLSServerHello: Sendable, Hashable {
    public var random: [UInt8]
    public var sessionID: [UInt8]
    public var cipherSuite: UInt16
    /// The negotiated version: supported_versions when present (0x0304), else the legacy field.
    public var version: UInt16
    /// A HelloRetryRequest (TLS 1.3): the client sends a second ClientHello, nothing is encrypted yet.
    public var isHelloRetryRequest: Bool
    /// encrypt_then_mac (RFC 7366), which changes CBC records.
    public var encryptThenMAC: Bool
    /// The protocol chosen by ALPN (TLS 1.2; in TLS 1.3 it is in EncryptedExtensions).
    public var alpn: String?

    /// SHA-256("HelloRetryRequest"): the random a HelloRetryRequest carries (RFC 8446 §4.1.3).
    public static let helloRetryRequestRandom: [UInt8] = [
        0xCF, 0x21, 0xAD, 0x74, 0xE5, 0x9A, 0x61, 0x11, 0xBE, 0x1D, 0x8C, 0x02, 0x1E, 0x65, 0xB8, 0x91,
        0xC2, 0xA2, 0x11, 0x16, 0x7A, 0xBB, 0x8C, 0x5E, 0x07, 0x9E, 0x09, 0xE2, 0xC8, 0xA8, 0x33, 0x9C,
    ]

    /// Parses a ServerHello's body (the handshake message without its 4-byte header).
    public static func parse(body: ArraySlice<UInt8>) throws(ByteReaderError) -> TLSServerHello {
        var r = ByteReader(body)
        let legacyVersion = try r.readUInt16()
        let random = Array(try r.readBytes(32))
        let sessionID = Array(try r.readBytes(Int(try r.readUInt8())))
        let suite = try r.readUInt16()
        _ = try r.readUInt8()  // compression method
        var hello = TLSServerHello(random: random, sessionID: sessionID, cipherSuite: suite, version: legacyVersion,
                                   isHelloRetryRequest: random == helloRetryRequestRandom, encryptThenMAC: false, alpn: nil)
        if r.isAtEnd { return hello }
        var extensions = try r.readReader(count: Int(try r.readUInt16()))
        while !extensions.isAtEnd {
            let type = try extensions.readUInt16()
            var data = try extensions.readReader(count: Int(try extensions.readUInt16()))
            switch type {
            case 43: hello.version = try data.readUInt16()
            case 22: hello.encryptThenMAC = true
            case 16: hello.alpn = try TLSClientHello.alpnProtocols(in: &data).first
            default: break
            }
        }
        return hello
    }

    /// The ALPN protocol of a TLS 1.3 EncryptedExtensions body, nil when the server chose none.
    public static func alpn(encryptedExtensions body: ArraySlice<UInt8>) -> String? {
        var r = ByteReader(body)
        do throws(ByteReaderError) {
            var extensions = try r.readReader(count: Int(try r.readUInt16()))
            while !extensions.isAtEnd {
                let type = try extensions.readUInt16()
                var data = try extensions.readReader(count: Int(try extensions.readUInt16()))
                if type == 16 { return try TLSClientHello.alpnProtocols(in: &data).first }
            }
        } catch {
            return nil
        }
        return nil
    }
}

extension TLSClientHello {
    /// Parses a ClientHello handshake message (with its 4-byte header), nil when it is not one.
    public static func parse(handshakeMessage: ArraySlice<UInt8>) -> TLSClientHello? {
        if case .clientHello(let hello) = parseHandshake(handshakeMessage) { return hello }
        return nil
    }
}

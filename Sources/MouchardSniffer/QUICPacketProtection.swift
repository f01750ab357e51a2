import MouchardCodec
import MouchardWire

/// The protection of one direction's QUIC packets in one packet number space under one secret
/// (RFC 9001 §5): AEAD key and IV, header protection key, and the largest packet number opened
/// so far (to rebuild truncated ones).
struct QUICPacketProtection {
    let suite: TLSCipherSuite
    let secret: [UInt8]
    let labelPrefix: String
    let cipher: AEADCipher
    let iv: [UInt8]
    let headerProtection: HeaderProtection
    var largest: UInt64?

    static let saltV1: [UInt8] = [
        0x38, 0x76, 0x2c, 0xf7, 0xf5, 0x59, 0x34, 0xb3, 0x4d, 0x17, 0x9a, 0xe6, 0xa4, 0xc8, 0x0c, 0xad, 0xcc, 0xbb, 0x7f, 0x0a,
    ]
    static let saltV2: [UInt8] = [
        0x0d, 0xed, 0xe3, 0xde, 0xf7, 0x00, 0xa6, 0xdb, 0x81, 0x93, 0x81, 0xbe, 0x6e, 0x26, 0x9d, 0xcb, 0xf9, 0xbd, 0x2e, 0xd9,
    ]

    /// Keys from a traffic secret: `quic key`, `quic iv`, `quic hp` (`quicv2 ...` for version 2).
    init?(suite: TLSCipherSuite, secret: [UInt8], version: UInt32, headerProtection reused: HeaderProtection? = nil) {
        let prefix = version == QUICInitialPacket.version2 ? "quicv2 " : "quic "
        let keyLength = suite.algorithm.keyLength
        guard let c = AEADCipher(suite.algorithm, key: TLSKeyDerivation.expandLabel(suite.hash, secret: secret, label: prefix + "key",
                                                                                   length: keyLength)),
              let hp = reused ?? HeaderProtection(suite.algorithm, key: TLSKeyDerivation.expandLabel(
                  suite.hash, secret: secret, label: prefix + "hp", length: keyLength)) else { return nil }
        self.suite = suite
        self.secret = secret
        labelPrefix = prefix
        cipher = c
        iv = TLSKeyDerivation.expandLabel(suite.hash, secret: secret, label: prefix + "iv", length: AEADCipher.nonceLength)
        headerProtection = hp
    }

    /// The Initial keys of one side, derived from the client's first Destination Connection ID.
    static func initial(destinationConnectionID: [UInt8], version: UInt32, client: Bool) -> QUICPacketProtection? {
        guard let suite = TLSCipherSuite.named(0x1301) else { return nil }
        let salt = version == QUICInitialPacket.version2 ? saltV2 : saltV1
        let initialSecret = TLSKeyDerivation.hmac(.sha256, key: salt, data: destinationConnectionID)
        let secret = TLSKeyDerivation.expandLabel(.sha256, secret: initialSecret, label: client ? "client in" : "server in", length: 32)
        return QUICPacketProtection(suite: suite, secret: secret, version: version)
    }

    /// The keys after a key update (RFC 9001 §6): next secret, same header protection key.
    func updated(version: UInt32) -> QUICPacketProtection? {
        let next = TLSKeyDerivation.expandLabel(suite.hash, secret: secret, label: labelPrefix + "ku", length: suite.hash.length)
        return QUICPacketProtection(suite: suite, secret: next, version: version, headerProtection: headerProtection)
    }

    struct Opened {
        var packetNumber: UInt64
        var payload: [UInt8]
        /// The key phase bit of a short header.
        var keyPhase: Bool
    }

    /// The first byte and packet number with header protection removed, then the payload: nil when
    /// the packet does not authenticate under these keys. `largest` is not moved (see `accept`).
    func open(_ datagram: ArraySlice<UInt8>, _ header: QUICPacketHeader) -> Opened? {
        let pnOffset = header.packetNumberOffset
        guard let sample = datagram.field(at: pnOffset + 4, length: HeaderProtection.sampleLength),
              pnOffset + 4 + HeaderProtection.sampleLength <= header.end,
              let mask = headerProtection.mask(sample: sample), let protectedFirst = datagram.u8(at: header.start)
        else { return nil }
        let start = header.start
        let long = protectedFirst & 0x80 != 0
        let first = protectedFirst ^ (mask[0] & (long ? 0x0F : 0x1F))
        let pnLength = Int(first & 0x03) + 1
        guard let pnBytes = datagram.field(at: pnOffset, length: pnLength), pnOffset + pnLength + AEADCipher.tagLength <= header.end
        else { return nil }
        var aad = Array(datagram[(datagram.startIndex + start)..<(datagram.startIndex + pnOffset)])
        aad[0] = first
        var truncated: UInt64 = 0
        for (i, b) in pnBytes.enumerated() {
            let clear = b ^ mask[1 + i]
            aad.append(clear)
            truncated = truncated << 8 | UInt64(clear)
        }
        let number = QUICPacketHeader.packetNumber(truncated: truncated, length: pnLength, largest: largest)
        var nonce = iv
        for i in 0..<8 { nonce[4 + i] ^= UInt8(truncatingIfNeeded: number >> (56 - 8 * UInt64(i))) }
        let sealed = datagram[(datagram.startIndex + pnOffset + pnLength)..<(datagram.startIndex + header.end)]
        guard let payload = cipher.open(nonce: nonce, additionalData: aad, sealed: sealed) else { return nil }
        return Opened(packetNumber: number, payload: payload, keyPhase: !long && first & 0x04 != 0)
    }

    mutating func accept(_ packetNumber: UInt64) {
        largest = max(largest ?? 0, packetNumber)
    }
}

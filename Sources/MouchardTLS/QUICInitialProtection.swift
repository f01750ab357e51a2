import COpenSSL
import MouchardWire

/// QUIC Initial packet protection (RFC 9001 §5, and RFC 9369 §3 for version 2): the keys every
/// observer can derive from the client's Destination Connection ID, header protection, and
/// AES-128-GCM. Enough to read the ClientHello a phone sends in its first Initials, so a QUIC
/// connection is named by its SNI even though it is refused or stays opaque.
public enum QUICInitialProtection {
    /// The client's Initial keys for one connection.
    public struct Keys: Sendable, Equatable {
        public var key: [UInt8]
        public var iv: [UInt8]
        public var headerProtection: [UInt8]
    }

    /// An opened Initial: the packet number and the decrypted frames.
    public struct Opened: Sendable, Equatable {
        public var packetNumber: UInt64
        public var payload: [UInt8]
        public var destinationConnectionID: [UInt8]
    }

    static let saltV1: [UInt8] = hex("38762cf7f55934b34d179ae6a4c80cadccbb7f0a")
    static let saltV2: [UInt8] = hex("0dede3def700a6db819381be6e269dcbf9bd2ed9")
    static let tagLength = 16
    static let sampleLength = 16

    /// RFC 9001 §5.2 (v1) / RFC 9369 §3.3.1 (v2): the client's key, IV and header-protection key.
    public static func clientKeys(destinationConnectionID dcid: [UInt8], version: UInt32) -> Keys {
        let v2 = version == QUICInitialPacket.version2
        let initial = hmacSHA256(key: v2 ? saltV2 : saltV1, data: dcid)
        let client = expandLabel(initial, "client in", length: 32)
        let prefix = v2 ? "quicv2 " : "quic "
        return Keys(key: expandLabel(client, prefix + "key", length: 16), iv: expandLabel(client, prefix + "iv", length: 12),
                    headerProtection: expandLabel(client, prefix + "hp", length: 16))
    }

    /// Removes header protection and decrypts a client Initial (the first packet of `datagram`);
    /// nil when it is not one or does not authenticate (not a client's, or damaged).
    public static func openClientInitial(_ datagram: ArraySlice<UInt8>) -> Opened? {
        let d = Array(datagram)
        guard let layout = Layout(d) else { return nil }
        let keys = clientKeys(destinationConnectionID: layout.dcid, version: layout.version)
        guard layout.pnOffset + 4 + sampleLength <= d.count,
              let mask = aesECB(key: keys.headerProtection, block: Array(d[(layout.pnOffset + 4)..<(layout.pnOffset + 4 + sampleLength)]))
        else { return nil }
        var header = Array(d[0..<layout.pnOffset])
        header[0] ^= mask[0] & 0x0F
        let pnLength = Int(header[0] & 0x03) + 1
        guard layout.length >= pnLength + tagLength else { return nil }
        var packetNumber: UInt64 = 0
        for i in 0..<pnLength {
            let b = d[layout.pnOffset + i] ^ mask[1 + i]
            header.append(b)
            packetNumber = packetNumber << 8 | UInt64(b)
        }
        let end = layout.pnOffset + layout.length
        let sealed = Array(d[(layout.pnOffset + pnLength)..<(end - tagLength)])
        let tag = Array(d[(end - tagLength)..<end])
        guard let plain = aesGCM(decrypt: true, key: keys.key, nonce: nonce(keys.iv, packetNumber), aad: header,
                                 input: sealed, tag: tag) else { return nil }
        return Opened(packetNumber: packetNumber, payload: plain.output, destinationConnectionID: layout.dcid)
    }

    /// Builds a protected client Initial (4-byte packet number) carrying `payload` frames, padded
    /// to `datagramSize`: what a QUIC client sends first. For tests and fixtures.
    public static func sealClientInitial(destinationConnectionID dcid: [UInt8], sourceConnectionID scid: [UInt8] = [],
                                         packetNumber: UInt32 = 0, payload: [UInt8], version: UInt32 = QUICInitialPacket.version1,
                                         datagramSize: Int = 1200) -> [UInt8] {
        let keys = clientKeys(destinationConnectionID: dcid, version: version)
        let type: UInt8 = version == QUICInitialPacket.version2 ? 0x10 : 0x00
        var header: [UInt8] = [0xC0 | type | 0x03]
        header += withUnsafeBytes(of: version.bigEndian, Array.init)
        header += [UInt8(dcid.count)] + dcid + [UInt8(scid.count)] + scid + [0x00]  // no token
        let fixed = header.count + 2 + 4 + tagLength
        var frames = payload
        if fixed + frames.count < datagramSize { frames += [UInt8](repeating: 0, count: datagramSize - fixed - frames.count) }
        let length = 4 + frames.count + tagLength
        header += [0x40 | UInt8(length >> 8), UInt8(length & 0xFF)]
        let pnOffset = header.count
        let pn = withUnsafeBytes(of: packetNumber.bigEndian, Array.init)
        header += pn
        guard let sealed = aesGCM(decrypt: false, key: keys.key, nonce: nonce(keys.iv, UInt64(packetNumber)), aad: header,
                                  input: frames, tag: nil) else { return [] }
        var packet = header + sealed.output + sealed.tag
        let mask = aesECB(key: keys.headerProtection, block: Array(packet[(pnOffset + 4)..<(pnOffset + 4 + sampleLength)])) ?? []
        guard mask.count == 16 else { return [] }
        packet[0] ^= mask[0] & 0x0F
        for i in 0..<4 { packet[pnOffset + i] ^= mask[1 + i] }
        return packet
    }

    /// The long-header fields up to the packet number.
    struct Layout {
        var version: UInt32
        var dcid: [UInt8]
        var pnOffset: Int
        /// The Length field: packet number + protected payload (with the tag).
        var length: Int

        init?(_ d: [UInt8]) {
            let s = d[...]
            guard QUICInitialPacket(s) != nil, let version = s.be32(at: 1), let dcidLength = s.u8(at: 5),
                  let dcid = s.field(at: 6, length: Int(dcidLength)) else { return nil }
            var o = 6 + Int(dcidLength)
            guard let scidLength = s.u8(at: o) else { return nil }
            o += 1 + Int(scidLength)
            guard let token = QUICInitialPacket.varint(s, at: &o) else { return nil }
            o += Int(token)
            guard let length = QUICInitialPacket.varint(s, at: &o), o + Int(length) <= d.count else { return nil }
            self.version = version
            self.dcid = Array(dcid)
            pnOffset = o
            self.length = Int(length)
        }
    }

    static func nonce(_ iv: [UInt8], _ packetNumber: UInt64) -> [UInt8] {
        var n = iv
        for i in 0..<8 { n[n.count - 1 - i] ^= UInt8(truncatingIfNeeded: packetNumber >> (8 * UInt64(i))) }
        return n
    }

    // MARK: HKDF (RFC 5869) and TLS 1.3's HKDF-Expand-Label (RFC 8446 §7.1), over OpenSSL's HMAC.

    static func hmacSHA256(key: [UInt8], data: [UInt8]) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: 32)
        var length: UInt32 = 32
        _ = HMAC(EVP_sha256(), key, Int32(key.count), data, data.count, &out, &length)
        return Array(out.prefix(Int(length)))
    }

    /// HKDF-Expand-Label(secret, label, "", length) for length ≤ 32 (one HMAC block).
    static func expandLabel(_ secret: [UInt8], _ label: String, length: Int) -> [UInt8] {
        let full = Array(("tls13 " + label).utf8)
        let info: [UInt8] = [UInt8(length >> 8), UInt8(length & 0xFF), UInt8(full.count)] + full + [0x00]
        return Array(hmacSHA256(key: secret, data: info + [0x01]).prefix(length))
    }

    // MARK: AES over OpenSSL EVP

    static func aesECB(key: [UInt8], block: [UInt8]) -> [UInt8]? {
        guard let ctx = EVP_CIPHER_CTX_new() else { return nil }
        defer { EVP_CIPHER_CTX_free(ctx) }
        guard EVP_EncryptInit_ex(ctx, EVP_aes_128_ecb(), nil, key, nil) == 1 else { return nil }
        EVP_CIPHER_CTX_set_padding(ctx, 0)
        var out = [UInt8](repeating: 0, count: block.count + 16)
        var n: Int32 = 0
        guard EVP_EncryptUpdate(ctx, &out, &n, block, Int32(block.count)) == 1 else { return nil }
        return Array(out.prefix(Int(n)))
    }

    static func aesGCM(decrypt: Bool, key: [UInt8], nonce: [UInt8], aad: [UInt8], input: [UInt8],
                       tag: [UInt8]?) -> (output: [UInt8], tag: [UInt8])? {
        guard let ctx = EVP_CIPHER_CTX_new() else { return nil }
        defer { EVP_CIPHER_CTX_free(ctx) }
        let cipherInit = decrypt ? EVP_DecryptInit_ex : EVP_EncryptInit_ex
        guard cipherInit(ctx, EVP_aes_128_gcm(), nil, nil, nil) == 1,
              EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_GCM_SET_IVLEN, Int32(nonce.count), nil) == 1,
              cipherInit(ctx, nil, nil, key, nonce) == 1 else { return nil }
        var n: Int32 = 0
        let update = decrypt ? EVP_DecryptUpdate : EVP_EncryptUpdate
        guard update(ctx, nil, &n, aad, Int32(aad.count)) == 1 else { return nil }
        var out = [UInt8](repeating: 0, count: input.count + 16)
        guard update(ctx, &out, &n, input, Int32(input.count)) == 1 else { return nil }
        let produced = Int(n)
        var final = [UInt8](repeating: 0, count: 16)
        if decrypt {
            guard var t = tag, EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_GCM_SET_TAG, Int32(t.count), &t) == 1,
                  EVP_DecryptFinal_ex(ctx, &final, &n) == 1 else { return nil }
            return (Array(out.prefix(produced)), t)
        }
        guard EVP_EncryptFinal_ex(ctx, &final, &n) == 1 else { return nil }
        var t = [UInt8](repeating: 0, count: tagLength)
        guard EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_GCM_GET_TAG, Int32(tagLength), &t) == 1 else { return nil }
        return (Array(out.prefix(produced)), t)
    }

    static func hex(_ s: String) -> [UInt8] {
        var out: [UInt8] = []
        var i = s.startIndex
        while i < s.endIndex {
            let j = s.index(i, offsetBy: 2)
            out.append(UInt8(s[i..<j], radix: 16)!)
            i = j
        }
        return out
    }
}

/// The client's CRYPTO stream gathered from its Initial packets (frames in any order, bounded),
/// and the ClientHello it holds once complete.
public struct QUICCryptoStream: Sendable {
    private var pieces: [Int: [UInt8]] = [:]
    private var held = 0
    /// A ClientHello larger than this is not waited for.
    public static let maxBytes = 64 * 1024

    public init() {}

    /// Adds the CRYPTO frames of one decrypted Initial payload (other frames are skipped; an
    /// unknown frame type ends the walk, since its length cannot be known).
    public mutating func add(frames payload: [UInt8]) {
        let s = payload[...]
        var o = 0
        while o < payload.count {
            guard let type = QUICInitialPacket.varint(s, at: &o) else { return }
            switch type {
            case 0x00, 0x01:
                continue  // PADDING, PING
            case 0x02, 0x03:
                // ACK: largest, delay, range count, first range, ranges, (ECN counts).
                guard QUICInitialPacket.varint(s, at: &o) != nil, QUICInitialPacket.varint(s, at: &o) != nil,
                      let count = QUICInitialPacket.varint(s, at: &o), count < 256, QUICInitialPacket.varint(s, at: &o) != nil
                else { return }
                for _ in 0..<(Int(count) * 2 + (type == 0x03 ? 3 : 0)) {
                    guard QUICInitialPacket.varint(s, at: &o) != nil else { return }
                }
            case 0x06:
                guard let offset = QUICInitialPacket.varint(s, at: &o), let length = QUICInitialPacket.varint(s, at: &o),
                      let data = s.field(at: o, length: Int(length)) else { return }
                o += Int(length)
                if Int(offset) + data.count <= Self.maxBytes, pieces[Int(offset)] == nil {
                    pieces[Int(offset)] = Array(data)
                    held += data.count
                }
            default:
                return
            }
        }
    }

    /// The bytes contiguous from offset 0.
    var contiguous: [UInt8] {
        var out: [UInt8] = []
        while let next = pieces[out.count] ?? pieces.first(where: { $0.key < out.count && $0.key + $0.value.count > out.count })
            .map({ Array($0.value[(out.count - $0.key)...]) }), !next.isEmpty {
            out += next
        }
        return out
    }

    /// The ClientHello when the stream holds all of it (wrapped in TLS records for the parser).
    public var clientHello: TLSClientHello? {
        let bytes = contiguous
        guard !bytes.isEmpty else { return nil }
        var records: [UInt8] = []
        var i = 0
        while i < bytes.count {
            let n = min(16_384, bytes.count - i)
            records += [22, 3, 1, UInt8(n >> 8), UInt8(n & 0xFF)] + bytes[i..<(i + n)]
            i += n
        }
        if case .clientHello(let hello) = TLSClientHello.parse(stream: records[...]) { return hello }
        return nil
    }
}

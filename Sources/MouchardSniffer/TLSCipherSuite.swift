import MouchardCodec

/// The cipher suites whose records the capture decryptor opens: the AEAD suites of TLS 1.3 and the
/// (EC)DHE/RSA AEAD suites of TLS 1.2. Anything else (CBC, export, NULL...) is listed as an
/// unsupported suite, by code.
struct TLSCipherSuite: Sendable, Hashable {
    let code: UInt16
    let name: String
    let algorithm: AEADCipher.Algorithm
    /// The handshake hash (TLS 1.3 key schedule, TLS 1.2 PRF).
    let hash: TLSKeyDerivation.Hash
    let isTLS13: Bool

    /// TLS 1.2 implicit IV length: the 4-byte salt of GCM (the other 8 bytes travel in each record,
    /// RFC 5288), the whole 12-byte IV of ChaCha20-Poly1305 (RFC 7905); TLS 1.3 IVs are 12 bytes.
    var fixedIVLength: Int { isTLS13 || algorithm == .chacha20Poly1305 ? 12 : 4 }
    /// TLS 1.2 GCM records start with the 8-byte explicit part of their nonce.
    var explicitNonceLength: Int { !isTLS13 && algorithm != .chacha20Poly1305 ? 8 : 0 }

    static func named(_ code: UInt16) -> TLSCipherSuite? { table[code] }

    private static let table: [UInt16: TLSCipherSuite] = {
        let list: [(UInt16, String, AEADCipher.Algorithm, TLSKeyDerivation.Hash, Bool)] = [
            (0x1301, "TLS_AES_128_GCM_SHA256", .aes128GCM, .sha256, true),
            (0x1302, "TLS_AES_256_GCM_SHA384", .aes256GCM, .sha384, true),
            (0x1303, "TLS_CHACHA20_POLY1305_SHA256", .chacha20Poly1305, .sha256, true),
            (0xC02B, "TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256", .aes128GCM, .sha256, false),
            (0xC02C, "TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384", .aes256GCM, .sha384, false),
            (0xC02F, "TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256", .aes128GCM, .sha256, false),
            (0xC030, "TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384", .aes256GCM, .sha384, false),
            (0x009E, "TLS_DHE_RSA_WITH_AES_128_GCM_SHA256", .aes128GCM, .sha256, false),
            (0x009F, "TLS_DHE_RSA_WITH_AES_256_GCM_SHA384", .aes256GCM, .sha384, false),
            (0x009C, "TLS_RSA_WITH_AES_128_GCM_SHA256", .aes128GCM, .sha256, false),
            (0x009D, "TLS_RSA_WITH_AES_256_GCM_SHA384", .aes256GCM, .sha384, false),
            (0xCCA8, "TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305_SHA256", .chacha20Poly1305, .sha256, false),
            (0xCCA9, "TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256", .chacha20Poly1305, .sha256, false),
            (0xCCAA, "TLS_DHE_RSA_WITH_CHACHA20_POLY1305_SHA256", .chacha20Poly1305, .sha256, false),
        ]
        var t: [UInt16: TLSCipherSuite] = [:]
        for (code, name, algorithm, hash, is13) in list {
            t[code] = TLSCipherSuite(code: code, name: name, algorithm: algorithm, hash: hash, isTLS13: is13)
        }
        return t
    }()
}

/// The protection of one direction's records under one key: AEAD, IV and record sequence number.
struct TLSRecordProtection {
    let cipher: AEADCipher
    let iv: [UInt8]
    let suite: TLSCipherSuite
    private(set) var sequence: UInt64 = 0

    init?(suite: TLSCipherSuite, key: [UInt8], iv: [UInt8]) {
        guard let c = AEADCipher(suite.algorithm, key: key), iv.count == suite.fixedIVLength else { return nil }
        cipher = c
        self.iv = iv
        self.suite = suite
    }

    /// TLS 1.3 traffic keys of a traffic secret (RFC 8446 §7.3).
    init?(suite: TLSCipherSuite, trafficSecret: [UInt8]) {
        let key = TLSKeyDerivation.expandLabel(suite.hash, secret: trafficSecret, label: "key", length: suite.algorithm.keyLength)
        let iv = TLSKeyDerivation.expandLabel(suite.hash, secret: trafficSecret, label: "iv", length: 12)
        self.init(suite: suite, key: key, iv: iv)
    }

    /// The length of the application data a protected application data record carries, found
    /// without opening it: TLS 1.2 AEAD records have no padding (the fragment less the explicit
    /// nonce and tag); a TLS 1.3 record's inner content type and padding are read from its last
    /// bytes by `AEADCipher.peek` (unauthenticated). Nil when that cannot be told (the record is
    /// not application data, or its padding is longer than what is looked at).
    func applicationDataLength(header: ArraySlice<UInt8>, fragment: ArraySlice<UInt8>) -> Int? {
        let textLength = fragment.count - suite.explicitNonceLength - AEADCipher.tagLength
        guard textLength >= 0, header.first == TLSRecord.applicationData else { return nil }
        guard suite.isTLS13 else { return textLength }
        let look = min(textLength, TLSRecordProtection.innerTailLook)
        guard look > 0, let tail = cipher.peek(nonce: nonce, sealed: fragment, range: (textLength - look)..<textLength),
              let typeAt = tail.lastIndex(where: { $0 != 0 }), tail[typeAt] == TLSRecord.applicationData else { return nil }
        return textLength - look + typeAt
    }

    /// Inner plaintext bytes looked at to find a TLS 1.3 record's content type behind its padding.
    static let innerTailLook = 32

    /// Passes over a record without opening it: only the sequence number moves on.
    mutating func skip() { sequence &+= 1 }

    /// The per-record nonce of TLS 1.3 and of TLS 1.2 ChaCha20-Poly1305: the IV XOR the sequence number.
    private var nonce: [UInt8] {
        var n = iv
        for i in 0..<8 { n[4 + i] ^= UInt8(truncatingIfNeeded: sequence >> (56 - 8 * UInt64(i))) }
        return n
    }

    /// The inner content type and plaintext of a protected record, nil when it fails
    /// authentication. The sequence number advances either way (the sender's did).
    mutating func open(header: ArraySlice<UInt8>, fragment: ArraySlice<UInt8>) -> (type: UInt8, plaintext: [UInt8])? {
        defer { sequence &+= 1 }
        var nonce = [UInt8](repeating: 0, count: AEADCipher.nonceLength)
        let sealed: ArraySlice<UInt8>
        if suite.explicitNonceLength > 0 {
            guard fragment.count >= suite.explicitNonceLength + AEADCipher.tagLength else { return nil }
            for i in 0..<4 { nonce[i] = iv[i] }
            for i in 0..<8 { nonce[4 + i] = fragment[fragment.startIndex + i] }
            sealed = fragment.dropFirst(suite.explicitNonceLength)
        } else {
            nonce = self.nonce
            sealed = fragment
        }
        guard sealed.count >= AEADCipher.tagLength else { return nil }
        let additionalData: [UInt8]
        let h = header.startIndex
        if suite.isTLS13 {
            additionalData = Array(header)
        } else {
            let length = sealed.count - AEADCipher.tagLength
            var aad = [UInt8](repeating: 0, count: 13)
            for i in 0..<8 { aad[i] = UInt8(truncatingIfNeeded: sequence >> (56 - 8 * UInt64(i))) }
            aad[8] = header[h]
            aad[9] = header[h + 1]
            aad[10] = header[h + 2]
            aad[11] = UInt8(length >> 8)
            aad[12] = UInt8(length & 0xFF)
            additionalData = aad
        }
        guard var plain = cipher.open(nonce: nonce, additionalData: additionalData, sealed: sealed) else { return nil }
        guard suite.isTLS13 else { return (header[h], plain) }
        // TLSInnerPlaintext: content, then the real type, then zero padding.
        while let last = plain.last, last == 0 { plain.removeLast() }
        guard let type = plain.popLast() else { return nil }
        return (type, plain)
    }
}

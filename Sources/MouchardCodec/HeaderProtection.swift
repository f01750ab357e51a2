import COpenSSL

/// QUIC header protection (RFC 9001 §5.4): the 5-byte mask that hides a packet's first-byte bits
/// and packet number, computed from a 16-byte sample of the protected payload. AES suites encrypt
/// the sample with AES-ECB (here: AES-CTR over a zero block with the sample as counter block, the
/// same bytes); ChaCha20 suites run ChaCha20 with the sample as counter and nonce. One OpenSSL
/// context per key, reused for every packet.
public final class HeaderProtection {
    public static let sampleLength = 16
    public static let maskLength = 5

    private let context: OpaquePointer

    /// Nil when the key has the wrong length for `algorithm` (the AEAD's key length).
    public init?(_ algorithm: AEADCipher.Algorithm, key: [UInt8]) {
        guard key.count == algorithm.keyLength, let c = EVP_CIPHER_CTX_new() else { return nil }
        context = c
        guard EVP_EncryptInit_ex(c, algorithm.streamCipher, nil, key, nil) == 1 else {
            EVP_CIPHER_CTX_free(c)
            return nil
        }
    }

    deinit { EVP_CIPHER_CTX_free(context) }

    /// The mask for `sample` (16 bytes), nil when the sample is short.
    public func mask(sample: ArraySlice<UInt8>) -> [UInt8]? {
        guard sample.count >= HeaderProtection.sampleLength else { return nil }
        let iv = Array(sample.prefix(HeaderProtection.sampleLength))
        guard EVP_EncryptInit_ex(context, nil, nil, nil, iv) == 1 else { return nil }
        let zeros = [UInt8](repeating: 0, count: HeaderProtection.maskLength)
        var out = [UInt8](repeating: 0, count: HeaderProtection.maskLength)
        var n: Int32 = 0
        guard EVP_EncryptUpdate(context, &out, &n, zeros, Int32(zeros.count)) == 1, Int(n) == zeros.count else { return nil }
        return out
    }
}

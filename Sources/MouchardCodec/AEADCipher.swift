import COpenSSL

/// An AEAD cipher with a fixed key, from OpenSSL EVP: what TLS record protection uses (AES-GCM,
/// ChaCha20-Poly1305; 12-byte nonces, 16-byte tags). One OpenSSL context per key, reused for
/// every record (only the nonce changes), so a record costs no allocation in OpenSSL.
public final class AEADCipher {
    public enum Algorithm: Sendable, Hashable {
        case aes128GCM, aes256GCM, chacha20Poly1305

        public var keyLength: Int { self == .aes128GCM ? 16 : 32 }
        var cipher: OpaquePointer? {
            switch self {
            case .aes128GCM: EVP_aes_128_gcm()
            case .aes256GCM: EVP_aes_256_gcm()
            case .chacha20Poly1305: EVP_chacha20_poly1305()
            }
        }
    }

    public static let nonceLength = 12
    public static let tagLength = 16

    public let algorithm: Algorithm
    private let decryptContext: OpaquePointer
    private let encryptContext: OpaquePointer

    /// Nil when the key has the wrong length or OpenSSL refuses the cipher.
    public init?(_ algorithm: Algorithm, key: [UInt8]) {
        guard key.count == algorithm.keyLength, let d = EVP_CIPHER_CTX_new() else { return nil }
        guard let e = EVP_CIPHER_CTX_new() else {
            EVP_CIPHER_CTX_free(d)
            return nil
        }
        self.algorithm = algorithm
        decryptContext = d
        encryptContext = e
        guard EVP_DecryptInit_ex(d, algorithm.cipher, nil, key, nil) == 1,
              EVP_EncryptInit_ex(e, algorithm.cipher, nil, key, nil) == 1 else { return nil }
    }

    deinit {
        EVP_CIPHER_CTX_free(decryptContext)
        EVP_CIPHER_CTX_free(encryptContext)
    }

    /// Decrypts and authenticates `sealed` (ciphertext followed by the tag): the plaintext, or nil
    /// when the tag does not match (wrong key, damaged record) or the input is shorter than a tag.
    public func open(nonce: [UInt8], additionalData: [UInt8], sealed: ArraySlice<UInt8>) -> [UInt8]? {
        guard nonce.count == AEADCipher.nonceLength, sealed.count >= AEADCipher.tagLength else { return nil }
        let textLength = sealed.count - AEADCipher.tagLength
        var out = [UInt8](repeating: 0, count: textLength)
        let ok = sealed.withUnsafeBufferPointer { input -> Bool in
            guard let base = input.baseAddress else { return false }
            return out.withUnsafeMutableBufferPointer { output -> Bool in
                var n: Int32 = 0
                let ctx = decryptContext
                guard EVP_DecryptInit_ex(ctx, nil, nil, nil, nonce) == 1,
                      EVP_DecryptUpdate(ctx, nil, &n, additionalData, Int32(additionalData.count)) == 1 else { return false }
                if textLength > 0 {
                    guard EVP_DecryptUpdate(ctx, output.baseAddress, &n, base, Int32(textLength)) == 1 else { return false }
                }
                let tag = UnsafeMutableRawPointer(mutating: base + textLength)
                guard EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_AEAD_SET_TAG, Int32(AEADCipher.tagLength), tag) == 1 else { return false }
                var tail: Int32 = 0
                return withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 16) { scratch in
                    EVP_DecryptFinal_ex(ctx, scratch.baseAddress, &tail) == 1
                }
            }
        }
        return ok ? out : nil
    }

    /// Encrypts `plaintext`: ciphertext followed by the 16-byte tag.
    public func seal(nonce: [UInt8], additionalData: [UInt8], plaintext: ArraySlice<UInt8>) -> [UInt8] {
        precondition(nonce.count == AEADCipher.nonceLength, "AEAD nonces are 12 bytes")
        var out = [UInt8](repeating: 0, count: plaintext.count + AEADCipher.tagLength)
        let ok = plaintext.withUnsafeBufferPointer { input -> Bool in
            out.withUnsafeMutableBufferPointer { output -> Bool in
                guard let o = output.baseAddress else { return false }
                var n: Int32 = 0
                let ctx = encryptContext
                guard EVP_EncryptInit_ex(ctx, nil, nil, nil, nonce) == 1,
                      EVP_EncryptUpdate(ctx, nil, &n, additionalData, Int32(additionalData.count)) == 1 else { return false }
                if let i = input.baseAddress, input.count > 0 {
                    guard EVP_EncryptUpdate(ctx, o, &n, i, Int32(input.count)) == 1 else { return false }
                }
                var tail: Int32 = 0
                guard EVP_EncryptFinal_ex(ctx, o + plaintext.count, &tail) == 1 else { return false }
                return EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_AEAD_GET_TAG, Int32(AEADCipher.tagLength), o + plaintext.count) == 1
            }
        }
        precondition(ok, "EVP AEAD encryption failed with a valid key and nonce")
        return out
    }
}

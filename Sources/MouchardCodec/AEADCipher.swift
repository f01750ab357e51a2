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
        /// The AEAD's stream cipher alone (what `peek` runs).
        var streamCipher: OpaquePointer? {
            switch self {
            case .aes128GCM: EVP_aes_128_ctr()
            case .aes256GCM: EVP_aes_256_ctr()
            case .chacha20Poly1305: EVP_chacha20()
            }
        }
        /// Bytes of keystream per counter value.
        var keystreamBlock: Int { self == .chacha20Poly1305 ? 64 : 16 }
    }

    public static let nonceLength = 12
    public static let tagLength = 16

    public let algorithm: Algorithm
    private let decryptContext: OpaquePointer
    private let encryptContext: OpaquePointer
    private let key: [UInt8]
    /// The stream cipher under the same key, made on the first `peek`.
    private var keystreamContext: OpaquePointer?

    /// Nil when the key has the wrong length or OpenSSL refuses the cipher.
    public init?(_ algorithm: Algorithm, key: [UInt8]) {
        guard key.count == algorithm.keyLength, let d = EVP_CIPHER_CTX_new() else { return nil }
        guard let e = EVP_CIPHER_CTX_new() else {
            EVP_CIPHER_CTX_free(d)
            return nil
        }
        self.algorithm = algorithm
        self.key = key
        decryptContext = d
        encryptContext = e
        guard EVP_DecryptInit_ex(d, algorithm.cipher, nil, key, nil) == 1,
              EVP_EncryptInit_ex(e, algorithm.cipher, nil, key, nil) == 1 else { return nil }
    }

    deinit {
        EVP_CIPHER_CTX_free(decryptContext)
        EVP_CIPHER_CTX_free(encryptContext)
        if let k = keystreamContext { EVP_CIPHER_CTX_free(k) }
    }

    /// The plaintext of `range` of the ciphertext in `sealed` (ciphertext then tag), decrypted
    /// WITHOUT authentication: for a look at a few bytes (the inner content type at the end of a
    /// TLS 1.3 record) without opening the whole record. Only the keystream blocks covering the
    /// range are computed: AES-GCM's counter starts at 2 for the first block of text (96-bit
    /// nonces, NIST SP 800-38D), ChaCha20-Poly1305's at 1 (RFC 8439 §2.8). Nil when the range is
    /// outside the ciphertext.
    public func peek(nonce: [UInt8], sealed: ArraySlice<UInt8>, range: Range<Int>) -> [UInt8]? {
        let textLength = sealed.count - AEADCipher.tagLength
        guard nonce.count == AEADCipher.nonceLength, range.lowerBound >= 0, range.upperBound <= textLength, !range.isEmpty
        else { return nil }
        let blockSize = algorithm.keystreamBlock
        let firstBlock = range.lowerBound / blockSize
        if keystreamContext == nil {
            guard let k = EVP_CIPHER_CTX_new() else { return nil }
            guard EVP_DecryptInit_ex(k, algorithm.streamCipher, nil, key, nil) == 1 else {
                EVP_CIPHER_CTX_free(k)
                return nil
            }
            keystreamContext = k
        }
        guard let ctx = keystreamContext else { return nil }
        let from = firstBlock * blockSize
        let count = range.upperBound - from
        // The stream cipher's IV (nonce and block counter) and the blocks decrypted live on the
        // stack: a peek is made for every record passed over, and only its result is kept.
        return withUnsafeTemporaryAllocation(of: UInt8.self, capacity: AEADCipher.streamIVLength + count) { scratch in
            guard let iv = scratch.baseAddress else { return nil }
            let text = iv + AEADCipher.streamIVLength
            if algorithm == .chacha20Poly1305 {
                // ChaCha20: 32-bit little-endian block counter, then the nonce.
                let counter = UInt32(truncatingIfNeeded: 1 + firstBlock)
                for i in 0..<4 { iv[i] = UInt8(truncatingIfNeeded: counter >> (8 * UInt32(i))) }
                for i in 0..<AEADCipher.nonceLength { iv[4 + i] = nonce[i] }
            } else {
                // AES-CTR: the nonce, then a 32-bit big-endian block counter.
                let counter = UInt32(truncatingIfNeeded: 2 + firstBlock)
                for i in 0..<AEADCipher.nonceLength { iv[i] = nonce[i] }
                for i in 0..<4 { iv[AEADCipher.nonceLength + i] = UInt8(truncatingIfNeeded: counter >> (24 - 8 * UInt32(i))) }
            }
            guard EVP_DecryptInit_ex(ctx, nil, nil, nil, iv) == 1 else { return nil }
            let ok = sealed.withUnsafeBufferPointer { input -> Bool in
                guard let base = input.baseAddress else { return false }
                var n: Int32 = 0
                return EVP_DecryptUpdate(ctx, text, &n, base + from, Int32(count)) == 1 && Int(n) == count
            }
            return ok ? Array(UnsafeBufferPointer(start: text + (range.lowerBound - from), count: range.count)) : nil
        }
    }

    /// IV length of the stream ciphers `peek` runs (AES-CTR's counter block, ChaCha20's counter and nonce).
    static let streamIVLength = 16

    /// Decrypts and authenticates `sealed` (ciphertext followed by the tag): the plaintext, or nil
    /// when the tag does not match (wrong key, damaged record) or the input is shorter than a tag.
    public func open(nonce: [UInt8], additionalData: [UInt8], sealed: ArraySlice<UInt8>) -> [UInt8]? {
        guard nonce.count == AEADCipher.nonceLength, sealed.count >= AEADCipher.tagLength else { return nil }
        let textLength = sealed.count - AEADCipher.tagLength
        var ok = false
        // The output is written by OpenSSL before it is read: no zero-filling pass over it.
        let out = [UInt8](unsafeUninitializedCapacity: textLength) { output, count in
            count = textLength
            ok = sealed.withUnsafeBufferPointer { input -> Bool in
                guard let base = input.baseAddress else { return false }
                var n: Int32 = 0
                let ctx = decryptContext
                guard EVP_DecryptInit_ex(ctx, nil, nil, nil, nonce) == 1,
                      EVP_DecryptUpdate(ctx, nil, &n, additionalData, Int32(additionalData.count)) == 1 else { return false }
                if textLength > 0 {
                    // AEAD modes are stream modes: all of the text comes out of this one call.
                    guard EVP_DecryptUpdate(ctx, output.baseAddress, &n, base, Int32(textLength)) == 1, Int(n) == textLength
                    else { return false }
                }
                let tag = UnsafeMutableRawPointer(mutating: base + textLength)
                guard EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_AEAD_SET_TAG, Int32(AEADCipher.tagLength), tag) == 1 else { return false }
                var tail: Int32 = 0
                return withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 16) { scratch in
                    EVP_DecryptFinal_ex(ctx, scratch.baseAddress, &tail) == 1
                }
            }
            // On failure part of the output may be unwritten: the array is dropped, empty.
            if !ok { count = 0 }
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

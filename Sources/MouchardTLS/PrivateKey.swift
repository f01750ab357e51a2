import COpenSSL
import CMouchardShims

/// A private key (OpenSSL `EVP_PKEY`): the CA's signing key or the one shared leaf key.
/// Immutable once made; safe to share across threads (OpenSSL reference-counts and locks it).
public final class PrivateKey: @unchecked Sendable {
    /// Key algorithms Apple accepts for TLS server certificates.
    public enum Algorithm: String, Sendable {
        case p256 = "P-256"
        case rsa2048 = "RSA-2048"
    }

    let pointer: OpaquePointer

    init(taking pointer: OpaquePointer) { self.pointer = pointer }

    deinit { EVP_PKEY_free(pointer) }

    /// A fresh key. P-256 is the default: signing is ~20× faster than RSA-2048.
    public static func generate(_ algorithm: Algorithm = .p256) throws(TLSError) -> PrivateKey {
        let key: OpaquePointer? = switch algorithm {
        case .p256: mouchard_EVP_EC_gen("P-256")
        case .rsa2048: mouchard_EVP_RSA_gen(2048)
        }
        guard let key else { throw openSSLFailure("generating a \(algorithm.rawValue) key") }
        return PrivateKey(taking: key)
    }

    /// Loads an unencrypted PEM private key (PKCS#8 or traditional).
    public convenience init(pem: [UInt8]) throws(TLSError) {
        let bio = try MemoryBIO.make(holding: pem)
        defer { BIO_free(bio) }
        guard let key = PEM_read_bio_PrivateKey(bio, nil, nil, nil) else { throw openSSLFailure("reading a PEM private key") }
        self.init(taking: key)
    }

    /// The key as unencrypted PKCS#8 PEM. Secret: write it only to a 0600 file.
    public func pem() throws(TLSError) -> [UInt8] {
        try MemoryBIO.capture("writing a PEM private key") { PEM_write_bio_PrivateKey($0, pointer, nil, nil, 0, nil, nil) }
    }
}

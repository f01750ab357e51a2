import COpenSSL

/// The key derivations of TLS over OpenSSL's HMAC: HKDF-Expand-Label (TLS 1.3, RFC 8446 §7.1)
/// and the TLS 1.2 PRF (RFC 5246 §5). Pure functions of their inputs.
public enum TLSKeyDerivation {
    /// The hash of a cipher suite.
    public enum Hash: Sendable, Hashable {
        case sha256, sha384

        public var length: Int { self == .sha256 ? 32 : 48 }
        var digest: OpaquePointer? { self == .sha256 ? EVP_sha256() : EVP_sha384() }
    }

    public static func hmac(_ hash: Hash, key: [UInt8], data: [UInt8]) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: Int(EVP_MAX_MD_SIZE))
        var length: UInt32 = 0
        let result = out.withUnsafeMutableBufferPointer { o in
            HMAC(hash.digest, key, Int32(key.count), data, data.count, o.baseAddress, &length)
        }
        precondition(result != nil, "HMAC failed for a built-in digest")
        return Array(out[0..<Int(length)])
    }

    /// HKDF-Expand (RFC 5869 §2.3).
    public static func hkdfExpand(_ hash: Hash, pseudorandomKey: [UInt8], info: [UInt8], length: Int) -> [UInt8] {
        var out: [UInt8] = []
        var block: [UInt8] = []
        var counter: UInt8 = 1
        while out.count < length {
            block = hmac(hash, key: pseudorandomKey, data: block + info + [counter])
            out += block
            counter &+= 1
        }
        return Array(out.prefix(length))
    }

    /// HKDF-Expand-Label(secret, label, context, length) with the `tls13 ` prefix.
    public static func expandLabel(_ hash: Hash, secret: [UInt8], label: String, context: [UInt8] = [], length: Int) -> [UInt8] {
        let fullLabel = Array("tls13 \(label)".utf8)
        var info: [UInt8] = [UInt8(length >> 8), UInt8(length & 0xFF), UInt8(fullLabel.count)]
        info += fullLabel
        info.append(UInt8(context.count))
        info += context
        return hkdfExpand(hash, pseudorandomKey: secret, info: info, length: length)
    }

    /// PRF(secret, label, seed) = P_hash(secret, label + seed), cut to `length`.
    public static func prf(_ hash: Hash, secret: [UInt8], label: String, seed: [UInt8], length: Int) -> [UInt8] {
        let labelSeed = Array(label.utf8) + seed
        var out: [UInt8] = []
        var a = labelSeed
        while out.count < length {
            a = hmac(hash, key: secret, data: a)
            out += hmac(hash, key: secret, data: a + labelSeed)
        }
        return Array(out.prefix(length))
    }
}

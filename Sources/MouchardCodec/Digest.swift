import COpenSSL

/// Message digests from OpenSSL EVP (there is no CryptoKit on Linux): what SDKs use to
/// "anonymize" identifiers, so what the inspector must compute to recognise them.
public enum DigestAlgorithm: String, Sendable, CaseIterable {
    case md5, sha1, sha256

    /// The digest of `data`.
    public func digest<C: Collection>(_ data: C) -> [UInt8] where C.Element == UInt8 {
        let md: OpaquePointer? = switch self {
        case .md5: EVP_md5()
        case .sha1: EVP_sha1()
        case .sha256: EVP_sha256()
        }
        var out = [UInt8](repeating: 0, count: Int(EVP_MAX_MD_SIZE))
        var length: UInt32 = 0
        let bytes = Array(data)
        let ok = bytes.withUnsafeBytes { input in
            out.withUnsafeMutableBufferPointer { output in
                EVP_Digest(input.baseAddress, input.count, output.baseAddress, &length, md, nil)
            }
        }
        precondition(ok == 1, "EVP_Digest failed for a built-in digest")
        return Array(out[0..<Int(length)])
    }

    /// The lower-case hex digest of a string's UTF-8 bytes.
    public func hexDigest(_ text: String) -> String { hexString(digest(Array(text.utf8))) }
}

/// Lower-case hex of bytes.
public func hexString<C: Collection>(_ bytes: C) -> String where C.Element == UInt8 {
    let digits: [UInt8] = Array("0123456789abcdef".utf8)
    var out = [UInt8]()
    out.reserveCapacity(bytes.count * 2)
    for b in bytes {
        out.append(digits[Int(b >> 4)])
        out.append(digits[Int(b & 0x0F)])
    }
    return String(decoding: out, as: UTF8.self)
}

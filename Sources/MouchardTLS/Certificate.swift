import COpenSSL
import CMouchardShims
import Foundation

/// An X.509 certificate (OpenSSL `X509`): the CA's, a minted leaf, or an origin's.
/// Immutable once made; safe to share across threads.
public final class Certificate: @unchecked Sendable {
    let pointer: OpaquePointer

    /// Takes ownership of one reference to `pointer`.
    init(taking pointer: OpaquePointer) { self.pointer = pointer }

    deinit { X509_free(pointer) }

    /// Parses the first certificate of a PEM text.
    public convenience init(pem: [UInt8]) throws(TLSError) {
        let bio = try MemoryBIO.make(holding: pem)
        defer { BIO_free(bio) }
        guard let x509 = PEM_read_bio_X509(bio, nil, nil, nil) else { throw openSSLFailure("reading a PEM certificate") }
        self.init(taking: x509)
    }

    /// Parses a DER certificate.
    public convenience init(der: [UInt8]) throws(TLSError) {
        let parsed: OpaquePointer? = der.withUnsafeBufferPointer { buffer in
            var cursor: UnsafePointer<UInt8>? = buffer.baseAddress
            return d2i_X509(nil, &cursor, buffer.count)
        }
        guard let parsed else { throw openSSLFailure("reading a DER certificate") }
        self.init(taking: parsed)
    }

    /// The certificate in DER.
    public var der: [UInt8] {
        let length = i2d_X509(pointer, nil)
        guard length > 0 else { return [] }
        return [UInt8](unsafeUninitializedCapacity: Int(length)) { buffer, count in
            var cursor = buffer.baseAddress
            count = max(0, Int(i2d_X509(pointer, &cursor)))
        }
    }

    /// The certificate in PEM (`-----BEGIN CERTIFICATE-----`).
    public var pem: [UInt8] {
        (try? MemoryBIO.capture("writing a PEM certificate") { PEM_write_bio_X509($0, pointer) }) ?? []
    }

    /// SHA-256 of the DER, as bytes.
    public var sha256: [UInt8] {
        var digest = [UInt8](repeating: 0, count: Int(EVP_MAX_MD_SIZE))
        var length: UInt32 = 0
        guard X509_digest(pointer, EVP_sha256(), &digest, &length) == 1 else { return [] }
        return Array(digest.prefix(Int(length)))
    }

    /// SHA-256 fingerprint as colon-separated upper-case hex (`AB:CD:...`), as browsers show it.
    public var sha256Fingerprint: String {
        sha256.map { byte in
            let hex = String(byte, radix: 16, uppercase: true)
            return hex.count == 1 ? "0" + hex : hex
        }.joined(separator: ":")
    }

    /// The subject as `CN=...,O=...` (most specific first).
    public var subject: String { Self.describe(X509_get_subject_name(pointer)) }
    /// The issuer as `CN=...,O=...`.
    public var issuer: String { Self.describe(X509_get_issuer_name(pointer)) }

    /// Start of validity.
    public var notBefore: Date { Self.date(X509_get0_notBefore(pointer)) }
    /// End of validity.
    public var notAfter: Date { Self.date(X509_get0_notAfter(pointer)) }

    /// The serial number in hex.
    public var serialHex: String {
        guard let bn = ASN1_INTEGER_to_BN(X509_get0_serialNumber(pointer), nil) else { return "" }
        defer { BN_free(bn) }
        guard let text = BN_bn2hex(bn) else { return "" }
        defer { CRYPTO_free(text, #fileID, #line) }
        return String(cString: text)
    }

    /// The DNS names, IP addresses (subjectAltName) and CN this certificate names.
    public var names: CertificateNames {
        var result = CertificateNames()
        result.commonName = commonName
        guard let raw = X509_get_ext_d2i(pointer, NID_subject_alt_name, nil, nil) else { return result }
        let names = OpaquePointer(raw)
        defer { GENERAL_NAMES_free(names) }
        for i in 0..<mouchard_sk_GENERAL_NAME_num(names) {
            guard let entry = mouchard_sk_GENERAL_NAME_value(names, i) else { continue }
            var type: Int32 = 0
            guard let value = GENERAL_NAME_get0_value(entry, &type) else { continue }
            let string = UnsafePointer(value.assumingMemoryBound(to: ASN1_STRING.self))
            let length = Int(ASN1_STRING_length(string))
            guard length > 0, length <= 1024, let data = ASN1_STRING_get0_data(string) else { continue }
            let bytes = Array(UnsafeBufferPointer(start: data, count: length))
            switch type {
            case GEN_DNS:
                if bytes.allSatisfy({ $0 > 0x20 && $0 < 0x7F }) { result.dnsNames.append(String(decoding: bytes, as: UTF8.self)) }
            case GEN_IPADD:
                if let text = IPAddressText.format(bytes) { result.ipAddresses.append(text) }
            default:
                break
            }
        }
        return result
    }

    /// The subject's first common name, if any.
    public var commonName: String? {
        let name = X509_get_subject_name(pointer)
        let index = X509_NAME_get_index_by_NID(name, NID_commonName, -1)
        guard index >= 0, let entry = X509_NAME_get_entry(name, index) else { return nil }
        return Self.utf8(UnsafePointer(X509_NAME_ENTRY_get_data(entry)))
    }

    /// OpenSSL's old-style subject hash in 8 hex digits (Android system store file names).
    public var subjectHashOld: String {
        let hash = String(X509_subject_name_hash_old(pointer), radix: 16)
        return String(repeating: "0", count: max(0, 8 - hash.count)) + hash
    }

    /// Whether `key` is this certificate's private key.
    public func matches(_ key: PrivateKey) -> Bool { X509_check_private_key(pointer, key.pointer) == 1 }

    static func describe(_ name: OpaquePointer?) -> String {
        guard let name else { return "" }
        var parts: [String] = []
        let count = X509_NAME_entry_count(name)
        for i in stride(from: count - 1, through: 0, by: -1) {
            guard let entry = X509_NAME_get_entry(name, i) else { continue }
            let nid = OBJ_obj2nid(X509_NAME_ENTRY_get_object(entry))
            let short = OBJ_nid2sn(nid).map { String(cString: $0) } ?? "?"
            parts.append("\(short)=\(utf8(UnsafePointer(X509_NAME_ENTRY_get_data(entry))) ?? "")")
        }
        return parts.joined(separator: ",")
    }

    static func utf8(_ string: UnsafePointer<ASN1_STRING>?) -> String? {
        guard let string else { return nil }
        var out: UnsafeMutablePointer<UInt8>?
        let length = ASN1_STRING_to_UTF8(&out, string)
        guard length >= 0, let out else { return nil }
        defer { CRYPTO_free(out, #fileID, #line) }
        return String(decoding: UnsafeBufferPointer(start: out, count: Int(length)), as: UTF8.self)
    }

    static func date(_ time: UnsafePointer<ASN1_TIME>?) -> Date {
        var parts = tm()
        guard let time, ASN1_TIME_to_tm(time, &parts) == 1 else { return Date(timeIntervalSince1970: 0) }
        return Date(timeIntervalSince1970: TimeInterval(timegm(&parts)))
    }
}

import COpenSSL
import CMouchardShims

/// Builds and signs one X.509 v3 certificate: subject, random serial, validity, extensions.
/// Internal: the CA and the leaf minter describe what they want, this does the OpenSSL calls.
struct CertificateBuilder {
    /// Subject entries in order, e.g. [("O", "Mouchard"), ("CN", "...")].
    var subject: [(String, String)]
    /// Validity start relative to now (negative: backdated for clock skew), in seconds.
    var notBeforeOffset: Int
    /// Validity end relative to now, in seconds.
    var notAfterOffset: Int
    /// Extensions written as OpenSSL config values (trusted constant text only): (NID, value).
    var extensions: [(Int32, String)]
    /// subjectAltName entries (already validated): DNS names and IP address bytes.
    var dnsNames: [String] = []
    var ipAddresses: [[UInt8]] = []

    /// Signs with `signer` (SHA-256). `issuer` nil means self-signed.
    func sign(publicKeyOf subjectKey: PrivateKey, issuer: Certificate?, signer: PrivateKey) throws(TLSError) -> Certificate {
        guard let x509 = X509_new() else { throw openSSLFailure("X509_new") }
        let certificate = Certificate(taking: x509)  // frees on any throw below
        guard X509_set_version(x509, 2) == 1 else { throw openSSLFailure("X509_set_version") }
        try Self.setRandomSerial(x509)
        guard X509_gmtime_adj(X509_getm_notBefore(x509), notBeforeOffset) != nil,
              X509_gmtime_adj(X509_getm_notAfter(x509), notAfterOffset) != nil else { throw openSSLFailure("setting validity") }
        guard X509_set_pubkey(x509, subjectKey.pointer) == 1 else { throw openSSLFailure("X509_set_pubkey") }
        let name = X509_get_subject_name(x509)
        for (field, value) in subject {
            let ok = Array(value.utf8).withUnsafeBufferPointer { bytes in
                X509_NAME_add_entry_by_txt(name, field, MBSTRING_UTF8, bytes.baseAddress, Int32(bytes.count), -1, 0)
            }
            guard ok == 1 else { throw openSSLFailure("adding subject \(field)") }
        }
        let issuerName = issuer.map { X509_get_subject_name($0.pointer) } ?? name
        guard X509_set_issuer_name(x509, issuerName) == 1 else { throw openSSLFailure("X509_set_issuer_name") }

        var context = X509V3_CTX()
        X509V3_set_ctx(&context, issuer?.pointer ?? x509, x509, nil, nil, 0)
        for (nid, value) in extensions {
            guard let ext = X509V3_EXT_conf_nid(nil, &context, nid, value) else { throw openSSLFailure("extension \(value)") }
            defer { X509_EXTENSION_free(ext) }
            guard X509_add_ext(x509, ext, -1) == 1 else { throw openSSLFailure("X509_add_ext") }
        }
        if !dnsNames.isEmpty || !ipAddresses.isEmpty { try addSubjectAltName(x509) }
        guard X509_sign(x509, signer.pointer, EVP_sha256()) > 0 else { throw openSSLFailure("X509_sign") }
        return certificate
    }

    /// Builds subjectAltName from values, not from config text: names come from hostile
    /// certificates and SNI, so they never go through OpenSSL's config parser.
    private func addSubjectAltName(_ x509: OpaquePointer) throws(TLSError) {
        guard let names = GENERAL_NAMES_new() else { throw openSSLFailure("GENERAL_NAMES_new") }
        defer { GENERAL_NAMES_free(names) }
        for dns in dnsNames { try Self.push(GEN_DNS, Array(dns.utf8), V_ASN1_IA5STRING, to: names) }
        for ip in ipAddresses { try Self.push(GEN_IPADD, ip, V_ASN1_OCTET_STRING, to: names) }
        guard X509_add1_ext_i2d(x509, NID_subject_alt_name, UnsafeMutableRawPointer(names), 0, UInt(X509V3_ADD_DEFAULT)) == 1 else {
            throw openSSLFailure("adding subjectAltName")
        }
    }

    private static func push(_ type: Int32, _ bytes: [UInt8], _ stringType: Int32, to names: OpaquePointer) throws(TLSError) {
        guard let string = ASN1_STRING_type_new(stringType) else { throw openSSLFailure("ASN1_STRING_type_new") }
        guard ASN1_STRING_set(string, bytes, Int32(bytes.count)) == 1, let entry = GENERAL_NAME_new() else {
            ASN1_STRING_free(string)
            throw openSSLFailure("building a subjectAltName entry")
        }
        GENERAL_NAME_set0_value(entry, type, UnsafeMutableRawPointer(string))
        guard mouchard_sk_GENERAL_NAME_push(names, entry) > 0 else {
            GENERAL_NAME_free(entry)
            throw openSSLFailure("sk_GENERAL_NAME_push")
        }
    }

    /// A random positive 127-bit serial (CA/Browser Forum: at least 64 bits of randomness).
    private static func setRandomSerial(_ x509: OpaquePointer) throws(TLSError) {
        var bytes = [UInt8](repeating: 0, count: 16)
        guard RAND_bytes(&bytes, 16) == 1 else { throw openSSLFailure("RAND_bytes") }
        bytes[0] = (bytes[0] & 0x7F) | 0x01 << 6  // positive, and never a short encoding
        guard let bn = BN_bin2bn(bytes, 16, nil) else { throw openSSLFailure("BN_bin2bn") }
        defer { BN_free(bn) }
        guard BN_to_ASN1_INTEGER(bn, X509_get_serialNumber(x509)) != nil else { throw openSSLFailure("setting serial") }
    }
}

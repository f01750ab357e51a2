/// The names a certificate is valid for: DNS names and IP addresses from its subjectAltName,
/// and its subject common name. Read from an origin's certificate to mint a matching leaf.
public struct CertificateNames: Sendable, Equatable, Hashable {
    /// subjectAltName dNSName entries, as written (may hold wildcards like `*.example.com`).
    public var dnsNames: [String]
    /// subjectAltName iPAddress entries, in text form (`192.0.2.1`, `2001:db8::1`).
    public var ipAddresses: [String]
    /// The subject's CN, if any.
    public var commonName: String?

    public init(dnsNames: [String] = [], ipAddresses: [String] = [], commonName: String? = nil) {
        self.dnsNames = dnsNames
        self.ipAddresses = ipAddresses
        self.commonName = commonName
    }

    /// Every name, SAN first, then the CN when it is not already listed.
    public var all: [String] {
        var names = dnsNames + ipAddresses
        if let cn = commonName, !names.contains(cn) { names.append(cn) }
        return names
    }
}

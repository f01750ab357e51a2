/// The validated, normalised names a minted leaf will carry: DNS names (lower case, no trailing
/// dot, wildcards allowed in the first label) and IP addresses. Built from the SNI and the
/// origin certificate's names; hostile input (odd bytes, over-long names) is dropped, not trusted.
public struct LeafNames: Sendable, Hashable {
    /// At most this many names go into one leaf (some CDN certificates list hundreds).
    public static let maximumCount = 100

    public private(set) var dnsNames: [String] = []
    public private(set) var ipAddresses: [String] = []
    /// The names that were refused, for diagnostics.
    public private(set) var rejected: [String] = []

    /// Names from `hosts` (each a DNS name or an IP literal), in order, duplicates removed.
    public init(_ hosts: [String]) {
        for host in hosts { add(host) }
    }

    /// The SNI (or CONNECT host) first, then the origin certificate's SAN and CN.
    public init(serverName: String?, upstream: CertificateNames?) {
        self.init((serverName.map { [$0] } ?? []) + (upstream?.all ?? []))
    }

    public var isEmpty: Bool { dnsNames.isEmpty && ipAddresses.isEmpty }

    /// The first name (goes into the subject CN).
    public var primary: String? { dnsNames.first ?? ipAddresses.first }

    /// A stable key for the leaf cache: same names in any order → same key.
    public var cacheKey: String {
        (dnsNames.sorted() + ["|"] + ipAddresses.sorted()).joined(separator: ",")
    }

    /// The IP addresses as bytes (4 or 16 each).
    var ipAddressBytes: [[UInt8]] { ipAddresses.compactMap(IPAddressText.parse) }

    private mutating func add(_ raw: String) {
        guard dnsNames.count + ipAddresses.count < Self.maximumCount else { return }
        if let bytes = IPAddressText.parse(raw), let text = IPAddressText.format(bytes) {
            if !ipAddresses.contains(text) { ipAddresses.append(text) }
            return
        }
        var name = raw.lowercased()
        if name.hasSuffix(".") { name.removeLast() }
        guard Self.isValidDNSName(name) else {
            if rejected.count < 16 { rejected.append(String(raw.prefix(80))) }
            return
        }
        if !dnsNames.contains(name) { dnsNames.append(name) }
    }

    /// LDH labels (plus `_`, common in practice), 1–63 bytes each, 253 in all; `*` only as
    /// the whole first label of a name with at least two more labels.
    static func isValidDNSName(_ name: String) -> Bool {
        let utf8 = Array(name.utf8)
        guard !utf8.isEmpty, utf8.count <= 253 else { return false }
        let labels = utf8.split(separator: UInt8(ascii: "."), omittingEmptySubsequences: false)
        for (index, label) in labels.enumerated() {
            guard !label.isEmpty, label.count <= 63 else { return false }
            if label.count == 1, label.first == UInt8(ascii: "*") {
                guard index == 0, labels.count >= 3 else { return false }
                continue
            }
            for byte in label {
                let ok = (byte >= 0x61 && byte <= 0x7A) || (byte >= 0x30 && byte <= 0x39) || byte == 0x2D || byte == 0x5F
                guard ok else { return false }
            }
        }
        return true
    }
}

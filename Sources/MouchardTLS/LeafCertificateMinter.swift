import COpenSSL
import Synchronization

/// Mints the per-host certificates the proxy shows the phone, following Apple's rules for TLS
/// server certificates: SAN with every DNS name and IP, EKU serverAuth, SHA-256, validity ≤ 397
/// days (we use 365, starting 1 h in the past for clock skew), P-256 key. All leaves share ONE
/// key generated when the minter is made (one per process), so minting costs one signature.
/// Results are cached (bounded LRU). Thread-safe: call from any event loop.
public final class LeafCertificateMinter: Sendable {
    public static let defaultCacheCapacity = 2048
    /// Leaf validity in days (Apple's ceiling is 397 for certificates issued after 2020-09-01).
    public static let validityDays = 365

    public let authority: CertificateAuthority
    /// The one key every leaf of this process is issued for.
    public let leafKey: PrivateKey
    private let keyUsage: String
    private let cache: Mutex<LRUCache<String, TLSIdentity>>
    private let counters = Mutex<(hits: Int, misses: Int)>((0, 0))

    public init(authority: CertificateAuthority, cacheCapacity: Int = LeafCertificateMinter.defaultCacheCapacity,
                keyAlgorithm: PrivateKey.Algorithm = .p256) throws(TLSError) {
        self.authority = authority
        self.leafKey = try PrivateKey.generate(keyAlgorithm)
        // RFC 5480: an EC key signs, it does not encipher; RSA (TLS 1.2 RSA kx) does both.
        self.keyUsage = keyAlgorithm == .p256 ? "critical,digitalSignature" : "critical,digitalSignature,keyEncipherment"
        self.cache = Mutex(LRUCache(capacity: cacheCapacity))
    }

    /// The leaf for `names` (cached). Throws `.invalidName` when no usable name is left.
    public func identity(for names: LeafNames) throws(TLSError) -> TLSIdentity {
        guard let primary = names.primary else { throw .invalidName(names.rejected.first ?? "") }
        let key = names.cacheKey
        if let cached = cache.withLock({ $0.get(key) }) {
            counters.withLock { $0.hits += 1 }
            return cached
        }
        counters.withLock { $0.misses += 1 }
        // Minted outside the lock: two loops racing on the same new host both sign, one wins.
        let builder = CertificateBuilder(
            subject: [("CN", primary.utf8.count <= 64 ? primary : "Mouchard leaf")],
            notBeforeOffset: -3600,
            notAfterOffset: Self.validityDays * 86400 - 3600,
            extensions: [
                (NID_basic_constraints, "critical,CA:FALSE"),
                (NID_key_usage, keyUsage),
                (NID_ext_key_usage, "serverAuth"),
                (NID_authority_key_identifier, "keyid:always"),
            ],
            dnsNames: names.dnsNames,
            ipAddresses: names.ipAddressBytes)
        let certificate = try builder.sign(publicKeyOf: leafKey, issuer: authority.certificate, signer: authority.key)
        let identity = TLSIdentity(certificate: certificate, key: leafKey)
        cache.withLock { $0.put(key, identity) }
        return identity
    }

    /// Convenience: the leaf for a host (SNI or CONNECT target) and, when known, the origin
    /// certificate's names.
    public func identity(serverName: String?, upstream: CertificateNames? = nil) throws(TLSError) -> TLSIdentity {
        try identity(for: LeafNames(serverName: serverName, upstream: upstream))
    }

    /// Cache hits and misses since creation.
    public var cacheStatistics: (hits: Int, misses: Int) { counters.withLock { $0 } }
    public var cachedCount: Int { cache.withLock { $0.count } }
}

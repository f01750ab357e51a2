/// A certificate and its private key: what a `TLSServerSession` presents to the client.
/// Minted leaves share one key. Immutable; safe to share across threads.
public final class TLSIdentity: @unchecked Sendable {
    public let certificate: Certificate
    public let key: PrivateKey

    public init(certificate: Certificate, key: PrivateKey) {
        self.certificate = certificate
        self.key = key
    }
}

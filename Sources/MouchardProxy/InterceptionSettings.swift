/// How CONNECT tunnels are decrypted: where the CA lives, how upstream certificates are checked,
/// and where TLS secrets are logged.
public struct InterceptionSettings: Sendable {
    /// The directory holding the CA (`~/.mouchard` or `$MOUCHARD_HOME` by default).
    public var authorityDirectory: String
    /// Extra trust anchors (PEM) for upstream servers, added to the system store.
    public var upstreamCAFile: String?
    /// Turns upstream certificate verification off (loudly).
    public var insecureUpstream: Bool
    /// NSS key log file for both sides' secrets (`--ssl-keylog`).
    public var keyLogPath: String?

    public init(authorityDirectory: String, upstreamCAFile: String? = nil, insecureUpstream: Bool = false,
                keyLogPath: String? = nil) {
        self.authorityDirectory = authorityDirectory
        self.upstreamCAFile = upstreamCAFile
        self.insecureUpstream = insecureUpstream
        self.keyLogPath = keyLogPath
    }
}

import Foundation
import MouchardFlow
import MouchardPosix
import MouchardProxy
import MouchardTLS

/// An intercepting proxy for the code under test, in-process on `127.0.0.1:0`: point an HTTP
/// client (or a subprocess, with `environment`) at it, trust `caCertificatePath`, then `stop()`
/// into an audit of everything that went through.
///
///     let proxy = try RecordingProxy()
///     try runTheApp(environment: proxy.environment)
///     let audit = try proxy.stop(profile: phone)
///     #expect(audit.findings(.deviceID, to: .thirdParty).isEmpty)
public final class RecordingProxy: @unchecked Sendable {
    public let address: SocketAddress
    public let interceptor: TLSInterceptor
    private let server: ProxyServer
    private let sink = CollectingFlowSink()

    /// `home` holds the CA (a fresh temporary folder by default); `upstreamCA` adds a trust anchor
    /// for the origins (a test server's CA), `insecureUpstream` turns their verification off.
    public init(home: String? = nil, upstreamCA: String? = nil, insecureUpstream: Bool = false) throws {
        let directory = home ?? NSTemporaryDirectory() + "mouchard-kit-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let settings = InterceptionSettings(authorityDirectory: directory, upstreamCAFile: upstreamCA, insecureUpstream: insecureUpstream)
        interceptor = try TLSInterceptor(settings: settings)
        server = ProxyServer(configuration: ProxyConfiguration(listen: SocketAddress(ip: "127.0.0.1", port: 0)!, threads: 1,
                                                               interception: settings),
                             sink: sink, interceptor: interceptor, localResponder: interceptor.onboardingResponder)
        address = try server.start()
    }

    /// `http://127.0.0.1:PORT`.
    public var url: String { "http://\(address)" }
    /// The CA certificate (PEM) the client must trust for HTTPS.
    public var caCertificatePath: String { interceptor.authority.certificatePath }

    /// For a subprocess: `http_proxy`, `https_proxy` (both spellings), and the CA for curl,
    /// OpenSSL, Python requests and Node.
    public var environment: [String: String] {
        ["http_proxy": url, "https_proxy": url, "HTTP_PROXY": url, "HTTPS_PROXY": url, "no_proxy": "", "NO_PROXY": "",
         "CURL_CA_BUNDLE": caCertificatePath, "SSL_CERT_FILE": caCertificatePath, "REQUESTS_CA_BUNDLE": caCertificatePath,
         "NODE_EXTRA_CA_CERTS": caCertificatePath]
    }

    /// The flows recorded so far (numbered 1, 2, 3... in completion order).
    public var flows: Flows { Flows(sink.flows) }

    /// Stops the proxy and audits what went through it.
    public func stop(profile: DeviceProfile? = nil, firstParty: [String] = [], rules: Rules? = nil) throws -> Audit {
        server.stop()
        return try Audit(flows, profile: profile, firstParty: firstParty, rules: rules)
    }
}

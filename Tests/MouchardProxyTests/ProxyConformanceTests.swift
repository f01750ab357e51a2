import Foundation
import MouchardPosix
import MouchardProxy
import MouchardTLS
import ProxyConformance
import Testing

/// The black-box forward-proxy cases of `ProxyConformance` (RFC 9110/9112, each citing its
/// section) against Mouchard's proxy as `mouchard proxy` runs it: TLS interception on, on
/// loopback, with a short upstream timeout so the 504 case stays quick.
@Suite struct ProxyConformanceTests {
    static let upstreamTimeoutMilliseconds: UInt64 = 1500

    @Test(arguments: ConformanceCases.all)
    func mouchardPasses(_ conformance: ConformanceCase) throws {
        let home = NSTemporaryDirectory() + "mouchard-conformance-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: home, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: home) }
        let settings = InterceptionSettings(authorityDirectory: home)
        let configuration = ProxyConfiguration(listen: SocketAddress(ip: "127.0.0.1", port: 0)!, threads: 1,
                                               responseTimeoutMilliseconds: Self.upstreamTimeoutMilliseconds,
                                               interception: settings)
        let server = ProxyServer(configuration: configuration, interceptor: try TLSInterceptor(settings: settings))
        let address = try server.start()
        defer { server.stop() }
        let context = ConformanceContext(proxyPort: address.port, upstreamTimeout: Double(Self.upstreamTimeoutMilliseconds) / 1000)
        let result = conformance.result(in: context)
        #expect(result.passed, "\(conformance.reference): \(conformance.requirement): \(result.detail)")
    }
}

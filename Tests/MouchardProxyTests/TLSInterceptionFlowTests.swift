import Foundation
import MouchardWire
import Testing
import MouchardTLS

/// The whole interception dance in memory, as the proxy does it: phone → (our server session,
/// paused at the ClientHello) → upstream client session to the origin → leaf minted with the
/// origin's names → phone handshake resumes → request and response relayed in clear.
@Suite struct TLSInterceptionFlowTests {
    @Test func phoneProxyOriginWithNamesCopiedFromTheOrigin() throws {
        // The origin: its own CA and a certificate for several names and an IP.
        let originCA = try CertificateAuthority.loadOrCreate(directory: try makeTemporaryDirectory())
        let originMinter = try LeafCertificateMinter(authority: originCA)
        let originIdentity = try originMinter.identity(for: LeafNames(["www.shop.test", "shop.test", "*.img.shop.test", "192.0.2.10"]))
        let originContext = try TLSServerContext()
        // The proxy: our CA; the upstream side trusts the origin's CA (--upstream-ca).
        let proxy = try TLSFixture(clientVerification: .only(anchorFiles: [originCA.certificatePath]))
        // The phone trusts our CA only.
        let phoneContext = try TLSClientContext(verification: .only(anchorFiles: [proxy.authority.certificatePath]))

        let phone = try TLSClientSession(context: phoneContext, host: "shop.test")
        let phoneSide = try TLSServerSession(context: proxy.server)
        let hello = phoneSide.feed(phone.pendingOutput())
        #expect(hello.count == 1)
        if case .clientHello(let h)? = hello.first { #expect(h.serverName == "shop.test" && h.alpn == ["http/1.1"] && h.version >= 0x0303) } else { Issue.record("expected a ClientHello event") }
        #expect(phoneSide.pendingOutputCount == 0)  // nothing sent to the phone yet

        // Upstream, with the phone's SNI.
        let upstream = try TLSClientSession(context: proxy.client, host: "shop.test", serverName: phoneSide.serverName)
        let origin = try TLSServerSession(context: originContext, identity: originIdentity)
        let upstreamResult = try pump(client: upstream, server: origin) { _ in throw TLSError.closedDuringHandshake }
        #expect(upstreamResult.clientFailure == nil && upstream.isHandshakeComplete)
        let originNames = try #require(upstream.peerNames)

        // The leaf copies the origin's names; the phone handshake resumes.
        let leaf = try proxy.minter.identity(serverName: phoneSide.serverName, upstream: originNames)
        #expect(leaf.certificate.names.dnsNames == ["shop.test", "www.shop.test", "*.img.shop.test"])
        #expect(leaf.certificate.names.ipAddresses == ["192.0.2.10"])
        #expect(phoneSide.provideIdentity(leaf).isEmpty)
        let phoneResult = try pump(client: phone, server: phoneSide) { _ in throw TLSError.closedDuringHandshake }
        #expect(phoneResult.clientFailure == nil && phoneResult.serverFailure == nil)
        #expect(phone.isHandshakeComplete && phoneSide.isHandshakeComplete)

        // Relay one exchange; the proxy sees both directions in clear.
        let request = Array("GET /cart?idfa=ABCD HTTP/1.1\r\nHost: shop.test\r\n\r\n".utf8)
        try phone.write(request)
        let seenRequest = try pump(client: phone, server: phoneSide) { _ in throw TLSError.closedDuringHandshake }.serverPlaintext
        #expect(seenRequest == request)
        try upstream.write(seenRequest)
        #expect(try pump(client: upstream, server: origin) { _ in throw TLSError.closedDuringHandshake }.serverPlaintext == request)
        let response = Array("HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhello".utf8)
        try origin.write(response)
        let seenResponse = try pump(client: upstream, server: origin) { _ in throw TLSError.closedDuringHandshake }.clientPlaintext
        #expect(seenResponse == response)
        try phoneSide.write(seenResponse)
        #expect(try pump(client: phone, server: phoneSide) { _ in throw TLSError.closedDuringHandshake }.clientPlaintext == response)
    }
}

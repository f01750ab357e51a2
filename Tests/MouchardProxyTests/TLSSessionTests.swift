import Foundation
import Testing
import MouchardTLS

@Suite struct TLSSessionTests {
    @Test func inMemoryHandshakeWithSNIALPNAndDataBothWays() throws {
        let fixture = try TLSFixture()
        let client = try TLSClientSession(context: fixture.client, host: "api.example.test")
        let server = try TLSServerSession(context: fixture.server)
        var seenSNI: String?
        let handshake = try pump(client: client, server: server) { hello in
            seenSNI = hello.serverName
            #expect(hello.alpnProtocols == ["http/1.1"])
            return try fixture.minter.identity(serverName: hello.serverName)
        }
        #expect(handshake.serverFailure == nil)
        #expect(handshake.clientFailure == nil)
        #expect(seenSNI == "api.example.test")
        #expect(server.serverName == "api.example.test")
        #expect(client.isHandshakeComplete && server.isHandshakeComplete)
        #expect(handshake.serverEvents.contains(.handshakeCompleted))
        #expect(handshake.clientEvents.contains(.handshakeCompleted))
        #expect(client.alpnProtocol == "http/1.1")
        #expect(server.alpnProtocol == "http/1.1")
        #expect(client.protocolVersion == "TLSv1.3")
        #expect(client.peerNames?.dnsNames == ["api.example.test"])

        let request = Array("GET / HTTP/1.1\r\nHost: api.example.test\r\n\r\n".utf8)
        try client.write(request)
        let response = Array(repeating: UInt8(ascii: "x"), count: 100_000)
        let exchange = try pump(client: client, server: server) { _ in throw TLSError.closedDuringHandshake }
        #expect(exchange.serverPlaintext == request)
        try server.write(response)
        server.close()
        let back = try pump(client: client, server: server) { _ in throw TLSError.closedDuringHandshake }
        #expect(back.clientPlaintext == response)
        #expect(back.clientEvents.last == .closeNotify)
    }
}

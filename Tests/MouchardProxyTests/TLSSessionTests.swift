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

@Suite struct TLSFailureTests {
    /// A client that trusts another CA: its verification fails with a typed error, and the
    /// server reports the rejection as pinning with the alert and the SNI.
    @Test func untrustedCAFailsBothSidesWithTypedErrors() throws {
        let fixture = try TLSFixture()
        let other = try CertificateAuthority.loadOrCreate(directory: try makeTemporaryDirectory())
        let strictClient = try TLSClientContext(verification: .only(anchorFiles: [other.certificatePath]))
        let client = try TLSClientSession(context: strictClient, host: "pinned.example.test")
        let server = try TLSServerSession(context: fixture.server)
        let result = try pump(client: client, server: server) { try fixture.minter.identity(serverName: $0.serverName) }
        guard case .upstreamCertificateUntrusted(let host, let reason) = result.clientFailure else {
            Issue.record("client: \(String(describing: result.clientFailure))"); return
        }
        #expect(host == "pinned.example.test")
        #expect(reason.contains("local issuer"))
        #expect(result.serverFailure == .clientRejectedCertificate(serverName: "pinned.example.test", alert: "unknown CA"))
        #expect(result.serverFailure?.description.contains("pinning?") == true)
        #expect(!server.isHandshakeComplete)
        // Once failed, a session stays failed.
        #expect(client.feed([1, 2, 3]).last == .failed(client.failure ?? .closedDuringHandshake))
    }

    @Test func wrongHostNameIsUntrusted() throws {
        let fixture = try TLSFixture()
        let client = try TLSClientSession(context: fixture.client, host: "expected.test")
        let server = try TLSServerSession(context: fixture.server)
        let result = try pump(client: client, server: server) { _ in try fixture.minter.identity(serverName: "other.test") }
        guard case .upstreamCertificateUntrusted(_, let reason) = result.clientFailure else {
            Issue.record("client: \(String(describing: result.clientFailure))"); return
        }
        #expect(reason.contains("mismatch"))
    }

    @Test func insecureModeConnectsAnywayAndSaysWhy() throws {
        let fixture = try TLSFixture(clientVerification: .insecure)
        let client = try TLSClientSession(context: fixture.client, host: "expected.test")
        let server = try TLSServerSession(context: fixture.server)
        let result = try pump(client: client, server: server) { _ in try fixture.minter.identity(serverName: "other.test") }
        #expect(result.clientFailure == nil && client.isHandshakeComplete)
        #expect(client.verificationProblem != nil)
        #expect(client.peerNames?.dnsNames == ["other.test"])
    }

    /// A pinning client that just hangs up after our certificate.
    @Test func hangUpAfterServerHelloIsReportedAsRejection() throws {
        let fixture = try TLSFixture()
        let client = try TLSClientSession(context: fixture.client, host: "app.example.test")
        let server = try TLSServerSession(context: fixture.server)
        let hello = server.feed(client.pendingOutput())
        #expect(hello == [.clientHello(TLSClientHello(serverName: "app.example.test", alpnProtocols: ["http/1.1"]))])
        #expect(server.isWaitingForIdentity)
        #expect(server.provideIdentity(try fixture.minter.identity(serverName: "app.example.test")).isEmpty)
        #expect(server.pendingOutputCount > 0)
        #expect(server.endOfInput() == [.failed(.clientRejectedCertificate(serverName: "app.example.test", alert: nil))])
    }

    @Test func hangUpBeforeClientHelloIsNotPinning() throws {
        let fixture = try TLSFixture()
        let server = try TLSServerSession(context: fixture.server)
        #expect(server.feed([0x16, 0x03, 0x01]).isEmpty)
        #expect(server.endOfInput() == [.failed(.closedDuringHandshake)])
    }

    @Test func garbageIsATypedHandshakeFailure() throws {
        let fixture = try TLSFixture()
        let server = try TLSServerSession(context: fixture.server)
        let events = server.feed(Array("GET / HTTP/1.1\r\nHost: x\r\n\r\n".utf8))
        guard case .failed(.handshakeFailed(let detail)) = events.last else { Issue.record("\(events)"); return }
        #expect(!detail.isEmpty)
    }

    @Test func alpnOnlyWhenTheClientOffersHTTP1() throws {
        let fixture = try TLSFixture()
        for (offer, expected) in [([String](), nil as String?), (["h2"], nil), (["h2", "http/1.1"], "http/1.1")] {
            let context = try TLSClientContext(verification: .only(anchorFiles: [fixture.authority.certificatePath]), alpn: offer)
            let client = try TLSClientSession(context: context, host: "alpn.test")
            let server = try TLSServerSession(context: fixture.server, identity: try fixture.minter.identity(serverName: "alpn.test"))
            let result = try pump(client: client, server: server) { _ in throw TLSError.closedDuringHandshake }
            #expect(result.clientFailure == nil && result.serverFailure == nil)
            #expect(server.alpnProtocol == expected, "offer \(offer)")
            #expect(client.alpnProtocol == expected)
            #expect(server.clientHello?.alpnProtocols == offer)
        }
    }

    @Test func ipAddressHostVerifiesTheIPAndSendsNoSNI() throws {
        let fixture = try TLSFixture()
        let client = try TLSClientSession(context: fixture.client, host: "127.0.0.1")
        let server = try TLSServerSession(context: fixture.server)
        let result = try pump(client: client, server: server) { hello in
            #expect(hello.serverName == nil)
            return try fixture.minter.identity(for: LeafNames(["127.0.0.1"]))
        }
        #expect(result.clientFailure == nil && client.isHandshakeComplete)
        #expect(client.peerNames?.ipAddresses == ["127.0.0.1"])
    }

    @Test func keyLogHasBothSidesInNSSFormatWithPrivateMode() throws {
        let directory = try makeTemporaryDirectory()
        let path = directory + "/keys.log"
        let keyLog = try TLSKeyLog(path: path)
        let fixture = try TLSFixture(keyLog: keyLog)
        let client = try TLSClientSession(context: fixture.client, host: "log.test")
        let server = try TLSServerSession(context: fixture.server)
        let result = try pump(client: client, server: server) { try fixture.minter.identity(serverName: $0.serverName) }
        #expect(result.clientFailure == nil)
        let lines = try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n")
        let labels = ["CLIENT_HANDSHAKE_TRAFFIC_SECRET", "SERVER_HANDSHAKE_TRAFFIC_SECRET", "CLIENT_TRAFFIC_SECRET_0",
                      "SERVER_TRAFFIC_SECRET_0", "EXPORTER_SECRET"]
        // Each label twice: once from our client side, once from our server side, same client random.
        for label in labels {
            let matching = lines.filter { $0.hasPrefix(label + " ") }
            #expect(matching.count == 2, "\(label)")
            for line in matching {
                let fields = line.split(separator: " ")
                #expect(fields.count == 3 && fields[1].count == 64 && fields[1].allSatisfy(\.isHexDigit))
            }
        }
        #expect(lines.count == labels.count * 2)
        let mode = try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int
        #expect(mode == 0o600)
    }
}

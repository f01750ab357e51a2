import Foundation
import MouchardWire
import Testing
@testable import MouchardTLS

@Suite struct TLSSessionTests {
    @Test func inMemoryHandshakeWithSNIALPNAndDataBothWays() throws {
        let fixture = try TLSFixture()
        let client = try TLSClientSession(context: fixture.client, host: "api.example.test")
        let server = try TLSServerSession(context: fixture.server)
        var seenSNI: String?
        let handshake = try pump(client: client, server: server) { hello in
            seenSNI = hello.serverName
            #expect(hello.alpn == ["http/1.1"])
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
        #expect(hello.count == 1)
        if case .clientHello(let h)? = hello.first { #expect(h.serverName == "app.example.test" && h.alpn == ["http/1.1"] && h.version >= 0x0303) } else { Issue.record("expected a ClientHello event") }
        #expect(server.isWaitingForIdentity)
        #expect(server.feed([]).isEmpty)  // announced once, even when fed again while paused
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
            #expect(server.clientHello?.alpn == offer)
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

    /// An app connecting to an IP with a name in its SNI: that name goes upstream and is checked.
    @Test func phoneSNIOverridesAnIPHost() throws {
        let fixture = try TLSFixture()
        let client = try TLSClientSession(context: fixture.client, host: "127.0.0.1", serverName: "Named.Test")
        #expect(client.serverName == "named.test")
        let server = try TLSServerSession(context: fixture.server)
        let result = try pump(client: client, server: server) { hello in
            #expect(hello.serverName == "named.test")
            return try fixture.minter.identity(serverName: "named.test")
        }
        #expect(result.clientFailure == nil && client.isHandshakeComplete)
        // A bad SNI is ignored: the IP is checked, and this leaf does not carry it.
        let second = try TLSClientSession(context: fixture.client, host: "127.0.0.1", serverName: "bad name")
        #expect(second.serverName == nil)
        let failed = try pump(client: second, server: try TLSServerSession(context: fixture.server)) { _ in
            try fixture.minter.identity(serverName: "named.test")
        }
        guard case .upstreamCertificateUntrusted(let host, _) = failed.clientFailure else {
            Issue.record("\(String(describing: failed.clientFailure))"); return
        }
        #expect(host == "127.0.0.1")
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

@Suite struct TLSResumptionTests {
    @Test func secondUpstreamConnectionResumesAndStillKnowsTheNames() throws {
        let fixture = try TLSFixture()
        var resumed: [Bool] = []
        for _ in 0..<2 {
            let client = try TLSClientSession(context: fixture.client, host: "again.test")
            let server = try TLSServerSession(context: fixture.server)
            try client.write(Array("ping".utf8))
            let first = try pump(client: client, server: server) { try fixture.minter.identity(serverName: $0.serverName) }
            #expect(first.serverPlaintext == Array("ping".utf8))
            try server.write(Array("pong".utf8))
            let second = try pump(client: client, server: server) { _ in throw TLSError.closedDuringHandshake }
            #expect(second.clientPlaintext == Array("pong".utf8))
            #expect(client.peerNames?.dnsNames == ["again.test"])
            resumed.append(client.isResumed)
        }
        #expect(resumed == [false, true])
    }
}

@Suite struct TLSBufferTests {
    /// Memory BIOs never shrink; after a 1 MB transfer both sides give the memory back, so idle
    /// keep-alive connections stay small.
    @Test func largeTransferBuffersAreReclaimedOnceDrained() throws {
        let fixture = try TLSFixture()
        let client = try TLSClientSession(context: fixture.client, host: "big.test")
        let server = try TLSServerSession(context: fixture.server, identity: try fixture.minter.identity(serverName: "big.test"))
        try pump(client: client, server: server) { _ in throw TLSError.closedDuringHandshake }
        let body = (0..<1_000_000).map { UInt8(truncatingIfNeeded: $0 &* 31) }
        try server.write(body)
        #expect(server.pendingOutputCount > body.count)
        let result = try pump(client: client, server: server) { _ in throw TLSError.closedDuringHandshake }
        #expect(result.clientPlaintext == body)
        for engine in [server.engine, client.engine] {
            #expect(engine.bufferCapacities.input <= TLSEngine.bufferReclaimThreshold)
            #expect(engine.bufferCapacities.output <= TLSEngine.bufferReclaimThreshold)
        }
        // Still usable afterwards.
        try client.write(Array("after".utf8))
        #expect(try pump(client: client, server: server) { _ in throw TLSError.closedDuringHandshake }.serverPlaintext == Array("after".utf8))
    }
}

@Suite struct TLSHostileInputTests {
    /// Mutated and truncated real handshake bytes, fed to both sides: typed failures or waiting,
    /// never a crash; bounded count.
    @Test func mutatedHandshakesFailCleanly() throws {
        let fixture = try TLSFixture()
        let identity = try fixture.minter.identity(serverName: "fuzz.test")
        let helloSource = try TLSClientSession(context: fixture.client, host: "fuzz.test")
        let clientHello = helloSource.pendingOutput()
        let replySource = try TLSServerSession(context: fixture.server, identity: identity)
        let serverReply = replySource.feed(clientHello).isEmpty ? replySource.pendingOutput() : []
        #expect(clientHello.count > 100 && serverReply.count > 100)
        var generator = SystemRandomNumberGenerator()
        var failures = 0
        for round in 0..<300 {
            var bytes = round % 2 == 0 ? clientHello : serverReply
            if round % 3 == 0 { bytes = Array(bytes.prefix(Int.random(in: 0..<bytes.count, using: &generator))) }
            for _ in 0..<Int.random(in: 1...8, using: &generator) where !bytes.isEmpty {
                bytes[Int.random(in: 0..<bytes.count, using: &generator)] = UInt8.random(in: 0...255, using: &generator)
            }
            var events: [TLSSessionEvent]
            if round % 2 == 0 {
                let server = try TLSServerSession(context: fixture.server, identity: identity)
                events = server.feed(bytes)
                events += server.endOfInput()
            } else {
                let client = try TLSClientSession(context: fixture.client, host: "fuzz.test")
                _ = client.pendingOutput()
                events = client.feed(bytes)
                events += client.endOfInput()
            }
            if case .failed = events.last { failures += 1 }
        }
        #expect(failures == 300)  // every mutated or cut handshake ends in a typed failure at EOF
    }

    @Test func clientHelloExtensionParsersAreBoundsChecked() {
        let sni: [UInt8] = [0x00, 0x0C, 0x00, 0x00, 0x09] + Array("Fuzz.Test".utf8)
        #expect(TLSClientHello.serverName(extensionData: sni) == "fuzz.test")
        for cut in 0..<sni.count { #expect(TLSClientHello.serverName(extensionData: sni.prefix(cut)) == nil) }
        let alpn: [UInt8] = [0x00, 0x0C, 0x02] + Array("h2".utf8) + [0x08] + Array("http/1.1".utf8)
        #expect(TLSClientHello.alpnProtocols(extensionData: alpn) == ["h2", "http/1.1"])
        #expect(TLSClientHello.alpnProtocols(extensionData: [0x00, 0x09, 0x02, 0x68, 0x32, 0x20]).isEmpty)  // list overruns
        #expect(TLSClientHello.alpnProtocols(extensionData: [0x00, 0x01, 0x00]).isEmpty)  // empty protocol name
        #expect(TLSClientHello.highestVersion(extensionData: [0x04, 0x0A, 0x0A, 0x03, 0x04]) == 0x0304)  // GREASE skipped
    }
}

@Suite struct TLSUpstreamTrustTests {
    /// `--upstream-ca FILE` adds to the system store; the anchor may be the origin's own leaf.
    @Test func extraAnchorsBesideTheSystemStoreIncludingALeaf() throws {
        let fixture = try TLSFixture()
        let leaf = try fixture.minter.identity(serverName: "origin.test")
        let leafPath = try writeFile(fixture.directory, "origin-leaf.pem", leaf.certificate.pem)
        for anchor in [fixture.authority.certificatePath, leafPath] {
            let context = try TLSClientContext(verification: .systemPlus(anchorFiles: [anchor]))
            let client = try TLSClientSession(context: context, host: "origin.test")
            let server = try TLSServerSession(context: fixture.server, identity: leaf)
            let result = try pump(client: client, server: server) { _ in throw TLSError.closedDuringHandshake }
            #expect(result.clientFailure == nil && client.isHandshakeComplete, "anchor \(anchor)")
            #expect(client.verificationProblem == nil)
        }
        // The system store alone does not know our CA.
        let system = try TLSClientContext(verification: .system)
        let client = try TLSClientSession(context: system, host: "origin.test")
        let server = try TLSServerSession(context: fixture.server, identity: leaf)
        let result = try pump(client: client, server: server) { _ in throw TLSError.closedDuringHandshake }
        #expect(result.clientFailure?.code == "upstream-certificate-untrusted")
    }

    @Test func missingAnchorFileIsAFileError() {
        #expect(throws: TLSError.self) { try TLSClientContext(verification: .systemPlus(anchorFiles: ["/nonexistent/ca.pem"])) }
        do {
            _ = try TLSClientContext(verification: .systemPlus(anchorFiles: ["/nonexistent/ca.pem"]))
        } catch {
            #expect(error.code == "file")
            #expect(error.description.hasPrefix("/nonexistent/ca.pem: cannot load as trust anchors"))
        }
    }
}

import Foundation
import MouchardCodec
import MouchardFlow
import MouchardInspection
import MouchardPosix
import MouchardProxy
import MouchardTestSupport
import Testing

/// The proxy on loopback with real clients (curl, Python's urllib) against real origins
/// (Python http.server, plain and TLS with a test CA made by the openssl CLI).
@Suite(.serialized, .requires(.curl), .requires(.python3), .requires(.openssl)) struct ProxyEndToEndTests {
    static let idfa = "6D92078A-8246-4BA4-AE5B-76104861E7DC"

    func curl(_ args: [String]) throws -> (status: Int32, output: Data) {
        guard let curl = which("curl") else { throw CLIFailure("curl is needed") }
        return try runProcess(curl, ["-sS", "--max-time", "30", "--noproxy", ""] + args, timeout: 40)
    }

    func write(_ bytes: [UInt8], _ path: String) throws {
        try Data(bytes).write(to: URL(fileURLWithPath: path))
    }

    @Test func plainHTTPBodiesArriveByteIdentical() throws {
        let origins = try OriginFixture()
        defer { origins.stop() }
        let proxy = try ProxyFixture(origins: origins, bodyLimit: 1 << 20)
        let base = "http://127.0.0.1:\(origins.httpPort)"
        let tenMB = 10_000_000

        // 10 MB download.
        let big = try curl(["-x", proxy.proxyURL, "\(base)/bytes?n=\(tenMB)&seed=3"])
        #expect(big.status == 0)
        #expect([UInt8](big.output) == OriginFixture.expectedBytes(tenMB, seed: 3))

        // Chunked response.
        let chunked = try curl(["-x", proxy.proxyURL, "\(base)/chunked?n=300000"])
        #expect([UInt8](chunked.output) == OriginFixture.expectedBytes(300_000, seed: 7))

        // gzip content coding passes untouched (curl decodes it).
        let gz = try curl(["-x", proxy.proxyURL, "--compressed", "\(base)/gzip"])
        #expect(String(decoding: gz.output, as: UTF8.self) == String(repeating: "gzip body ", count: 5000))

        // 10 MB upload (Content-Length) and a chunked upload, echoed back.
        let upload = OriginFixture.expectedBytes(tenMB, seed: 9)
        try write(upload, origins.directory + "/up.bin")
        let echoed = try curl(["-x", proxy.proxyURL, "--data-binary", "@\(origins.directory)/up.bin",
                               "-H", "Content-Type: application/octet-stream", "\(base)/echo"])
        #expect(echoed.output.count == tenMB)
        #expect([UInt8](echoed.output) == upload)
        let small = Array(upload.prefix(200_000))
        try write(small, origins.directory + "/small.bin")
        let chunkedUp = try curl(["-x", proxy.proxyURL, "-H", "Transfer-Encoding: chunked",
                                  "--data-binary", "@\(origins.directory)/small.bin", "\(base)/echo"])
        #expect([UInt8](chunkedUp.output) == small)

        // Keep-alive on both sides: two URLs on one curl connection.
        let two = try curl(["-x", proxy.proxyURL, "\(base)/one", "\(base)/two"])
        #expect(String(decoding: two.output, as: UTF8.self) == "ok /oneok /two")

        // Hop-by-hop headers do not reach the origin.
        let seen = try curl(["-x", proxy.proxyURL, "-H", "Connection: X-Hop", "-H", "X-Hop: 1", "-H", "Proxy-Authorization: Basic eDp5",
                             "\(base)/headers"])
        let text = String(decoding: seen.output, as: UTF8.self).lowercased()
        #expect(text.contains("\"via\""))
        #expect(!text.contains("x-hop"))
        #expect(!text.contains("proxy-authorization"))

        // Python's urllib through the proxy.
        guard let python = which("python3") else { throw CLIFailure("python3 is needed") }
        let script = """
        import hashlib, urllib.request
        opener = urllib.request.build_opener(urllib.request.ProxyHandler({"http": "\(proxy.proxyURL)"}))
        print(hashlib.sha256(opener.open("\(base)/bytes?n=123456&seed=5", timeout=20).read()).hexdigest())
        """
        let py = try runProcess(python, ["-c", script], timeout: 40)
        let expected = hexString(DigestAlgorithm.sha256.digest(OriginFixture.expectedBytes(123_456, seed: 5)))
        #expect(String(decoding: py.output, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines) == expected)

        proxy.stop()
        let flows = try proxy.flows()
        #expect(flows.count == 9)
        #expect(flows.allSatisfy { $0.transport == .http && $0.error == nil && $0.source == .proxy })
        let download = flows.first { $0.request?.path == "/bytes" && $0.request?.query == "n=\(tenMB)&seed=3" }
        #expect(download?.response?.bodyTruncated == true)
        #expect(download?.response?.body.count == 1 << 20)
        // Upstream keep-alive: the second request of the curl connection reused the pooled origin connection.
        let first = flows.first { $0.request?.path == "/one" }
        let second = flows.first { $0.request?.path == "/two" }
        #expect(first != nil && second != nil)
        #expect(second?.timings.connect == nil)
        let up = flows.first { $0.request?.method == "POST" && $0.request?.bodyTruncated == true }
        #expect(up?.request?.body == Array(upload.prefix(1 << 20)))
    }

    @Test func httpsIsInterceptedAndLeaksAreFound() throws {
        let origins = try OriginFixture()
        defer { origins.stop() }
        let profile = DeviceProfile(identifiers: [(type: "idfa", value: Self.idfa)])
        let proxy = try ProxyFixture(origins: origins, profile: profile, bodyLimit: 1 << 20)
        let base = "https://localhost:\(origins.httpsPort)"
        let trust = ["-x", proxy.proxyURL, "--cacert", proxy.caPath]

        let query = try curl(trust + ["\(base)/v1/open?advertiserId=\(Self.idfa)&t=1"])
        #expect(query.status == 0)
        #expect(String(decoding: query.output, as: UTF8.self).hasPrefix("ok /v1/open?advertiserId="))
        let json = try curl(trust + ["-H", "Content-Type: application/json",
                                     "--data", "{\"device\":{\"ifa\":\"\(Self.idfa)\"}}", "\(base)/events"])
        #expect(String(decoding: json.output, as: UTF8.self).contains(Self.idfa))
        _ = try curl(trust + ["-H", "X-IDFA: \(Self.idfa.lowercased())", "\(base)/config"])

        // Byte-identical bodies through TLS too: 10 MB down and up.
        let tenMB = 10_000_000
        let down = try curl(trust + ["\(base)/bytes?n=\(tenMB)&seed=4"])
        #expect([UInt8](down.output) == OriginFixture.expectedBytes(tenMB, seed: 4))
        let upload = OriginFixture.expectedBytes(tenMB, seed: 8)
        try write(upload, origins.directory + "/up-tls.bin")
        let echoed = try curl(trust + ["--data-binary", "@\(origins.directory)/up-tls.bin",
                                       "-H", "Content-Type: application/octet-stream", "\(base)/echo"])
        #expect([UInt8](echoed.output) == upload)

        // urllib with an SSL context trusting the proxy's CA.
        guard let python = which("python3") else { throw CLIFailure("python3 is needed") }
        let script = """
        import ssl, urllib.request
        ctx = ssl.create_default_context(cafile="\(proxy.caPath)")
        opener = urllib.request.build_opener(urllib.request.ProxyHandler({"https": "\(proxy.proxyURL)"}),
                                             urllib.request.HTTPSHandler(context=ctx))
        print(opener.open("\(base)/py?gaid=1", timeout=20).read().decode())
        """
        let py = try runProcess(python, ["-c", script], timeout: 40)
        #expect(String(decoding: py.output, as: UTF8.self).hasPrefix("ok /py?gaid=1"))

        proxy.stop()
        let flows = try proxy.flows()
        #expect(flows.count == 6, "\(proxy.console.value)")
        #expect(flows.allSatisfy { $0.transport == .https && $0.tls?.serverName == "localhost" })
        let findings = try proxy.findings()
        let places = Set(findings.filter { $0.type == "idfa" }.map(\.where))
        #expect(places.contains("query:advertiserId"))
        #expect(places.contains { $0.hasPrefix("body") })
        #expect(places.contains { $0.lowercased() == "header:x-idfa" })
        #expect(findings.allSatisfy { $0.transport == "https" && !$0.evidence.contains(Self.idfa) })
        #expect(proxy.console.value.contains("device-id idfa → localhost"))
        // --ssl-keylog: both sides' TLS 1.3 secrets in the NSS key log format.
        let keys = (try? String(contentsOfFile: proxy.keyLogPath, encoding: .utf8)) ?? ""
        #expect(keys.components(separatedBy: "CLIENT_TRAFFIC_SECRET_0 ").count > 2)
    }

    @Test func pinnedClientsAndIgnoredHostsAreRecordedWithTheirSNI() throws {
        let origins = try OriginFixture()
        defer { origins.stop() }
        let proxy = try ProxyFixture(origins: origins, ignoreHosts: ["^localhost$"])
        let intercepted = "https://127.0.0.1:\(origins.httpsPort)"

        // A client that does not trust our CA (as a pinning app would) fails and is recorded.
        let pinned = try curl(["-x", proxy.proxyURL, "--cacert", origins.originCA, "--resolve",
                               "pinned.test:\(origins.httpsPort):127.0.0.1", "\(intercepted)/secret"])
        #expect(pinned.status != 0)

        // An ignored host is tunneled untouched: the client sees the origin's own certificate.
        let ignored = try curl(["-x", proxy.proxyURL, "--cacert", origins.originCA,
                                "https://localhost:\(origins.httpsPort)/bytes?n=50000&seed=2"])
        #expect(ignored.status == 0)
        #expect([UInt8](ignored.output) == OriginFixture.expectedBytes(50_000, seed: 2))

        proxy.stop()
        let flows = try proxy.flows()
        #expect(flows.count == 2)
        let rejected = flows.first { $0.error?.contains("rejected") == true }
        #expect(rejected?.transport == .tlsMetadata)
        #expect(rejected?.request == nil)
        let tunnel = flows.first { $0.tls?.serverName == "localhost" }
        #expect(tunnel?.transport == .tlsMetadata)
        #expect(tunnel?.error == nil)
        #expect(Int(tunnel?.extras["_bytesDown"] ?? "0") ?? 0 > 50_000)
    }

    @Test func upgradedConnectionsAreTunneledPlainAndIntercepted() throws {
        let origins = try OriginFixture()
        defer { origins.stop() }
        let proxy = try ProxyFixture(origins: origins)
        guard let python = which("python3") else { throw CLIFailure("python3 is needed") }
        // A raw client: Upgrade through the proxy (absolute-form, then inside an intercepted CONNECT),
        // then bytes both ways on the upgraded connection.
        let script = """
        import socket, ssl
        def upgrade(sock, target, host):
            sock.sendall(("GET %s HTTP/1.1\\r\\nHost: %s\\r\\nConnection: Upgrade\\r\\nUpgrade: echo\\r\\n\\r\\n" % (target, host)).encode())
            head = b""
            while b"\\r\\n\\r\\n" not in head: head += sock.recv(1)
            assert head.startswith(b"HTTP/1.1 101"), head
            for msg in [b"hello", b"x" * 100000]:
                sock.sendall(msg)
                got = b""
                while len(got) < len(msg): got += sock.recv(65536)
                assert got == msg
            return "ok"
        plain = socket.create_connection(("127.0.0.1", \(proxy.address.port)), timeout=20)
        print(upgrade(plain, "http://127.0.0.1:\(origins.httpPort)/upgrade", "127.0.0.1:\(origins.httpPort)"))
        raw = socket.create_connection(("127.0.0.1", \(proxy.address.port)), timeout=20)
        raw.sendall(b"CONNECT localhost:\(origins.httpsPort) HTTP/1.1\\r\\nHost: localhost:\(origins.httpsPort)\\r\\n\\r\\n")
        head = b""
        while b"\\r\\n\\r\\n" not in head: head += raw.recv(1)
        tls = ssl.create_default_context(cafile="\(proxy.caPath)").wrap_socket(raw, server_hostname="localhost")
        print(upgrade(tls, "/upgrade", "localhost:\(origins.httpsPort)"))
        """
        let run = try runProcess(python, ["-c", script], timeout: 60)
        #expect(String(decoding: run.output, as: UTF8.self) == "ok\nok\n")
        proxy.stop()
        let flows = try proxy.flows()
        #expect(flows.map { $0.response?.status } == [101, 101])
        #expect(Set(flows.map(\.transport)) == [.http, .https])
    }

    @Test func upstreamFailuresAndLoopsAreAnsweredByTheProxy() throws {
        let origins = try OriginFixture()
        defer { origins.stop() }
        let proxy = try ProxyFixture(origins: origins, responseTimeoutMilliseconds: 1000)
        defer { proxy.stop() }
        let codes = ["%{http_code}"]
        func status(_ url: String) throws -> String {
            String(decoding: try curl(["-x", proxy.proxyURL, "-o", "/dev/null", "-w"] + codes + [url]).output, as: UTF8.self)
        }
        // A closed port: refused → 502.
        let closed = try SocketAddressProbe.closedLoopbackPort()
        #expect(try status("http://127.0.0.1:\(closed)/") == "502")
        // The proxy itself → 508.
        #expect(try status("http://127.0.0.1:\(proxy.address.port)/") == "508")
        // An origin that answers after the timeout → 504.
        #expect(try status("http://127.0.0.1:\(origins.httpPort)/slow?s=3") == "504")
        // The onboarding page is served by the proxy.
        let page = try curl(["-x", proxy.proxyURL, "http://mouchard.ca/"])
        #expect(String(decoding: page.output, as: UTF8.self).contains("Mouchard CA"))
        // Direct (non-proxy) request to the proxy → 508.
        let direct = try curl(["-o", "/dev/null", "-w", "%{http_code}", "http://127.0.0.1:\(proxy.address.port)/"])
        #expect(String(decoding: direct.output, as: UTF8.self) == "508")
    }
}

/// Finds a loopback TCP port nobody listens on (bind, read the port, close).
enum SocketAddressProbe {
    static func closedLoopbackPort() throws -> Int {
        let s = try MouchardPosixSocket.listen(on: SocketAddressMaker.loopback(0))
        defer { s.close() }
        return try s.localAddress().port
    }
}

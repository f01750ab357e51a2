import Foundation
import Testing
import MouchardFlow
import MouchardPosix
import MouchardProxy
import MouchardReplay

/// Record through the proxy, then serve the recording (mock) and send it again (replay), on loopback
/// with curl and a raw-logging origin.
@Suite(.serialized) struct ReplayEndToEndTests {
    static let loopback = SocketAddress(ip: "127.0.0.1", port: 0)!

    /// Records three exchanges (plain GET, plain JSON POST, HTTPS GET through CONNECT) through an
    /// intercepting proxy.
    static func record(_ origin: RawOrigin, home: String) throws -> [Flow] {
        let sink = CollectingFlowSink()
        let settings = InterceptionSettings(authorityDirectory: home, upstreamCAFile: origin.originCA)
        let interceptor = try TLSInterceptor(settings: settings)
        let proxy = ProxyServer(configuration: ProxyConfiguration(listen: loopback, threads: 1, interception: settings),
                                sink: sink, interceptor: interceptor)
        let address = try proxy.start()
        defer { proxy.stop() }
        let via = ["-x", "http://\(address)"]
        let base = "http://127.0.0.1:\(origin.httpPort)"
        #expect(try curl(via + ["-H", "X-Order-B: 2", "-H", "X-Order-A: 1", "\(base)/items?b=2&a=1"]).status == 0)
        #expect(try curl(via + ["-H", "Content-Type: application/json", "--data-binary", #"{"user":"ann","n":[1,2]}"#,
                                "\(base)/login"]).status == 0)
        #expect(try curl(via + ["--cacert", interceptor.authority.certificatePath,
                                "https://localhost:\(origin.httpsPort)/secure?q=1"]).status == 0)
        let deadline = Date().addingTimeInterval(10)
        while sink.flows.filter({ $0.response != nil }).count < 3 && Date() < deadline { usleep(10_000) }
        return sink.flows.filter { $0.request != nil }
    }

    @Test func mockServesTheRecordedBodiesByteForByte() throws {
        let origin = try RawOrigin()
        defer { origin.stop() }
        let flows = try Self.record(origin, home: origin.directory + "/proxy-home")
        try #require(flows.count == 3)
        let recorded = flows.map { $0.response?.body ?? [] }

        let sink = CollectingFlowSink()
        let mock = try MockServer(flows: flows, options: MockServer.Options(listen: Self.loopback, authorityDirectory: origin.directory + "/mock-home",
                                                                             threads: 1), sink: sink)
        let address = try mock.start()
        defer { mock.stop() }
        origin.stop()  // the mock must not need the origin
        let port = address.port

        // As an origin: plain HTTP (a request to the mock's own address matches any recorded host)...
        let a = try curl(["-H", "X-Order-B: 2", "http://127.0.0.1:\(port)/items?a=1&b=2"])
        #expect(a.output == recorded[0])
        let b = try curl(["-H", "Content-Type: application/json", "--data-binary", #"{ "n": [1, 2], "user": "ann" }"#,
                          "http://127.0.0.1:\(port)/login"])
        #expect(b.output == recorded[1])
        // ...HTTPS straight to the port, with a leaf for the recorded name from the mock's CA...
        let c = try curl(["--cacert", mock.caCertificatePath, "--resolve", "localhost:\(port):127.0.0.1",
                          "https://localhost:\(port)/secure?q=1"])
        #expect(c.status == 0)
        #expect(c.output == recorded[2])
        // ...and as a forward proxy (CONNECT and intercepted), with --replay-keep off: a second one misses.
        let d = try curl(["-x", "http://\(address)", "--cacert", mock.caCertificatePath, "-w", "\n%{http_code}",
                          "https://localhost:\(origin.httpsPort)/secure?q=1"])
        #expect(String(decoding: d.output, as: UTF8.self).hasSuffix("\n404"))
        // An unmatched request is a 404 naming it, and the mock keeps serving.
        let miss = try curl(["-w", "\n%{http_code}", "http://127.0.0.1:\(port)/nothing?x=1"])
        let missText = String(decoding: miss.output, as: UTF8.self)
        #expect(missText.contains("no recorded response for GET http://127.0.0.1:\(port)/nothing?x=1"))
        #expect(missText.hasSuffix("\n404"))
        let garbage = try curl(["-X", "BREW", "-w", "%{http_code}", "http://127.0.0.1:\(port)/"])
        #expect(String(decoding: garbage.output, as: UTF8.self).hasSuffix("404"))

        mock.stop()
        // Every request, served or missed, was recorded like any proxied exchange.
        let seen = sink.flows
        #expect(seen.count == 6)
        #expect(seen.filter { $0.extras["_replay"]?.hasPrefix("\"served") == true }.count == 3)
        #expect(seen.filter { $0.extras["_replay"]?.hasPrefix("\"missed") == true }.count == 3)
        #expect(seen.contains { $0.transport == .https && $0.request?.path == "/secure" && $0.response?.body == recorded[2] })
        #expect(mock.responses.served == 3)
    }

    @Test func replayToALocalOriginSendsByteIdenticalRequests() throws {
        let origin = try RawOrigin()
        defer { origin.stop() }
        let flows = try Self.record(origin, home: origin.directory + "/proxy-home")
        try #require(flows.count == 3)
        // What the origin received through the proxy, less the proxy's own Via field.
        let viaLine = Array("Via: 1.1 mouchard\r\n".utf8)
        func withoutVia(_ bytes: [UInt8]) -> [UInt8] {
            guard let r = bytes.firstRange(of: viaLine) else { return bytes }
            var b = bytes
            b.removeSubrange(r)
            return b
        }
        let throughProxy = origin.requests().map(withoutVia) + origin.requests(tls: true).map(withoutVia)
        try #require(throughProxy.count == 3)
        origin.clearLogs()

        let plain = flows.filter { $0.request?.scheme == "http" }
        let secure = flows.filter { $0.request?.scheme == "https" }
        let replayer = Replayer(options: Replayer.Options(
            routing: ReplayRouting(to: ReplayRouting.Destination(tls: false, host: "127.0.0.1", port: origin.httpPort)),
            concurrency: 2, compare: true))
        let results = try replayer.run(plain)
        #expect(results.count == 2)
        #expect(results.allSatisfy { !$0.failed && $0.differences.isEmpty })
        let tlsReplayer = Replayer(options: Replayer.Options(
            routing: ReplayRouting(to: ReplayRouting.Destination(tls: true, host: "localhost", port: origin.httpsPort)),
            extraTrustAnchors: [origin.originCA], compare: true))
        let tlsResults = try tlsReplayer.run(secure)
        #expect(tlsResults.count == 1 && tlsResults.allSatisfy { !$0.failed && $0.differences.isEmpty })

        let replayed = origin.requests() + origin.requests(tls: true)
        #expect(replayed.count == 3)
        #expect(Set(replayed) == Set(throughProxy), "replayed:\n\(replayed.map { String(decoding: $0, as: UTF8.self) })\nrecorded:\n\(throughProxy.map { String(decoding: $0, as: UTF8.self) })")

        // Without the test CA, the origin's certificate is refused: TLS is verified.
        let strict = Replayer(options: Replayer.Options(
            routing: ReplayRouting(to: ReplayRouting.Destination(tls: true, host: "localhost", port: origin.httpsPort))))
        let refused = try strict.run(secure)
        #expect(refused.first?.failed == true)
        #expect(refused.first?.replayed.error?.contains("TLS") == true)
    }

    /// `proxy --replay` (a forward proxy only) under each `--replay-miss` choice, with the origin up.
    @Test(arguments: MissPolicy.allCases) func replayingProxyMisses(_ policy: MissPolicy) throws {
        let origin = try RawOrigin()
        defer { origin.stop() }
        let flows = try Self.record(origin, home: origin.directory + "/proxy-home")
        try #require(flows.count == 3)
        origin.clearLogs()
        let sink = CollectingFlowSink()
        let mock = try MockServer(flows: flows, options: MockServer.Options(
            listen: Self.loopback, miss: policy, acceptsOriginRequests: false, authorityDirectory: origin.directory + "/mock-home",
            upstreamCAFile: origin.originCA, threads: 1), sink: sink)
        let address = try mock.start()
        defer { mock.stop() }
        let via = ["-x", "http://\(address)", "--cacert", mock.caCertificatePath, "-w", "\n%{http_code}"]
        // A recorded request is served without the origin hearing of it.
        let hit = try curl(via + ["-H", "X-Order-B: 2", "http://127.0.0.1:\(origin.httpPort)/items?a=1&b=2"])
        #expect(String(decoding: hit.output, as: UTF8.self).hasSuffix("\n200"))
        // A request addressed to the proxy itself is not a mock request here.
        #expect(String(decoding: try curl(["-w", "%{http_code}", "http://\(address)/items?a=1&b=2"]).output, as: UTF8.self).hasSuffix("508"))
        // Unmatched, plain and inside an intercepted tunnel.
        let plain = try curl(via + ["http://127.0.0.1:\(origin.httpPort)/unrecorded"])
        let secure = try curl(via + ["https://localhost:\(origin.httpsPort)/unrecorded-too"])
        for (r, path) in [(plain, "/unrecorded"), (secure, "/unrecorded-too")] {
            let text = String(decoding: r.output, as: UTF8.self)
            switch policy {
            case .notFound:
                #expect(text.hasSuffix("\n404") && text.contains("no recorded response"))
            case .forward:
                #expect(text.hasSuffix("\n200") && text.contains("\"target\": \"\(path)\""))
            case .close:
                #expect(r.status == 52 || r.status == 56, "curl exit \(r.status): \(text)")  // empty reply / connection closed
            }
        }
        let reached = origin.requests().count + origin.requests(tls: true).count
        #expect(reached == (policy == .forward ? 2 : 0))
        mock.stop()
        let notes = sink.flows.compactMap { $0.extras["_replay"] }
        #expect(notes.filter { $0.hasPrefix("\"served") }.count == 1)
        #expect(notes.filter { $0.hasPrefix("\"missed") }.count == 2)
    }
}

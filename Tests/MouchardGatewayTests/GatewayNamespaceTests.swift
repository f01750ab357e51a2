import Foundation
import Testing
import MouchardFindings
import MouchardFlow
import MouchardGateway
import MouchardInspection
import MouchardStore
import MouchardTLS

/// `mouchard gateway` for real, in namespaces (CI runs as root): phone → gateway → internet.
/// Planted IDFA over HTTP and intercepted HTTPS, a client refusing the CA (pinned flow with its
/// SNI), UDP/443 refused, a server-first banner relayed, DNS answers recorded, the loop guard;
/// then SIGTERM undoes everything, and a SIGKILLed run is undone by --cleanup. Finally the same
/// requests through `mouchard proxy` give the same findings.
@Suite(.serialized) struct GatewayNamespaceTests {
    static let idfa = "8C1F6A2E-5B3D-4E7F-A9C1-2D4E6F8A0B13"
    static let watched = ["net.ipv4.ip_forward", "net.ipv4.conf.all.send_redirects", "net.ipv6.conf.all.forwarding"]

    static var mouchard: String {
        var dir = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        if dir.lastPathComponent.hasSuffix(".xctest") { dir = dir.deletingLastPathComponent() }
        for candidate in [dir, dir.deletingLastPathComponent()] {
            let path = candidate.appendingPathComponent("mouchard").path
            if FileManager.default.isExecutableFile(atPath: path) { return path }
        }
        return URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent(".build/debug/mouchard").path
    }

    static var ready: Bool { NamespaceLab.available && FileManager.default.isExecutableFile(atPath: mouchard) }

    /// Test files: the origin CA and certificate, the device profile, the helper scripts.
    struct Files {
        let dir: String
        var originCA: String { dir + "/origin-ca.pem" }
        var home: String { dir + "/home" }
        var mouchardCA: String { home + "/mouchard-ca.pem" }
        var state: String { dir + "/state" }
        var device: String { dir + "/device.json" }
        var phoneScript: String { dir + "/phone.py" }
        var udpLog: String { dir + "/udp443.log" }

        init(host: HostCommands) throws {
            dir = NSTemporaryDirectory() + "mouchard-gateway-e2e-\(UUID().uuidString)"
            try FileManager.default.createDirectory(atPath: dir + "/home", withIntermediateDirectories: true)
            try InternetServices.script.write(toFile: dir + "/internet.py", atomically: true, encoding: .utf8)
            try InternetServices.phoneScript.write(toFile: phoneScript, atomically: true, encoding: .utf8)
            try "{\"identifiers\": {\"idfa\": \"\(GatewayNamespaceTests.idfa)\"}}".write(toFile: device, atomically: true, encoding: .utf8)
            let d = dir
            let steps: [[String]] = [
                ["req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-keyout", "\(d)/ca.key",
                 "-out", "\(d)/origin-ca.pem", "-days", "2", "-subj", "/CN=Mouchard Gateway Test Origin CA"],
                ["req", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-keyout", "\(d)/srv.key",
                 "-out", "\(d)/srv.csr", "-subj", "/CN=api.example.test"],
                ["x509", "-req", "-in", "\(d)/srv.csr", "-CA", "\(d)/origin-ca.pem", "-CAkey", "\(d)/ca.key", "-CAcreateserial",
                 "-out", "\(d)/srv.pem", "-days", "2", "-extfile", "\(d)/ext.cnf"],
            ]
            try "subjectAltName=DNS:api.example.test,DNS:pinned.example.test,DNS:other.example.test\nextendedKeyUsage=serverAuth\n"
                .write(toFile: "\(d)/ext.cnf", atomically: true, encoding: .utf8)
            for s in steps {
                let r = try host.run("openssl", s)
                guard r.status == 0 else { throw LabError("openssl \(s[0]): \(r.output)") }
            }
        }
    }

    /// A running `mouchard gateway` in the gateway namespace, with its stderr collected.
    struct RunningGateway {
        let process: Process
        let stderr: PipeCollector
        let stdout: PipeCollector
        var listenPort: Int? {
            guard let r = stderr.text.range(of: "transparent listener :") else { return nil }
            return Int(stderr.text[r.upperBound...].prefix { $0.isNumber })
        }
    }

    func startGateway(_ lab: NamespaceLab, _ files: Files, session: String) throws -> RunningGateway {
        let err = Pipe(), out = Pipe()
        let p = try lab.spawn(lab.gateway, [Self.mouchard, "gateway", "--phone-side", lab.gatewayPhoneIf,
                                            "--uplink", lab.gatewayUplinkIf, "--session", session, "--device", files.device,
                                            "--upstream-ca", files.originCA, "--home", files.home, "--state-dir", files.state,
                                            "--ports", "80,443,8080,8443,2222", "--threads", "2", "--log-flows"],
                              stdout: out, stderr: err)
        let g = RunningGateway(process: p, stderr: PipeCollector(err), stdout: PipeCollector(out))
        guard g.stderr.wait(for: "SIGTERM stops", seconds: 60) else {
            throw LabError("the gateway did not start: \(g.stderr.text)")
        }
        return g
    }

    func sysctls(_ lab: NamespaceLab) throws -> [String: String] {
        var values: [String: String] = [:]
        for key in Self.watched {
            let r = try lab.run(lab.gateway, ["cat", SysctlPlan.path(of: key)])
            values[key] = r.output.trimmingCharacters(in: .whitespacesAndNewlines)
        }
        return values
    }

    func hasMouchardTable(_ lab: NamespaceLab) throws -> Bool {
        try lab.run(lab.gateway, ["nft", "list", "tables"]).output.contains("inet mouchard")
    }

    func waitForExit(_ p: Process, seconds: Double) -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        while p.isRunning && Date() < deadline { usleep(20_000) }
        return !p.isRunning
    }

    /// The same requests through gateway and proxy: query, JSON body, header, over HTTP and HTTPS.
    func plantedRequests(_ lab: NamespaceLab, _ files: Files, proxy: String?) throws -> [String] {
        let ip = NamespaceLab.internetAddress
        var common = ["curl", "-sS", "--max-time", "20", "--cacert", files.mouchardCA,
                      "--resolve", "api.example.test:80:\(ip)", "--resolve", "api.example.test:443:\(ip)"]
        if let proxy { common += ["-x", proxy] }
        var outputs: [String] = []
        for scheme in ["http", "https"] {
            let base = "\(scheme)://api.example.test"
            outputs.append(try lab.run(lab.phone, common + ["\(base)/v1/open?advertiserId=\(Self.idfa)&t=1"]).output)
            outputs.append(try lab.run(lab.phone, common + ["-H", "Content-Type: application/json",
                                                            "--data", "{\"device\":{\"ifa\":\"\(Self.idfa)\"}}", "\(base)/events"]).output)
            outputs.append(try lab.run(lab.phone, common + ["-H", "X-IDFA: \(Self.idfa.lowercased())", "\(base)/config"]).output)
        }
        return outputs
    }

    struct FindingKey: Hashable { var type: String, where_: String, transport: String, host: String }

    @Test(.enabled(if: GatewayNamespaceTests.ready, "needs root, ip, nft, curl, python3, openssl and a built mouchard (swift build)"),
          .timeLimit(.minutes(5)))
    func gatewayInterceptsRecordsAndUndoesEverything() throws {
        let lab = try NamespaceLab()
        defer { lab.destroy() }
        let files = try Files(host: lab.host)
        defer { try? FileManager.default.removeItem(atPath: files.dir) }
        let services = Pipe()
        try lab.spawn(lab.internet, ["python3", files.dir + "/internet.py", NamespaceLab.internetAddress,
                                     files.dir + "/srv.pem", files.dir + "/srv.key", files.udpLog, NamespaceLab.internetAddress6],
                      stdout: services)
        #expect(PipeCollector(services).wait(for: "ready", seconds: 20))
        let before = try sysctls(lab)

        // Bad input changes nothing: an unknown interface, a nonsensical port list.
        let bad = try lab.run(lab.gateway, [Self.mouchard, "gateway", "--phone-side", "nope0", "--state-dir", files.state])
        #expect(bad.status == 64 && bad.output.contains("no interface 'nope0'"))
        let badPorts = try lab.run(lab.gateway, [Self.mouchard, "gateway", "--phone-side", lab.gatewayPhoneIf,
                                                 "--uplink", lab.gatewayUplinkIf, "--ports", "80,99999", "--state-dir", files.state])
        #expect(badPorts.status == 64 && badPorts.output.contains("--ports"))
        if let setpriv = lab.host.find("setpriv") {
            let notRoot = try lab.run(lab.gateway, [setpriv, "--reuid=65534", "--regid=65534", "--clear-groups", Self.mouchard,
                                                    "gateway", "--phone-side", lab.gatewayPhoneIf, "--uplink", lab.gatewayUplinkIf,
                                                    "--state-dir", files.state])
            #expect(notRoot.status == 1 && notRoot.output.contains("run it as root"), "\(notRoot.output)")
        }
        #expect(try !hasMouchardTable(lab))
        #expect(try sysctls(lab) == before)

        let session = files.dir + "/gateway-session"
        let gw = try startGateway(lab, files, session: session)
        #expect(try hasMouchardTable(lab))
        #expect(try sysctls(lab)["net.ipv4.ip_forward"] == "1")
        // A second gateway while one runs: one clear line, nothing changed.
        let second = try lab.run(lab.gateway, [Self.mouchard, "gateway", "--phone-side", lab.gatewayPhoneIf,
                                               "--uplink", lab.gatewayUplinkIf, "--state-dir", files.state])
        #expect(second.status == 1 && second.output.contains("another gateway is running"), "\(second.output)")

        let dns = try lab.run(lab.phone, ["python3", files.phoneScript, "dns", NamespaceLab.internetAddress, "api.example.test"])
        #expect(dns.output.contains("answer \(NamespaceLab.internetAddress)"), "\(dns.output)")

        // Onboarding: the gateway's own address serves the CA page.
        let onboarding = try lab.run(lab.phone, ["curl", "-sS", "--max-time", "10", "http://\(NamespaceLab.gatewayPhoneAddress)/"])
        #expect(onboarding.output.lowercased().contains("mouchard"), "\(onboarding.output.prefix(300))")

        let replies = try plantedRequests(lab, files, proxy: nil)
        #expect(replies[0].hasPrefix("ok /v1/open?advertiserId="), "\(replies)\n\(gw.stderr.text)")
        #expect(replies[4].contains(Self.idfa), "\(replies)")

        // Intercepted tunnels to the same address and SNI reuse the origin connection once the phone
        // closes its own (one pool per event loop, so at most one origin connection per loop); another
        // SNI at the same address never shares it.
        let ip = NamespaceLab.internetAddress
        func peer(_ name: String) throws -> String {
            try lab.run(lab.phone, ["curl", "-sS", "--max-time", "20", "--cacert", files.mouchardCA,
                                    "--resolve", "\(name):443:\(ip)", "https://\(name)/peer"]).output
        }
        let sameName = try (0..<4).map { _ in try peer("api.example.test") }
        let otherName = try peer("other.example.test")
        #expect(sameName.allSatisfy { $0.hasPrefix("peer ") } && otherName.hasPrefix("peer "), "\(sameName) \(otherName)")
        #expect(Set(sameName).count <= 2, "4 tunnels to one name used \(Set(sameName).count) origin connections: \(sameName)")
        #expect(!sameName.contains(otherName), "another SNI reused a connection: \(sameName) \(otherName)")

        // IPv6: the same interception (IP6T_SO_ORIGINAL_DST), to the original v6 address.
        let v6 = "[\(NamespaceLab.internetAddress6)]"
        let http6 = try lab.run(lab.phone, ["curl", "-sS", "-6", "--max-time", "20", "-g",
                                            "http://\(v6)/v6?advertiserId=\(Self.idfa)"])
        #expect(http6.output.hasPrefix("ok /v6?advertiserId="), "\(http6.output)\n\(gw.stderr.text)")
        let https6 = try lab.run(lab.phone, ["curl", "-sS", "-6", "--max-time", "20", "--cacert", files.mouchardCA,
                                             "--resolve", "api.example.test:443:\(NamespaceLab.internetAddress6)",
                                             "https://api.example.test/v6tls?advertiserId=\(Self.idfa)"])
        #expect(https6.output.hasPrefix("ok /v6tls?advertiserId="), "\(https6.output)\n\(gw.stderr.text)")

        // A client that trusts only the origin's CA refuses Mouchard's leaf: a pinned flow with its SNI.
        let pinned = try lab.run(lab.phone, ["curl", "-sS", "--max-time", "10", "--cacert", files.originCA,
                                             "--resolve", "pinned.example.test:443:\(NamespaceLab.internetAddress)",
                                             "https://pinned.example.test/pinned"])
        #expect(pinned.status != 0)

        let initial = QUICInitialProtection.sealClientInitial(
            destinationConnectionID: [0x4d, 0x4f, 0x55, 0x43, 0x48, 0x41, 0x52, 0x44],
            payload: QUICInitialTests.cryptoFrame(offset: 0, QUICInitialTests.clientHello(serverName: "quic.example.test")[...]))
        try Data(initial).write(to: URL(fileURLWithPath: files.dir + "/initial.bin"))
        let quic = try lab.run(lab.phone, ["python3", files.phoneScript, "quic", NamespaceLab.internetAddress, files.dir + "/initial.bin"])
        #expect(quic.output.contains("refused"), "\(quic.output)")

        // Server-first banners: through the listener (2222 is redirected) and forwarded (2223 is not).
        for port in ["2222", "2223"] {
            let banner = try lab.run(lab.phone, ["python3", files.phoneScript, "banner", NamespaceLab.internetAddress, port])
            #expect(banner.output.contains("banner SSH-2.0-MouchardTestBanner echo hello mouchard"), "\(port): \(banner.output)")
        }

        // Loop guard: the listener itself is refused.
        if let port = gw.listenPort {
            let loop = try lab.run(lab.phone, ["python3", files.phoneScript, "connect", NamespaceLab.gatewayPhoneAddress, String(port)])
            #expect(loop.output.contains("refused") || loop.output.contains("reply b''"), "\(loop.output)")
        } else {
            Issue.record("no listener port in: \(gw.stderr.text)")
        }

        Thread.sleep(forTimeInterval: 0.5)
        kill(gw.process.processIdentifier, SIGTERM)
        #expect(waitForExit(gw.process, seconds: 60), "the gateway did not stop on SIGTERM")
        #expect(gw.process.terminationStatus == 0, "\(gw.stderr.text)")
        #expect(try !hasMouchardTable(lab), "SIGTERM left the table")
        #expect(try sysctls(lab) == before)
        #expect(!FileManager.default.fileExists(atPath: GatewayState.path(in: files.state)))
        let udpLog = (try? String(contentsOfFile: files.udpLog, encoding: .utf8)) ?? ""
        #expect(udpLog.isEmpty, "UDP/443 reached the internet: \(udpLog)")

        // The session.
        let store = try SessionStore(directory: session, create: false)
        let flows = try store.flows()
        let findings = try store.findings()
        let console = gw.stdout.text + gw.stderr.text
        let idfaPlaces = Set(findings.filter { $0.type == "idfa" }.map { "\($0.transport) \($0.where)" })
        for t in ["http", "https"] {
            #expect(idfaPlaces.contains("\(t) query:advertiserId"), "\(idfaPlaces)\n\(console)")
            #expect(idfaPlaces.contains { $0.hasPrefix("\(t) body") }, "\(idfaPlaces)")
            #expect(idfaPlaces.contains { $0.lowercased() == "\(t) header:x-idfa" }, "\(idfaPlaces)")
        }
        #expect(flows.filter { $0.transport == .https }.allSatisfy {
            $0.source == .transparent && ["api.example.test", "other.example.test"].contains($0.tls?.serverName ?? "")
        })
        let v6Flows = flows.filter { $0.request?.url.contains("/v6") == true }
        #expect(v6Flows.count == 2 && v6Flows.allSatisfy { $0.server?.address == NamespaceLab.internetAddress6 && $0.source == .transparent },
                "\(v6Flows.map { "\($0.server?.description ?? "-") \($0.extras)" })")
        #expect(findings.contains { $0.request.url.contains("/v6tls") && $0.transport == "https" })
        // The phone resolved api.example.test to the v4 address only: the v6 connection claiming that
        // name is marked, the v4 ones are not.
        let v6TLS = flows.filter { $0.request?.url.contains("/v6tls") == true }
        #expect(!v6TLS.isEmpty && v6TLS.allSatisfy { $0.extras[DNSNamingSink.nameMismatchKey]?.contains("went to \(NamespaceLab.internetAddress6)") == true },
                "\(v6TLS.map(\.extras))")
        #expect(flows.filter { $0.server?.address == NamespaceLab.internetAddress }.allSatisfy { $0.extras[DNSNamingSink.nameMismatchKey] == nil })
        #expect(gw.stderr.text.contains("did not resolve to (_nameMismatch)"), "\(gw.stderr.text)")
        let pinnedFlow = flows.first { $0.tls?.serverName == "pinned.example.test" }
        #expect(pinnedFlow?.transport == .tlsMetadata && pinnedFlow?.error?.contains("rejected") == true, "\(flows.map(\.host))")
        #expect(pinnedFlow?.server?.address == NamespaceLab.internetAddress)
        let banners = flows.filter { $0.extras["_protocol"] == "\"ssh\"" }
        #expect(Set(banners.compactMap { $0.server?.port }) == [2222, 2223], "\(flows.map { "\($0.host):\($0.server?.port ?? 0) \($0.extras)" })")
        #expect(banners.allSatisfy { Int($0.extras["_bytesDown"] ?? "0") ?? 0 > 20 })
        let quicFlow = flows.first { $0.extras["_transport"] == "\"quic\"" }
        #expect(quicFlow?.server == Endpoint(address: NamespaceLab.internetAddress, port: 443))
        #expect(quicFlow?.tls?.serverName == "quic.example.test" && quicFlow?.host == "quic.example.test")
        #expect(flows.contains { $0.extras["_protocol"] == "\"dns\"" })
        let answers = try store.dnsObservations()
        #expect(answers.contains { $0.name == "api.example.test" && $0.addresses == [NamespaceLab.internetAddress] })
        #expect(FileManager.default.fileExists(atPath: session + "/traffic.pcap"))
        let pcapSize = (try? FileManager.default.attributesOfItem(atPath: session + "/traffic.pcap")[.size] as? Int) ?? 0
        #expect(pcapSize > 10_000)
        // The report names the IP-only destinations from the DNS answers.
        let report = try lab.run(lab.gateway, [Self.mouchard, "report", session, "--out", files.dir + "/report.md"], timeout: 60)
        let markdown = (try? String(contentsOfFile: files.dir + "/report.md", encoding: .utf8)) ?? ""
        #expect(report.status == 0 && markdown.contains("api\\.example\\.test"), "\(report.output)\n\(markdown.prefix(2000))")
        // IP-only flows (banner, QUIC) are named by the phone's DNS answer; the address stays the fact.
        #expect(!markdown.contains("| 10\\.77\\.2\\.2 |"), "\(markdown)")
        #expect(banners.allSatisfy { $0.host == "api.example.test" && $0.server?.address == NamespaceLab.internetAddress })

        // A run killed with SIGKILL: --cleanup restores everything.
        let killed = try startGateway(lab, files, session: files.dir + "/killed-session")
        kill(killed.process.processIdentifier, SIGKILL)
        _ = waitForExit(killed.process, seconds: 10)
        #expect(try hasMouchardTable(lab))
        #expect(try sysctls(lab)["net.ipv4.ip_forward"] == "1")
        let restart = try lab.run(lab.gateway, [Self.mouchard, "gateway", "--phone-side", lab.gatewayPhoneIf,
                                                "--uplink", lab.gatewayUplinkIf, "--state-dir", files.state])
        #expect(restart.status == 1 && restart.output.contains("--cleanup"), "\(restart.output)")
        let cleanup = try lab.run(lab.gateway, [Self.mouchard, "gateway", "--cleanup", "--state-dir", files.state])
        #expect(cleanup.status == 0, "\(cleanup.output)")
        #expect(try !hasMouchardTable(lab))
        #expect(try sysctls(lab) == before)

        // Same findings as the proxy: the same requests through `mouchard proxy` in the gateway namespace
        // (which resolves names itself: `ip netns exec` gives it the namespace's own /etc/hosts).
        try lab.setHosts(lab.gateway, "127.0.0.1 localhost\n\(NamespaceLab.internetAddress) api.example.test\n")
        let proxySession = files.dir + "/proxy-session"
        let perr = Pipe()
        let proxy = try lab.spawn(lab.gateway, [Self.mouchard, "proxy", "--listen", "\(NamespaceLab.gatewayPhoneAddress):3128",
                                                "--allow-remote", "--session", proxySession, "--device", files.device,
                                                "--upstream-ca", files.originCA, "--home", files.home, "--threads", "2"],
                                  stderr: perr)
        let proxyLog = PipeCollector(perr)
        #expect(proxyLog.wait(for: "proxy listening", seconds: 30))
        _ = try plantedRequests(lab, files, proxy: "http://\(NamespaceLab.gatewayPhoneAddress):3128")
        kill(proxy.processIdentifier, SIGTERM)
        #expect(waitForExit(proxy, seconds: 30))
        let proxyFindings = try SessionStore(directory: proxySession, create: false).findings()
        func keys(_ f: [Finding]) -> Set<FindingKey> {
            Set(f.map { FindingKey(type: $0.type, where_: $0.where, transport: $0.transport, host: $0.destination.host) })
        }
        #expect(!proxyFindings.isEmpty, "\(proxyLog.text)")
        #expect(keys(proxyFindings) == keys(findings.filter { $0.destination.host == "api.example.test" }),
                "proxy: \(keys(proxyFindings))\ngateway: \(keys(findings))")
    }
}

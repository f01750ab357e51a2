import Foundation
import MouchardAudit
import MouchardCapture
import MouchardFlow
import MouchardGateway
import MouchardInspection
import MouchardPosix
import MouchardProxy
import MouchardSniffer
import MouchardStore
import MouchardTLS

/// `mouchard gateway`: the box becomes the phone's router. The phone's TCP to the chosen ports is
/// redirected to the transparent proxy (same sessions, interception and live audit as `proxy`),
/// the rest is forwarded and masqueraded, UDP/443 is refused so apps fall back to TCP, and the
/// phone-side interface is captured into the session's traffic.pcap. SIGINT/SIGTERM undo every
/// host change; `--cleanup` undoes what a killed run left.
struct GatewayCommand: MouchardCommand {
    static let spec = CommandSpec(
        name: "gateway",
        abstract: "be the phone's gateway: NAT, transparent interception and packet capture (root)",
        usage: "--phone-side IFACE [--uplink IFACE] [--session S] [--store URL] [--device FILE] [--ports 80,443,...] [--allow-quic] " +
            "[--ignore-host RE]... [--ssl-keylog FILE] [--upstream-ca FILE] | --cleanup",
        discussion: """
        Changes the box (all undone on exit): IPv4/IPv6 forwarding and ICMP redirects (sysctls, saved
        first), and one nftables table, inet mouchard (redirect, masquerade, QUIC reject). Give the phone
        the printed phone-side address as its gateway, install the CA from http://ADDRESS/ on the
        phone, and use the app. A killed run is undone by `mouchard gateway --cleanup`.
        examples:
          sudo mouchard gateway --phone-side wlan1 --device phone.json --session app-test
          sudo mouchard gateway --phone-side eth1 --uplink eth0 --ignore-host '\\.apple\\.com$'
          sudo mouchard gateway --cleanup
        """,
        options: [
            OptionSpec("--phone-side", value: "IFACE", help: "interface the phone is on (hotspot, USB Wi-Fi, second NIC)"),
            OptionSpec("--uplink", value: "IFACE", help: "interface to the internet (default: the default route's)"),
            OptionSpec("--session", value: "S", help: "session name (captures/S) or path (default: gateway-DATE-TIME)"),
            StoreOption.recorderSpec, StoreOption.appSpec, StoreOption.appVersionSpec,
            OptionSpec("--device", value: "FILE", help: "device profile: the phone's identifiers to look for"),
            OptionSpec("--rules", value: "DIR", help: "rule directory (default: $MOUCHARD_RULES, ./Rules, the installed Rules/)"),
            OptionSpec("--first-party", value: "DOMAIN", help: "the app's own domain (not a third party)", repeatable: true),
            OptionSpec("--ports", value: "LIST", help: "TCP ports intercepted (default 80,443,8080,8443; ranges LOW-HIGH)"),
            OptionSpec("--allow-quic", help: "forward UDP/443 instead of refusing it (QUIC stays opaque)"),
            OptionSpec("--ignore-host", value: "RE", help: "tunnel matching hosts untouched (SNI still recorded)", repeatable: true),
            OptionSpec("--ssl-keylog", value: "FILE", help: "write TLS secrets of both sides (NSS key log format)"),
            OptionSpec("--upstream-ca", value: "FILE", help: "extra trust anchor (PEM) for origin certificates"),
            OptionSpec("--home", value: "DIR", help: "CA directory (default $MOUCHARD_HOME or ~/.mouchard)"),
            OptionSpec("--pcap-rotate", value: "MB", help: "start a new traffic.pcap above this size (default 1024 MB)"),
            OptionSpec("--state-dir", value: "DIR", help: "where the saved state lives (default $MOUCHARD_GATEWAY_STATE_DIR or /run/mouchard)"),
            OptionSpec("--threads", value: "N", help: "event loops (default: one per core)"),
            OptionSpec("--cleanup", help: "undo what a killed gateway left (rules, sysctls) and exit"),
            OptionSpec("--quiet", short: "-q", help: "no finding lines (summary only)"),
            OptionSpec("--log-flows", help: "print one line per flow"),
        ],
        minPositionals: 0, maxPositionals: 0)

    static let defaultRotateMegabytes = 1024
    static let flushIntervalNanoseconds: UInt64 = 100_000_000

    static func run(_ args: ParsedArguments, _ io: CommandIO) throws -> Int32 {
        let stateDirectory = args.value("--state-dir").map { ProxyCommand.absolute($0, io) } ?? GatewayState.defaultDirectory()
        let host = GatewayHost(stateDirectory: stateDirectory)
        if args.flag("--cleanup") {
            try requireRootAndNft(host)
            do {
                io.err("mouchard gateway: \(try host.cleanup())\n")
            } catch let e as GatewayError {
                throw CLIError(e.description)
            }
            return 0
        }

        // Every check before anything changes: a bad call leaves the box as it was.
        guard let phoneSide = args.value("--phone-side") else { throw UsageError("gateway needs --phone-side IFACE (or --cleanup)") }
        guard NetworkInterfaces.exists(phoneSide) else {
            throw UsageError("--phone-side: no interface '\(phoneSide)' (interfaces: \(NetworkInterfaces.all().joined(separator: ", ")))")
        }
        guard let uplink = args.value("--uplink") ?? NetworkInterfaces.defaultRouteInterface() else {
            throw UsageError("no default route to take the uplink from: give --uplink IFACE")
        }
        guard NetworkInterfaces.exists(uplink) else {
            throw UsageError("--uplink: no interface '\(uplink)' (interfaces: \(NetworkInterfaces.all().joined(separator: ", ")))")
        }
        guard uplink != phoneSide else { throw UsageError("--phone-side and --uplink are both '\(uplink)': the phone needs its own interface") }
        let ports: [Int]
        do { ports = try PortList.parse(args.value("--ports") ?? GatewayPlan.defaultPorts.map(String.init).joined(separator: ",")) } catch {
            throw UsageError(error.description)
        }
        let ignore = args.all("--ignore-host")
        for pattern in ignore {
            do { _ = try IgnoreHostPattern(pattern) } catch { throw UsageError("--ignore-host '\(pattern)' is not a valid regular expression") }
        }
        var rotateBytes = defaultRotateMegabytes << 20
        if let text = args.value("--pcap-rotate") {
            guard let mb = Int(text), (1...1_048_576).contains(mb) else { throw UsageError("--pcap-rotate wants a size in MB from 1 to 1048576") }
            rotateBytes = mb << 20
        }
        var threads = EventLoopGroup.defaultThreadCount
        if let t = args.value("--threads") {
            guard let n = Int(t), (1...256).contains(n) else { throw UsageError("--threads wants a number from 1 to 256") }
            threads = n
        }
        try requireRootAndNft(host)
        let networks = NetworkInterfaces.networks(of: phoneSide)
        let phoneAddresses = NetworkInterfaces.addresses(of: phoneSide).filter { !$0.isLinkLocal }
        guard !networks.isEmpty, let gatewayAddress = phoneAddresses.first(where: { !$0.isIPv6 }) ?? phoneAddresses.first else {
            throw CLIError("\(phoneSide) has no IP address: give it one (a NetworkManager hotspot does; or `ip addr add 10.42.0.1/24 dev \(phoneSide)`)")
        }
        do { try host.checkNoOtherGateway() } catch let e as GatewayError { throw CLIError(e.description) }

        // Inspection and session, as in proxy mode.
        let setup = try AuditSetup.load(args, io: io)
        let attribution = CachedAttribution(TrackerAttribution(trackers: setup.trackers, firstParty: setup.firstParty, flows: []))
        let inspector = Inspector(rules: setup.rules, profile: setup.profile, attribution: attribution)
        let directory = try SessionFiles.clarifying(io) {
            try SessionStore.resolve(session: args.value("--session") ?? defaultSessionName(), currentDirectory: io.currentDirectory)
        }
        let recorder = try RecorderSession.open(directory: directory, source: "gateway:\(phoneSide)", args,
                                                device: setup.profile?.name, io: io)
        let store = recorder.local
        try SessionFiles.clarifying(io) {
            if let d = args.value("--device") { try store.setMetadata(d, for: SessionStore.MetadataKey.deviceProfile) }
        }
        let settings = InterceptionSettings(authorityDirectory: args.value("--home").map { ProxyCommand.absolute($0, io) } ?? MouchardHome.directory(),
                                            upstreamCAFile: args.value("--upstream-ca").map { ProxyCommand.absolute($0, io) },
                                            keyLogPath: args.value("--ssl-keylog").map { ProxyCommand.absolute($0, io) })
        let interceptor = try TLSInterceptor(settings: settings)
        let statusLine = TerminalProgress.make(io, verb: "gateway", quiet: args.flag("--quiet"))
        let console = statusLine?.printingAbove(io.out) ?? io.out
        let audit = LiveAudit(inspector: inspector, store: recorder.store,
                              console: LiveAudit.Console(quiet: args.flag("--quiet"), logFlows: args.flag("--log-flows"), write: console))

        // The transparent listener (an ephemeral port on every address; the rules name it).
        let sink = DNSNamingSink(audit.sink)
        let server = try startListener(threads: threads, ignore: ignore, settings: settings, interceptor: interceptor,
                                       sink: sink, io: io)
        guard let listenPort = server.boundAddress?.port else { throw CLIError("the transparent listener did not start") }
        let capture: LiveCapture
        let writer: RotatingPcapWriter
        do {
            capture = try LiveCapture(interface: phoneSide)
            writer = try RotatingPcapWriter(path: store.pcapPath, linkType: capture.linkType, maxBytes: rotateBytes,
                                            flushesEachPacket: false)
        } catch {
            server.stop()
            throw CLIError("\(error)")
        }

        // Host changes, last, and undone on every way out from here.
        let plan = GatewayPlan(phoneSide: phoneSide, uplink: uplink, phoneNetworks: networks, ports: ports,
                               listenPort: listenPort, allowQUIC: args.flag("--allow-quic"))
        SignalStop.install()
        let state: GatewayState
        do {
            let applied = try host.apply(plan, session: store.directory)
            state = applied.state
            for w in applied.warnings { io.err("mouchard gateway: warning: \(w)\n") }
        } catch {
            server.stop()
            throw CLIError("\(error) (nothing was left changed)")
        }
        io.err(startText(plan, state: state, gateway: gatewayAddress.address, interceptor: interceptor, store: store, io: io))

        // The capture: every packet to the pcap; DNS answers and unredirected traffic to the session.
        let redirected = Set(ports)
        let extractor = PcapFlowExtractor(collect: false)
        extractor.onFlow = { flow in
            // Connections to redirected ports are the proxy's flows.
            if let port = flow.server?.port, redirected.contains(port) { return }
            var f = flow
            f.id = 0
            sink.record(f)
        }
        var storeFailure: (any Error)?
        extractor.onDNS = { d in
            sink.learn(d)
            do { try recorder.store.append(dns: [d]) } catch { storeFailure = storeFailure ?? error }
        }
        let traffic = GatewayTrafficLog(redirectedPorts: ports)
        traffic.onFlow = { sink.record($0) }
        var captureFailure: (any Error)?
        // The pcap is flushed whenever the capture is idle, and at least every `flushInterval`
        // under load: a crash loses at most that much, without a write per packet.
        var lastFlush = DispatchTime.now().uptimeNanoseconds
        var ticker: StatusTicker?
        if let statusLine {
            ticker = StatusTicker(statusLine) { ProxyCommand.statusText(server.statistics, audit.summary) }
        }
        defer { ticker?.stop() }
        while !SignalStop.requested && storeFailure == nil {
            do {
                let packet = try capture.next()
                let now = DispatchTime.now().uptimeNanoseconds
                if packet == nil || now - lastFlush > Self.flushIntervalNanoseconds {
                    try writer.flush()
                    lastFlush = now
                }
                guard let packet else { continue }
                try writer.write(packet)
                // Redirected connections are the proxy's flows: only the rest is parsed again here.
                if !traffic.process(packet) { extractor.process(packet) }
            } catch {
                captureFailure = error
                break
            }
        }

        // Undo first: the phone must not stay routed through a box that no longer inspects.
        ticker?.stop()
        let problems = host.undo(state)
        server.stop()
        let extraction = extractor.finish()
        traffic.finish()
        writer.close()
        audit.finish()
        var text = "mouchard gateway: "
        text += problems.isEmpty ? "host changes undone (table \(NftablesRules.qualifiedTable) deleted, sysctls restored)\n"
            : "WARNING: could not undo everything: \(problems.joined(separator: "; ")); run `mouchard gateway --cleanup`\n"
        let summary = audit.summary
        text += "mouchard gateway: \(summary.flows) flows, \(summary.findings) findings, \(summary.hosts.count) hosts, "
        text += "\(writer.packetsWritten) packets in \(SessionFiles.display(store.pcapPath, currentDirectory: io.currentDirectory))"
        if !writer.rotatedFiles.isEmpty { text += " (+\(writer.rotatedFiles.count) rotated files)" }
        if let s = server.statistics {
            if s.rejectedCertificates > 0 { text += ", \(s.rejectedCertificates) TLS connections rejected our certificate" }
            if s.refusedConnections > 0 { text += ", \(s.refusedConnections) connections refused (not redirected, or to the listener itself)" }
        }
        if sink.nameMismatches > 0 {
            text += ", \(sink.nameMismatches) flows went to an address their name (SNI or Host) did not resolve to (_nameMismatch)"
        }
        text += "\n"
        for w in extraction.warnings { text += "mouchard gateway: capture warning: \(w)\n" }
        text += recorder.finish(io: io) ?? ""
        io.err(text)
        if let captureFailure { throw CLIError("capture on \(phoneSide) failed: \(captureFailure)") }
        if let storeFailure { throw CLIError("session store: \(storeFailure)") }
        return problems.isEmpty ? 0 : 1
    }

    static func requireRootAndNft(_ host: GatewayHost) throws {
        guard geteuid() == 0 else {
            throw CLIError("the gateway changes nftables rules and sysctls: run it as root (sudo mouchard gateway ...)")
        }
        guard host.commands.find("nft") != nil else { throw CLIError("nft is not installed: apt-get install nftables") }
    }

    /// The transparent proxy on 0.0.0.0 and [::] (same ephemeral port; IPv6 skipped when the box has none).
    static func startListener(threads: Int, ignore: [String], settings: InterceptionSettings, interceptor: TLSInterceptor,
                              sink: any FlowSink, io: CommandIO) throws -> ProxyServer {
        var lastError: (any Error)?
        for withIPv6 in [true, false] {
            var configuration = ProxyConfiguration(listen: SocketAddress(ip: "0.0.0.0", port: 0)!, threads: threads,
                                                   ignoreHosts: ignore, interception: settings)
            configuration.transparent = true
            if withIPv6 { configuration.additionalListen = [SocketAddress(ip: "::", port: 0)!] }
            configuration.log = { io.err($0 + "\n") }
            let server = ProxyServer(configuration: configuration, sink: sink, interceptor: interceptor,
                                     localResponder: interceptor.onboardingResponder)
            do {
                try server.start()
                return server
            } catch {
                lastError = error
            }
        }
        throw CLIError("cannot start the transparent listener: \(lastError.map { "\($0)" } ?? "unknown error")")
    }

    static func startText(_ plan: GatewayPlan, state: GatewayState, gateway: String, interceptor: TLSInterceptor,
                          store: SessionStore, io: CommandIO) -> String {
        var s = "mouchard gateway: phone side \(plan.phoneSide) (\(plan.phoneNetworks.map(\.description).joined(separator: ", "))), uplink \(plan.uplink)\n"
        s += "mouchard gateway: changed: nftables table \(NftablesRules.qualifiedTable) (TCP \(plan.ports.map(String.init).joined(separator: ",")) → "
        s += "transparent listener :\(plan.listenPort); masquerade to \(plan.uplink); "
        s += plan.allowQUIC ? "QUIC allowed)" : "UDP/443 refused with ICMP port unreachable)"
        for c in state.sysctls { s += "; \(c.key) \(c.previous)→\(c.wanted)" }
        s += "\nmouchard gateway: on the phone: gateway (router) \(gateway), DNS \(gateway) if a resolver listens there " +
            "(dnsmasq, NetworkManager's hotspot), else any resolver: every DNS answer is recorded\n"
        s += "mouchard gateway: CA \(interceptor.authority.certificatePath)\(interceptor.authority.wasCreated ? " (created now)" : ""): " +
            "on the phone open http://\(gateway.contains(":") ? "[\(gateway)]" : gateway)/ and install it (iOS: then trust it in " +
            "Settings > General > About > Certificate Trust Settings)\n"
        s += "mouchard gateway: session \(SessionFiles.display(store.directory, currentDirectory: io.currentDirectory)); " +
            "Ctrl-C or SIGTERM stops and undoes everything (after a crash: mouchard gateway --cleanup)\n"
        return s
    }

    static func defaultSessionName() -> String {
        "gateway-" + String(ProxyCommand.defaultSessionName().dropFirst("proxy-".count))
    }
}

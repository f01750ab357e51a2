import Foundation
import MouchardAudit
import MouchardGateway
import MouchardInspection
import MouchardPosix
import MouchardProxy
import MouchardReplay
import MouchardStore
import MouchardTLS

/// `mouchard proxy`: the intercepting forward proxy with the live audit. Runs until SIGINT/SIGTERM,
/// then flushes the session and prints a summary.
struct ProxyCommand: MouchardCommand {
    static let spec = CommandSpec(
        name: "proxy",
        abstract: "run the intercepting HTTP(S) proxy and report leaks live",
        usage: "[--listen 127.0.0.1:8080] [--device FILE] [--session S] [--store URL] [--ignore-host RE]... [--ssl-keylog FILE] [--threads N] [--replay SOURCE [--replay-miss 404|forward|close]]",
        discussion: """
        Point the test phone's proxy setting at the listen address and install the CA from
        http://mouchard.ca/ (through the proxy). Each finding prints one line as it happens; every
        exchange is stored in the session (captures/NAME/session.sqlite).
        examples:
          mouchard proxy --device phone.json --session app-test
          mouchard proxy --listen 0.0.0.0:8080 --allow-remote --ignore-host '\\.apple\\.com$'
          mouchard proxy --listen 0.0.0.0:8080 --allow-remote --allow-client 192.168.1.0/24 --proxy-auth audit:secret
        """,
        options: [
            OptionSpec("--listen", value: "ADDR:PORT", help: "address to listen on (default 127.0.0.1:8080)"),
            OptionSpec("--replay", value: "SOURCE", help: "answer from the recorded exchanges of SOURCE (HAR, capture, session) before going upstream"),
        ] + ReplayOptions.sourceOptions + ReplayOptions.matchingOptions + commonOptions)

    /// The options `proxy` and `mock` share.
    static let commonOptions: [OptionSpec] = [
            OptionSpec("--device", value: "FILE", help: "device profile: the phone's identifiers to look for"),
            OptionSpec("--session", value: "S", help: "session name (captures/S) or path (default: proxy-DATE-TIME)"),
            StoreOption.recorderReaderSpec, StoreOption.appSpec, StoreOption.appVersionSpec,
            OptionSpec("--rules", value: "DIR", help: "rule directory (default: $MOUCHARD_RULES, ./Rules, the installed Rules/)"),
            OptionSpec("--first-party", value: "DOMAIN", help: "the app's own domain (not a third party)", repeatable: true),
            OptionSpec("--ignore-host", value: "RE", help: "tunnel matching hosts untouched (SNI still recorded)", repeatable: true),
            OptionSpec("--ssl-keylog", value: "FILE", help: "write TLS secrets of both sides (NSS key log format)"),
            OptionSpec("--threads", value: "N", help: "event loops (default: one per core)"),
            OptionSpec("--home", value: "DIR", help: "CA directory (default $MOUCHARD_HOME or ~/.mouchard)"),
            OptionSpec("--upstream-ca", value: "FILE", help: "extra trust anchor (PEM) for origin certificates"),
            OptionSpec("--insecure-upstream", help: "do not verify origin certificates (dangerous)"),
            OptionSpec("--no-http2", help: "speak HTTP/1.1 only to clients (default: h2 when the client and the origin both choose it)"),
            OptionSpec("--upstream-timeout", value: "SECONDS", help: "answer 504 when an origin is silent this long (default 30)"),
            OptionSpec("--allow-remote", help: "allow listening on a non-loopback address"),
            OptionSpec("--allow-client", value: "CIDR", help: "with --allow-remote: clients allowed (default: the listening interface's networks)",
                       repeatable: true),
            OptionSpec("--proxy-auth", value: "USER:PASS", help: "requests must carry these credentials (407 otherwise)"),
            OptionSpec("--no-store", help: "do not write a session (inspect and print only)"),
            OptionSpec("--quiet", short: "-q", help: "no finding lines (summary only)"),
            OptionSpec("--log-flows", help: "print one line per exchange"),
        ]

    static func run(_ args: ParsedArguments, _ io: CommandIO) throws -> Int32 {
        try serve(args, io, replaySource: args.value("--replay"), mock: false)
    }

    /// The proxy, or with `replaySource` the replaying proxy (`proxy --replay`) or the mock (`mock`:
    /// also an origin, default port 8081).
    static func serve(_ args: ParsedArguments, _ io: CommandIO, replaySource: String?, mock: Bool) throws -> Int32 {
        if replaySource == nil {
            for name in ["--flows", "--replay-miss", "--replay-keep", "--ignore-param", "--ignore-body", "--max-body"]
            where args.values[name] != nil || args.flag(name) {
                throw UsageError("\(name) goes with --replay SOURCE")
            }
        }
        let listenText = args.value("--listen") ?? (mock ? "127.0.0.1:8081" : "127.0.0.1:8080")
        guard let listen = SocketAddress(parsing: listenText) else {
            throw UsageError("--listen wants a numeric ADDRESS:PORT such as 127.0.0.1:8080 or [::1]:8080, not '\(listenText)'")
        }
        let access = try clientAccess(args, listen: listen)
        if !listen.isLoopback {
            guard args.flag("--allow-remote") else {
                throw UsageError("--listen \(listenText) is not a loopback address: add --allow-remote to accept the risk")
            }
            let who = access.networks.map(\.description).joined(separator: ", ")
            io.err("mouchard: warning: listening on \(listen): clients from \(who) can use the proxy " +
                   (access.credentials == nil ? "without a password (see --proxy-auth)" : "with the --proxy-auth credentials") +
                   " and will see the CA onboarding page; use it on a trusted network only\n")
        }
        var threads = EventLoopGroup.defaultThreadCount
        if let t = args.value("--threads") {
            guard let n = Int(t), (1...256).contains(n) else { throw UsageError("--threads wants a number from 1 to 256") }
            threads = n
        }
        var upstreamTimeout: UInt64 = 30_000
        if let t = args.value("--upstream-timeout") {
            guard let s = Double(t), s >= 0.1, s <= 86_400 else { throw UsageError("--upstream-timeout wants seconds from 0.1 to 86400, not '\(t)'") }
            upstreamTimeout = UInt64(s * 1000)
        }
        if args.flag("--insecure-upstream") {
            io.err("mouchard: WARNING: --insecure-upstream: origin certificates are NOT verified; " +
                   "anyone on the path to the origins can read and change this traffic\n")
        }
        let ignore = args.all("--ignore-host")
        for pattern in ignore {
            do { _ = try IgnoreHostPattern(pattern) } catch { throw UsageError("--ignore-host '\(pattern)' is not a valid regular expression") }
        }

        // Answering from recordings (checked before anything listens).
        var replay: (serving: ReplayServing, responses: RecordedResponses, line: String)?
        if let replaySource {
            replay = try ReplayOptions.serving(replaySource, args, io: io, acceptsOrigin: mock, listenIP: listen.ip)
        }

        // Inspection: the same rules, tracker directory and device profile loading as scan and report.
        let setup = try AuditSetup.load(args, io: io)
        let attribution = CachedAttribution(TrackerAttribution(trackers: setup.trackers, firstParty: setup.firstParty, flows: []))
        let inspector = Inspector(rules: setup.rules, profile: setup.profile, attribution: attribution)

        // Session store: the local session, and with --store its upload to the fleet store.
        var recorder: RecorderSession?
        if !args.flag("--no-store") {
            let name = args.value("--session") ?? defaultSessionName(mock ? "mock" : (replay != nil ? "replay-proxy" : "proxy"))
            let directory = try SessionStore.resolve(session: name, currentDirectory: io.currentDirectory)
            recorder = try RecorderSession.open(directory: directory, source: mock ? "mock" : "proxy", args,
                                                device: setup.profile?.name, io: io)
        } else if args.value("--store") != nil {
            throw UsageError("--store uploads the session: it does not go with --no-store")
        }

        // TLS interception.
        let settings = InterceptionSettings(authorityDirectory: args.value("--home").map { absolute($0, io) } ?? MouchardHome.directory(),
                                            upstreamCAFile: args.value("--upstream-ca").map { absolute($0, io) },
                                            insecureUpstream: args.flag("--insecure-upstream"),
                                            keyLogPath: args.value("--ssl-keylog").map { absolute($0, io) })
        let interceptor = try TLSInterceptor(settings: settings)

        let statusLine = TerminalProgress.make(io, verb: mock ? "mock" : "proxy", quiet: args.flag("--quiet"))
        let console = statusLine?.printingAbove(io.out) ?? io.out
        let audit = LiveAudit(inspector: inspector, store: recorder?.store,
                              console: LiveAudit.Console(quiet: args.flag("--quiet"), logFlows: args.flag("--log-flows"),
                                                         write: console))
        var configuration = ProxyConfiguration(listen: listen, threads: threads, ignoreHosts: ignore,
                                               responseTimeoutMilliseconds: upstreamTimeout, interception: settings)
        configuration.access = access
        configuration.http2 = !args.flag("--no-http2")
        configuration.replay = replay?.serving
        let server = ProxyServer(configuration: configuration, sink: audit.sink, interceptor: interceptor,
                                 localResponder: interceptor.onboardingResponder)

        let stop = ShutdownSignal()
        let bound = try server.start()
        io.err("mouchard: \(mock ? "mock" : "proxy") listening on \(bound) (\(threads) event loop\(threads == 1 ? "" : "s"))\n")
        if let replay { io.err("mouchard: \(replay.line)\n") }
        io.err("mouchard: CA \(interceptor.authority.certificatePath)" +
               (interceptor.authority.wasCreated ? " (created now)" : "") +
               "; install it from http://mouchard.ca/ through the proxy\n")
        if let recorder { io.err("mouchard: session \(recorder.local.directory)\n") }
        var ticker: StatusTicker?
        if let statusLine { ticker = StatusTicker(statusLine) { statusText(server.statistics, audit.summary) } }
        stop.wait()
        ticker?.stop()
        io.err("mouchard: stopping...\n")
        server.stop()
        audit.finish()
        let upload = recorder?.finish(io: io)
        let summary = audit.summary
        var text = "mouchard: \(summary.flows) flow\(summary.flows == 1 ? "" : "s"), \(summary.findings) finding"
        text += summary.findings == 1 ? "" : "s"
        if !summary.findingsByCategory.isEmpty {
            text += " (" + summary.findingsByCategory.sorted { $0.key.rawValue < $1.key.rawValue }.map { "\($0.key): \($0.value)" }.joined(separator: ", ") + ")"
        }
        text += ", \(summary.hosts.count) host\(summary.hosts.count == 1 ? "" : "s")"
        if let s = server.statistics, s.rejectedCertificates > 0 {
            text += ", \(s.rejectedCertificates) TLS connection\(s.rejectedCertificates == 1 ? "" : "s") rejected our certificate"
        }
        if let s = server.statistics, s.refusedConnections > 0 {
            text += ", \(s.refusedConnections) connection\(s.refusedConnections == 1 ? "" : "s") refused (client not allowed)"
        }
        if let s = server.statistics, s.unauthorizedRequests > 0 {
            text += ", \(s.unauthorizedRequests) request\(s.unauthorizedRequests == 1 ? "" : "s") refused (407: no valid credentials)"
        }
        let dropped = audit.sink.counts.dropped
        if dropped > 0 { text += ", \(dropped) flows NOT recorded (the audit fell behind)" }
        if let r = replay?.responses { text += "; \(r.served) served from the recordings, \(r.missed) missed" }
        if let recorder { text += "; session \(recorder.local.directory)" }
        io.err(text + "\n" + (upload ?? ""))
        return 0
    }

    /// The status line of a running proxy: `12 connections, 340 flows, 5 findings, 12.3 MB`.
    static func statusText(_ statistics: ProxyStatistics.Snapshot?, _ summary: LiveAudit.Summary) -> String {
        let s = statistics
        var text = "\(s?.acceptedConnections ?? 0) connections, \(summary.flows) flows, \(summary.findings) findings"
        text += ", \(ProgressText.size(s?.bytes ?? 0))"
        if let refused = s?.refusedConnections, refused > 0 { text += ", \(refused) refused" }
        return text
    }

    /// `--allow-client` and `--proxy-auth`. A proxy listening beyond loopback serves, by default,
    /// the networks of the interface that holds the listening address (every interface's for
    /// 0.0.0.0 or ::), never the whole Internet.
    static func clientAccess(_ args: ParsedArguments, listen: SocketAddress) throws -> ClientAccess {
        var networks: [ClientAccess.Network] = []
        for text in args.all("--allow-client") {
            guard let n = ClientAccess.Network(cidr: text) else {
                throw UsageError("--allow-client wants an address or network such as 192.168.1.0/24 or fd00::/8, not '\(text)'")
            }
            networks.append(n)
        }
        if networks.isEmpty && !listen.isLoopback {
            networks = listeningNetworks(listen)
            guard !networks.isEmpty else {
                throw UsageError("no network found for \(listen.ip): name the clients allowed with --allow-client CIDR")
            }
        }
        var credentials: String?
        if let auth = args.value("--proxy-auth") {
            guard let colon = auth.firstIndex(of: ":"), colon != auth.startIndex, auth.index(after: colon) != auth.endIndex else {
                throw UsageError("--proxy-auth wants USER:PASSWORD, both non-empty")
            }
            credentials = auth
        }
        return ClientAccess(networks: networks, credentials: credentials)
    }

    /// The networks of the interface(s) holding `listen`'s address (all interfaces for an unspecified address).
    static func listeningNetworks(_ listen: SocketAddress) -> [ClientAccess.Network] {
        var out: [ClientAccess.Network] = []
        for interface in NetworkInterfaces.all() {
            let addresses = NetworkInterfaces.addresses(of: interface)
            guard listen.isUnspecified || addresses.contains(where: { $0.address == listen.ip }) else { continue }
            for a in addresses where !a.isLinkLocal {
                if let n = ClientAccess.Network(cidr: "\(a.address)/\(a.prefixLength)"), !out.contains(n) { out.append(n) }
            }
        }
        return out
    }

    static func absolute(_ path: String, _ io: CommandIO) -> String {
        path.hasPrefix("/") ? path : io.currentDirectory + "/" + path
    }

    static func defaultSessionName(_ prefix: String = "proxy") -> String {
        let f = DateFormatter()
        f.locale = Locale(identifier: "en_US_POSIX")
        f.dateFormat = "yyyyMMdd-HHmmss"
        return prefix + "-" + f.string(from: Date())
    }
}

/// Blocks until SIGINT or SIGTERM arrives. The handlers are in place when `init` returns (a signal
/// sent as soon as the command says it listens is never lost, as it could be while a dispatch signal
/// source was still being registered), and `wait` checks their flag every 50 ms.
struct ShutdownSignal {
    static let pollMicroseconds: UInt32 = 50_000

    init() { SignalStop.install() }

    func wait() {
        while !SignalStop.requested { usleep(Self.pollMicroseconds) }
    }
}

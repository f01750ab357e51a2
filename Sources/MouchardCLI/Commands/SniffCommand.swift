import Foundation
import MouchardAudit
import MouchardFindings
import MouchardFlow
import MouchardInspection
import MouchardSniffer
import MouchardStore
import Synchronization

/// `mouchard sniff -i IFACE`: live capture; one line per finding as it happens; with --session,
/// flows, findings and DNS answers go to the session store and every packet to its traffic.pcap
/// (flushed per packet). Ctrl-C or SIGTERM stops it: the pcap is flushed, the session closed, and
/// the summary printed.
struct SniffCommand: MouchardCommand {
    static let spec = CommandSpec(
        name: "sniff",
        abstract: "capture live on an interface and report leaks as they happen (cleartext HTTP, DNS, TLS SNI)",
        usage: "-i IFACE [--filter BPF] [--session S [--store URL]] [--device FILE] [--rules DIR] [--promiscuous] [--duration SECONDS]",
        discussion: """
        Needs capture rights (root or CAP_NET_RAW). HTTP/1.x is found by content on any port;
        encrypted connections are listed by their TLS server name (SNI) and DNS names.
        Stop with Ctrl-C (or SIGTERM): the summary of destinations follows.

        examples:
          sudo mouchard sniff -i wlan0 --session phone-test --device device.json
          sudo mouchard sniff -i any --filter 'host 192.168.4.20'
        """,
        options: [
            OptionSpec("--interface", short: "-i", value: "IFACE", help: "interface to capture on (e.g. eth0, wlan0, any, lo)"),
            OptionSpec("--filter", value: "BPF", help: "capture filter in tcpdump syntax, checked before starting"),
            OptionSpec("--session", value: "S", help: "session to record into (captures/S/: session.sqlite, traffic.pcap)"),
            StoreOption.recorderSpec, StoreOption.appSpec, StoreOption.appVersionSpec,
            OptionSpec("--device", value: "FILE", help: "device profile (JSON) whose values to look for"),
            OptionSpec("--rules", value: "DIR", help: "rule directory (default: $MOUCHARD_RULES, ./Rules, the installed Rules/)"),
            OptionSpec("--first-party", value: "DOMAIN", help: "a domain of the app's own company", repeatable: true),
            OptionSpec("--promiscuous", help: "capture in promiscuous mode"),
            OptionSpec("--duration", value: "SECONDS", help: "stop by itself after this many seconds"),
            OptionSpec("--keylog", value: "FILE", help: "TLS key log to follow while capturing (decrypts TLS as its lines appear)"),
            OptionSpec("--quiet", short: "-q", help: "no finding lines and no status line (summary only)"),
        ],
        minPositionals: 0, maxPositionals: 0)

    static func run(_ args: ParsedArguments, _ io: CommandIO) throws -> Int32 {
        guard let interface = args.value("--interface") else { throw UsageError("sniff needs -i IFACE") }
        var deadline: Date?
        if let d = args.value("--duration") {
            guard let seconds = Double(d), seconds > 0 else { throw UsageError("--duration must be a positive number of seconds") }
            deadline = Date().addingTimeInterval(seconds)
        }
        // The same rules, tracker directory and device profile as scan, report and proxy.
        let setup = try AuditSetup.load(args, io: io)
        let attribution = CachedAttribution(TrackerAttribution(trackers: setup.trackers, firstParty: setup.firstParty, flows: []))
        let inspector = Inspector(rules: setup.rules, profile: setup.profile, attribution: attribution)
        if args.value("--store") != nil, args.value("--session") == nil {
            throw UsageError("--store uploads the session: give --session S too")
        }
        let recorder = try args.value("--session").map { name in
            try RecorderSession.open(directory: try SessionFiles.clarifying(io) {
                try SessionStore.resolve(session: name, currentDirectory: io.currentDirectory)
            }, source: "sniffer:\(interface)", args, device: setup.profile?.name, io: io)
        }
        let store = recorder?.store
        let pcapPath = recorder?.local.pcapPath
        let directory = recorder?.local.directory

        let sniffer: LiveSniffer
        do {
            sniffer = try LiveSniffer(interface: interface, filter: args.value("--filter"),
                                      promiscuous: args.flag("--promiscuous"), pcapPath: pcapPath,
                                      keyLog: args.value("--keylog").map { SessionFiles.absolute($0, currentDirectory: io.currentDirectory) })
        } catch {
            throw CLIError("\(error)")
        }
        if let store, let d = args.value("--device") {
            try SessionFiles.clarifying(io) { try store.setMetadata(d, for: SessionStore.MetadataKey.deviceProfile) }
        }
        let quiet = args.flag("--quiet")
        let statusLine = TerminalProgress.make(io, verb: "sniff", quiet: quiet)
        var findingsCount = 0
        var flowsCount = 0
        var storeFailure: (any Error)?
        sniffer.onFlow = { flow in
            flowsCount += 1
            var stored = flow
            if let store {
                do { stored.id = try store.append(flow) } catch { storeFailure = storeFailure ?? error }
            }
            let found = inspector.inspect(stored)
            if !quiet {
                for f in found {
                    if let statusLine { statusLine.printAbove { io.out(line(f)) } } else { io.out(line(f)) }
                }
            }
            findingsCount += found.count
            if let store, !found.isEmpty {
                do { try store.append(findings: found) } catch { storeFailure = storeFailure ?? error }
            }
        }
        sniffer.onDNS = { observation in
            guard let store else { return }
            do { try store.append(dns: [observation]) } catch { storeFailure = storeFailure ?? error }
        }
        SignalStop.install()
        io.err("mouchard: sniffing on \(interface)\(args.value("--filter").map { " (filter: \($0))" } ?? "")"
               + "\(directory.map { ", recording into \(SessionFiles.display($0, currentDirectory: io.currentDirectory))" } ?? ""); Ctrl-C to stop\n")
        var lastStatus = Date()
        let result = try sniffer.run {
            if let statusLine, Date().timeIntervalSince(lastStatus) >= 1 {
                lastStatus = Date()
                statusLine.status("\(sniffer.packetsSeen) packets, \(flowsCount) flows, \(findingsCount) findings, " +
                                  ProgressText.size(sniffer.bytesSeen))
            }
            return SignalStop.requested || storeFailure != nil || (deadline.map { Date() >= $0 } ?? false)
        }
        statusLine?.finish()
        let upload = recorder?.finish(io: io)
        if let storeFailure { throw CLIError("session store: \(storeFailure)") }
        var s = "\nmouchard sniff: \(result.statistics.packets) packets, \(flowsCount) flows (\(result.statistics.httpRequests) HTTP requests, \(result.statistics.tlsClientHellos) TLS handshakes, \(result.statistics.quicInitials) QUIC Initials), \(findingsCount) findings\n"
        if let directory {
            s += "session: \(SessionFiles.display(directory, currentDirectory: io.currentDirectory)) (\(sniffer.packetsWritten) packets in \(SessionStore.pcapFileName))\n"
        }
        s += upload ?? ""
        for w in result.warnings { s += "warning: \(w)\n" }
        s += CaptureDestinationsText.render(result.destinations)
        io.out(s)
        return 0
    }

    /// One finding as a console line: what leaked, to whom, where and how. The URL is shown
    /// without its query (which may hold the full value); the evidence is masked by the inspector.
    static func line(_ f: Finding) -> String {
        let who = f.destination.tracker.map { " (\($0))" } ?? ""
        let url = f.request.url.split(separator: "?", maxSplits: 1).first.map(String.init) ?? f.request.url
        return "\(f.category) \(f.type) → \(f.destination.host)\(who)  \(f.request.method) \(url.prefix(120))  \(f.where) [\(f.encoding)] \(f.evidence)\n"
    }
}

/// Ctrl-C and SIGTERM set a flag that the capture loop checks (within its 100 ms poll).
enum SignalStop {
    static let flag = Atomic<Bool>(false)

    static var requested: Bool { flag.load(ordering: .relaxed) }

    static func install() {
        flag.store(false, ordering: .relaxed)
        signal(SIGINT) { _ in SignalStop.flag.store(true, ordering: .relaxed) }
        signal(SIGTERM) { _ in SignalStop.flag.store(true, ordering: .relaxed) }
        // A parent may have spawned us with these signals blocked: unblock them.
        var set = sigset_t()
        sigemptyset(&set)
        sigaddset(&set, SIGINT)
        sigaddset(&set, SIGTERM)
        pthread_sigmask(SIG_UNBLOCK, &set, nil)
    }
}

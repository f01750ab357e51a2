import Foundation
import MouchardFlow
import MouchardReplay
import MouchardStore

/// `mouchard replay SOURCE`: sends recorded requests again and records (and compares) the new exchanges.
struct ReplayCommand: MouchardCommand {
    static let spec = CommandSpec(
        name: "replay",
        abstract: "send recorded requests again, record the new exchanges, compare the responses",
        usage: "SOURCE [--flows IDS] [--to URL | --host-map A=B]... [--concurrency N] [--session OUT] [--compare] [--fail-on-diff] [--ignore-field PATH]... [--insecure]",
        discussion: """
        Each request goes out as recorded: method, target, headers in their order, body bytes; only the
        hop-by-hop fields and Content-Length are recomputed. --to and --host-map change where the
        connection goes, not the request (its Host stays as recorded); TLS is verified against the
        host connected to (--upstream-ca adds a trust anchor, --insecure turns verification off).
        --compare compares each response with the recorded one: status, headers (not Date nor the
        framing fields), body (JSON member by member). --ignore-field leaves out header:NAME, a JSON
        path ($.meta.time, $.items[*].id) or a member name at any depth. Exit 3 with --fail-on-diff
        when a response differs or a request failed.
        examples:
          mouchard replay captures/app-1.2 --flows 3,5-9 --to http://127.0.0.1:8000 --compare
          mouchard replay app.har --host-map api.example.com=staging.example.com --fail-on-diff --ignore-field header:etag
        """,
        options: ReplayOptions.sourceOptions + [
            OptionSpec("--to", value: "URL", help: "connect every request to this origin (scheme://host[:port])"),
            OptionSpec("--host-map", value: "A=B", help: "connect requests for host A to B (host[:port] or a URL)", repeatable: true),
            OptionSpec("--concurrency", value: "N", help: "requests in flight at once (default 8)"),
            OptionSpec("--session", value: "OUT", help: "session to record the new exchanges in (default replay-DATE-TIME)"),
            OptionSpec("--no-store", help: "do not record a session"),
            StoreOption.recorderReaderSpec, StoreOption.appSpec, StoreOption.appVersionSpec,
            OptionSpec("--compare", help: "compare each response with the recorded one"),
            OptionSpec("--fail-on-diff", help: "exit 3 when a response differs or a request failed (implies --compare)"),
            OptionSpec("--ignore-field", value: "PATH", help: "leave out of the comparison: header:NAME, $.json.path, or a member name", repeatable: true),
            OptionSpec("--insecure", help: "do not verify origin certificates"),
            OptionSpec("--upstream-ca", value: "FILE", help: "extra trust anchor (PEM) for origin certificates"),
            OptionSpec("--timeout", value: "SECONDS", help: "per-request response timeout (default 30)"),
            OptionSpec("--log-flows", help: "print one line per replayed request"),
        ],
        minPositionals: 1, maxPositionals: 1)

    static func run(_ args: ParsedArguments, _ io: CommandIO) throws -> Int32 {
        var routing = ReplayRouting()
        if let to = args.value("--to") {
            guard let d = ReplayRouting.Destination(parsing: to), d.tls != nil else {
                throw UsageError("--to wants a URL such as http://127.0.0.1:8000 or https://staging.example.com, not '\(to)'")
            }
            routing.to = d
        }
        for entry in args.all("--host-map") {
            guard let (from, d) = ReplayRouting.hostMapEntry(entry) else {
                throw UsageError("--host-map wants HOST=HOST[:PORT] or HOST=URL, not '\(entry)'")
            }
            routing.hostMap[from] = d
        }
        if routing.to != nil && !routing.hostMap.isEmpty { throw UsageError("--to and --host-map do not go together") }
        var concurrency = 8
        if let text = args.value("--concurrency") {
            guard let n = Int(text), (1...4096).contains(n) else { throw UsageError("--concurrency wants a number from 1 to 4096") }
            concurrency = n
        }
        var timeout: UInt64 = 30_000
        if let text = args.value("--timeout") {
            guard let s = Double(text), s > 0, s <= 3600 else { throw UsageError("--timeout wants seconds, from 0 to 3600") }
            timeout = UInt64(s * 1000)
        }
        var ignoring: [IgnoredField] = []
        for text in args.all("--ignore-field") {
            guard let f = IgnoredField(parsing: text) else {
                throw UsageError("--ignore-field wants header:NAME, a JSON path like $.a.b[*].c, or a member name, not '\(text)'")
            }
            ignoring.append(f)
        }
        let failOnDiff = args.flag("--fail-on-diff")
        let compare = failOnDiff || args.flag("--compare")
        if args.flag("--insecure") {
            io.err("mouchard: WARNING: --insecure: origin certificates are NOT verified\n")
        }
        let source = args.positionals[0]
        let (flows, description) = try ReplayOptions.load(source, args, io: io)
        let replayer = Replayer(options: Replayer.Options(
            routing: routing, concurrency: concurrency, insecure: args.flag("--insecure"),
            extraTrustAnchors: args.value("--upstream-ca").map { [ProxyCommand.absolute($0, io)] } ?? [],
            compare: compare, ignoring: ignoring, bodyLimit: try ReplayOptions.bodyLimit(args),
            responseTimeoutMilliseconds: timeout))
        do {
            _ = try replayer.prepare(flows)
        } catch {
            throw CLIError(error.description)
        }
        // The session is opened before sending, so a bad --session fails before any request goes out.
        var recorder: RecorderSession?
        if !args.flag("--no-store") {
            let name = args.value("--session") ?? ProxyCommand.defaultSessionName("replay")
            let directory = try SessionFiles.clarifying(io) { try SessionStore.resolve(session: name, currentDirectory: io.currentDirectory) }
            if FileManager.default.fileExists(atPath: directory + "/" + SessionStore.databaseFileName),
               try SessionFiles.clarifying(io, { try SessionStore(directory: directory, create: false).flowCount() }) > 0 {
                throw CLIError("\(SessionFiles.display(directory, currentDirectory: io.currentDirectory)): " +
                               "the session already has flows; name a new one with --session")
            }
            recorder = try RecorderSession.open(directory: directory, source: "replay", args, device: nil, io: io)
        }
        let store = recorder?.store
        let logFlows = args.flag("--log-flows")
        let started = Date()
        let results = try replayer.run(flows) { r in
            if logFlows || r.failed || !r.differences.isEmpty { io.out(line(r)) }
        }
        let seconds = Date().timeIntervalSince(started)
        if let store {
            try SessionFiles.clarifying(io) {
                var batch: [Flow] = []
                for r in results {
                    batch.append(r.replayed)
                    if batch.count == 1000 { _ = try store.append(flows: batch); batch = [] }
                }
                if !batch.isEmpty { _ = try store.append(flows: batch) }
            }
        }
        let failed = results.filter(\.failed).count
        let differing = results.filter { !$0.failed && !$0.differences.isEmpty }.count
        var text = "replayed \(results.count) request\(results.count == 1 ? "" : "s") from \(description) in "
            + String(format: "%.2f s (%.0f requests/s)", seconds, seconds > 0 ? Double(results.count) / seconds : 0)
        text += ": \(results.count - failed) answered, \(failed) failed"
        if compare { text += ", \(differing) differ\(differing == 1 ? "s" : "") from the recording" }
        let skipped = flows.count - results.count
        if skipped > 0 { text += "; \(skipped) flow\(skipped == 1 ? "" : "s") without a request (TLS metadata) skipped" }
        if let recorder { text += "; session \(SessionFiles.display(recorder.local.directory, currentDirectory: io.currentDirectory))" }
        io.out(text + "\n")
        if let upload = recorder?.finish(io: io) { io.err(upload) }
        return failOnDiff && (failed > 0 || differing > 0) ? 3 : 0
    }

    /// `#3 GET https://api.example.com/v1/me → 200` and the differences, one per line.
    static func line(_ r: Replayer.Result) -> String {
        var s = "#\(r.original.id) \(r.original.request?.method ?? "") \(r.original.request?.url ?? r.original.host)"
        if let e = r.replayed.error {
            s += " → failed: \(e)"
        } else if let status = r.replayed.response?.status {
            s += " → \(status)"
        }
        s += "\n"
        for d in r.differences { s += "    \(d)\n" }
        return s
    }
}

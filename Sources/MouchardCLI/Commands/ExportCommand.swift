import Foundation
import MouchardAudit
import MouchardFlow
import MouchardKit
import MouchardSniffer
import MouchardStore
import MouchardWire

/// `mouchard export S --har OUT`: writes a session's flows as a HAR 1.2 file.
struct ExportCommand: MouchardCommand {
    static let spec = CommandSpec(
        name: "export", abstract: "export a session's flows as a HAR file, curl commands or a Swift test, or its packets as a pcapng",
        usage: "SESSION --har OUT.har | SESSION --pcapng OUT.pcapng [--keylog FILE]... | SESSION --flows IDS --format curl|swift-test [--device FILE] [--out FILE]",
        discussion: """
        --har writes every flow of the session, in order, as HAR 1.2 (creator mouchard) that 'mouchard
        import' reads back with the same methods, URLs, headers and bodies. Flows seen only as TLS
        metadata are written as CONNECT entries marked "_noRequest". OUT '-' writes to standard output.

        --pcapng writes the session's packets with its TLS secrets in a Decryption Secrets Block, so
        Wireshark and tshark show the HTTP decrypted with no setting: the packets of traffic.pcap
        (sniffer and gateway sessions) with keys.log and any --keylog file; for sessions recorded by
        the proxy (no packets), one synthesised TCP connection per exchange between its client and
        server addresses, HTTPS as TLS 1.2 records under fresh secrets, HTTP in clear.

        --format curl prints a curl command per selected flow (headers in order, the body as sent);
        --format swift-test writes a Swift Testing test per flow for MouchardKit that loads the flow and
        pins its current findings (audited alone, with the --device profile embedded when given).
        """,
        options: [
            OptionSpec("--har", value: "OUT", help: "HAR file to write"),
            OptionSpec("--pcapng", value: "OUT", help: "pcapng file to write (packets and TLS secrets)"),
            KeyLogOption.spec,
            OptionSpec("--flows", value: "IDS", help: "the flows to export, e.g. 12 or 3,5-9 (curl and swift-test)"),
            OptionSpec("--format", value: "FORMAT", help: "har (with --har), curl or swift-test"),
            OptionSpec("--device", value: "FILE", help: "swift-test: the device profile to audit with (embedded in the test)"),
            OptionSpec("--out", short: "-o", value: "FILE", help: "curl and swift-test: write there instead of standard output"),
            TerminalProgress.quietOption,
        ],
        minPositionals: 1, maxPositionals: 1)

    static func run(_ args: ParsedArguments, _ io: CommandIO) throws -> Int32 {
        try SessionFiles.clarifying(io) { try perform(args, io) }
    }

    private static func perform(_ args: ParsedArguments, _ io: CommandIO) throws -> Int32 {
        if let format = args.value("--format"), format != "har" {
            guard format == "curl" || format == "swift-test" else { throw UsageError("unknown format '\(format)' (har, curl, swift-test)") }
            guard args.value("--har") == nil else { throw UsageError("--har writes HAR; leave it out with --format \(format)") }
            return try code(format, args, io)
        }
        if let pcapng = args.value("--pcapng") {
            guard args.value("--har") == nil else { throw UsageError("'export' writes --har or --pcapng, not both") }
            return try exportPcapng(args, to: pcapng, io)
        }
        guard let out = args.value("--har") else { throw UsageError("'export' needs --har OUT, --pcapng OUT, or --format curl|swift-test") }
        let progress = TerminalProgress.make(io, verb: "export", quiet: args.flag("--quiet"))
        defer { progress?.finish() }
        let io = progress?.wrapping(io) ?? io
        let store = try SessionFiles.openSession(args.positionals[0], io: io, create: false)
        let directory = store.directory
        let total = progress == nil ? 0 : try store.flowCount()
        let writer = HARWriter(creatorVersion: Mouchard.version)
        let kept = try KeptHAR(store)
        var count = 0
        var written = 0
        /// The flow's entry, then the unreadable entries `import` kept after it.
        func entries(_ flow: Flow?) -> [UInt8] {
            var out: [UInt8] = []
            if let flow {
                out += writer.entry(flow, isFirst: written == 0)
                written += 1
                count += 1
                progress?.update(InputProgress(name: args.positionals[0], done: count, total: total, noun: "flows"))
            }
            for json in kept.unread(after: flow?.id ?? 0) {
                out += writer.rawEntry(json, isFirst: written == 0)
                written += 1
            }
            return out
        }
        if out == "-" {
            io.out(String(decoding: writer.begin(logFields: kept.logFields) + entries(nil), as: UTF8.self))
            try store.forEachFlow { flow in
                io.out(String(decoding: entries(flow), as: UTF8.self))
            }
            io.out(String(decoding: writer.end(), as: UTF8.self))
            io.err("exported \(count) flows\n")
            return 0
        }
        let path = SessionFiles.absolute(out, currentDirectory: io.currentDirectory)
        let temporary = path + ".partial"
        guard FileManager.default.createFile(atPath: temporary, contents: nil),
              let handle = FileHandle(forWritingAtPath: temporary) else {
            throw CLIError("\(out): cannot create the file")
        }
        do {
            try handle.write(contentsOf: writer.begin(logFields: kept.logFields) + entries(nil))
            try store.forEachFlow { flow in
                try handle.write(contentsOf: entries(flow))
            }
            try handle.write(contentsOf: writer.end())
            try handle.close()
            if FileManager.default.fileExists(atPath: path) { try FileManager.default.removeItem(atPath: path) }
            try FileManager.default.moveItem(atPath: temporary, toPath: path)
        } catch {
            try? handle.close()
            try? FileManager.default.removeItem(atPath: temporary)
            if error is StoreError { throw error }
            throw CLIError("\(out): cannot write (\(error.localizedDescription))")
        }
        let shown = SessionFiles.display(directory, currentDirectory: io.currentDirectory)
        io.out("exported \(count) flow\(count == 1 ? "" : "s") from \(shown) to \(out)\n")
        return 0
    }

    private static func exportPcapng(_ args: ParsedArguments, to out: String, _ io: CommandIO) throws -> Int32 {
        let store = try SessionFiles.openSession(args.positionals[0], io: io, create: false)
        let path = SessionFiles.absolute(out, currentDirectory: io.currentDirectory)
        var keyLog = [UInt8](FileManager.default.contents(atPath: store.keyLogPath) ?? Data())
        for file in args.all("--keylog") {
            if !keyLog.isEmpty && keyLog.last != 0x0A { keyLog.append(0x0A) }
            keyLog += [UInt8](try SessionFiles.read(file, currentDirectory: io.currentDirectory))
        }
        let summary: PcapngExport.Summary
        let what: String
        do {
            if FileManager.default.fileExists(atPath: store.pcapPath) {
                summary = try PcapngExport.copy(capturePath: store.pcapPath, keyLog: keyLog, to: path)
                what = "\(summary.packets) packets of \(SessionStore.pcapFileName)"
            } else {
                summary = try PcapngExport.synthesise(extraKeyLog: keyLog, to: path) { body in
                    try SessionFiles.clarifying(io) { try store.forEachFlow(body) }
                }
                what = "\(summary.packets) packets synthesised from \(summary.flows) exchanges"
                    + (summary.skippedFlows > 0 ? " (\(summary.skippedFlows) TLS-metadata flows have no packets to write)" : "")
            }
        } catch let error as CLIError {
            throw error
        } catch {
            throw CLIError("\(out): cannot write (\(error))")
        }
        let shown = SessionFiles.display(store.directory, currentDirectory: io.currentDirectory)
        let secrets = summary.keyLogBytes > 0 ? ", TLS secrets in a decryption secrets block" : ", no TLS secrets"
        io.out("exported \(what) from \(shown) to \(out)\(secrets)\n")
        if let e = summary.readError { io.err("mouchard: warning: \(SessionStore.pcapFileName): \(e) (packets before it were exported)\n") }
        return 0
    }
}

extension ExportCommand {
    /// `--format curl|swift-test`: code for the selected flows.
    static func code(_ format: String, _ args: ParsedArguments, _ io: CommandIO) throws -> Int32 {
        guard args.value("--flows") != nil else { throw UsageError("--format \(format) needs --flows IDS (e.g. --flows 12)") }
        let source = args.positionals[0]
        let (flows, description) = try ReplayOptions.load(source, args, io: io)
        var text = ""
        if format == "curl" {
            for flow in flows {
                guard let command = FlowCode.curl(flow) else {
                    io.err("mouchard: flow \(flow.id) has no request to send (TLS metadata only): skipped\n")
                    continue
                }
                text += "# flow \(flow.id) of \(description)\n" + command
            }
        } else {
            var profileJSON: String?
            if let device = args.value("--device") {
                profileJSON = String(decoding: try SessionFiles.read(device, currentDirectory: io.currentDirectory), as: UTF8.self)
            }
            let profile = try profileJSON.map { try Rules.profile(json: $0) }
            let rules = try Rules(directory: try ScanInputs.rulesDirectory(nil, currentDirectory: io.currentDirectory).path)
            text = "// Regression tests exported by mouchard \(Mouchard.version) from \(description).\n"
            for flow in flows {
                let audit = try Audit(Flows([flow]), profile: profile, rules: rules)
                let test = FlowCode.swiftTest(flow, source: description, signatures: audit.findings.signatures,
                                              profileJSON: profileJSON, toolVersion: Mouchard.version)
                text += "\n" + (text.contains("import MouchardKit") ? test.replacingOccurrences(of: "import Testing\nimport MouchardKit\n\n", with: "") : test)
            }
        }
        if let out = args.value("--out") {
            do {
                try Data(text.utf8).write(to: URL(fileURLWithPath: SessionFiles.absolute(out, currentDirectory: io.currentDirectory)),
                                          options: .atomic)
            } catch {
                throw CLIError("\(out): cannot write (\(error.localizedDescription))")
            }
            io.err("wrote \(flows.count) flow\(flows.count == 1 ? "" : "s") as \(format) to \(out)\n")
        } else {
            io.out(text)
        }
        return 0
    }
}

/// What `import` kept of a HAR file beside its flows: the `log` members (`pages`, `comment`...)
/// and the entries it could not read, by the id of the flow they came after.
struct KeptHAR {
    var logFields: [(String, String)] = []
    private var unreadByFlow: [Int: [String]] = [:]

    init(_ store: SessionStore) throws {
        if let text = try store.metadata(SessionStore.MetadataKey.harLog),
           let log = try? JSONParser.har.parse(Array(text.utf8)), let members = log.members {
            logFields = members.map { ($0.key, String(decoding: JSONWriter.serialize($0.value, pretty: false), as: UTF8.self)) }
        }
        if let text = try store.metadata(SessionStore.MetadataKey.harUnreadEntries),
           let list = try? JSONParser.har.parse(Array(text.utf8)), let items = list.elements {
            for item in items {
                guard let after = item.members?.first(where: { $0.key == "after" })?.value.doubleValue,
                      let entry = item.members?.first(where: { $0.key == "entry" })?.value else { continue }
                unreadByFlow[Int(after), default: []].append(String(decoding: JSONWriter.serialize(entry, pretty: false), as: UTF8.self))
            }
        }
    }

    func unread(after flowID: Int) -> [String] { unreadByFlow[flowID] ?? [] }
}

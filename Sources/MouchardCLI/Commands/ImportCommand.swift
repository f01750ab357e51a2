import Foundation
import MouchardAudit
import MouchardFlow
import MouchardSniffer
import MouchardStore
import MouchardWire

/// `mouchard import FILE --session S`: reads a HAR file or a capture and appends its flows to a session.
struct ImportCommand: MouchardCommand {
    static let spec = CommandSpec(
        name: "import", abstract: "import a HAR file or a capture into a session",
        usage: "FILE.har|FILE.pcap[ng] --session NAME [--store URL] [--keylog FILE]...",
        discussion: """
        Reads a HAR 1.2 file (Chrome, Firefox, mitmproxy, Charles or Mouchard export) or a pcap/pcapng
        capture (told apart by content) and appends its flows to the session, each committed as it is
        stored. A HAR entry that cannot be read is skipped with a warning naming it (--strict: exit 1);
        a capture cut short is imported up to the damage, then exit 1. A capture is read like 'scan'
        reads it: its HTTP flows, TLS handshakes, and with --keylog (or a pcapng secrets block) its
        decrypted HTTPS. NAME is the folder captures/NAME under the current directory; a value
        containing '/' is a path. The session is created if needed.
        """,
        options: [
            OptionSpec("--session", short: "-s", value: "NAME", help: "session to import into"),
            StoreOption.recorderSpec, StoreOption.appSpec, StoreOption.appVersionSpec,
            OptionSpec("--strict", help: "fail on a HAR entry that cannot be read (default: skip it with a warning)"),
            OptionSpec("--skip-bad-entries", help: "skip HAR entries that cannot be read, with a warning (the default)"),
            KeyLogOption.spec,
            TerminalProgress.quietOption,
        ],
        minPositionals: 1, maxPositionals: 1)

    static func run(_ args: ParsedArguments, _ io: CommandIO) throws -> Int32 {
        try SessionFiles.clarifying(io) { try perform(args, io) }
    }

    private static func perform(_ args: ParsedArguments, _ io: CommandIO) throws -> Int32 {
        guard let session = args.value("--session") else { throw UsageError("'import' needs --session NAME") }
        let progress = TerminalProgress.make(io, verb: "import", quiet: args.flag("--quiet"))
        defer { progress?.finish() }
        let io = progress?.wrapping(io) ?? io
        let file = args.positionals[0]
        let data = try SessionFiles.read(file, currentDirectory: io.currentDirectory)
        let header = Array(data.prefix(64))
        if let what = CaptureFileExtractor.nonCaptureDescription(header: header, fileSize: data.count) {
            throw CLIError("\(file): \(what)")
        }
        let keys = try KeyLogOption.load(args, io: io)
        var flows: [Flow]
        var readError: String?
        var har = HARReader.Document()
        var warnings: [String] = []
        if CaptureFileExtractor.isCaptureFile(header: header) {
            let path = SessionFiles.absolute(file, currentDirectory: io.currentDirectory)
            let x: CaptureExtraction
            let reading = progress.map { p in { (offset: Int) in p.update(InputProgress(name: file, done: offset, total: data.count)) } }
            do {
                x = try CaptureFileExtractor.extract(path: path, keys: keys, progress: reading, onDNS: nil, onFlow: nil)
            } catch {
                throw CLIError("\(file): \(error)")
            }
            for n in DecryptionText.lines(x) { io.err("mouchard: \(file): \(n)\n") }
            flows = x.flows
            warnings = x.warnings.filter { !$0.hasPrefix("reading stopped: ") }.map { "\(file): \($0)" }
            readError = x.readError.map { AuditInputs.readErrorLine(file, $0) }
        } else {
            guard CaptureFileExtractor.looksLikeJSON(header: header) else {
                throw CLIError("\(file): neither a capture (pcap, pcapng) nor a HAR file (it does not start with JSON)")
            }
            do {
                har = try HARReader.readDocument(data, strict: args.flag("--strict"))
            } catch {
                throw CLIError("\(file): \(error)")
            }
            flows = har.flows
            warnings = AuditInputs.skippedEntryLines(har.skipped, shown: file)
        }
        for w in warnings { io.err("mouchard: warning: \(w)\n") }
        let recorder = try RecorderSession.open(directory: try SessionFiles.clarifying(io) {
            try SessionStore.resolve(session: session, currentDirectory: io.currentDirectory)
        }, source: nil, args, device: nil, io: io)
        let store = recorder.store
        let directory = recorder.local.directory
        if try store.metadata(SessionStore.MetadataKey.source) == nil {
            let kind = CaptureFileExtractor.isCaptureFile(header: Array(data.prefix(16))) ? "capture" : "har"
            try store.setMetadata("\(kind):\((file as NSString).lastPathComponent)", for: SessionStore.MetadataKey.source)
            try store.setMetadata(Mouchard.version, for: SessionStore.MetadataKey.toolVersion)
        }
        var ids: [Int] = []
        ids.reserveCapacity(flows.count)
        // Unreadable entries are kept after the flow stored before them (their file order).
        var unread = har.unread[...]
        var kept: [JSONValue] = []
        var previous = try store.lastFlowID()
        func keepUnread(before index: Int) {
            while let u = unread.first, u.index < index {
                unread.removeFirst()
                guard let entry = try? JSONParser.har.parse(Array(u.json.utf8)) else { continue }
                kept.append(.object([("after", .number(String(previous))), ("entry", entry)]))
            }
        }
        for (i, var flow) in flows.enumerated() {
            keepUnread(before: flow.id - 1)
            flow.id = 0
            previous = try store.append(flow)
            ids.append(previous)
            progress?.update(InputProgress(name: file, done: i + 1, total: flows.count, noun: "flows stored"))
        }
        keepUnread(before: Int.max)
        if !kept.isEmpty {
            var all: [JSONValue] = []
            if let old = try store.metadata(SessionStore.MetadataKey.harUnreadEntries),
               let v = try? JSONParser.har.parse(Array(old.utf8)), let items = v.elements { all = items }
            all += kept
            try store.setMetadata(String(decoding: JSONWriter.serialize(.array(all), pretty: false), as: UTF8.self),
                                  for: SessionStore.MetadataKey.harUnreadEntries)
        }
        if !har.logFields.isEmpty, try store.metadata(SessionStore.MetadataKey.harLog) == nil {
            var members: [(String, JSONValue)] = []
            for (name, json) in har.logFields {
                if let v = try? JSONParser.har.parse(Array(json.utf8)) { members.append((name, v)) }
            }
            try store.setMetadata(String(decoding: JSONWriter.serialize(.object(members), pretty: false), as: UTF8.self),
                                  for: SessionStore.MetadataKey.harLog)
        }
        let shown = SessionFiles.display(directory, currentDirectory: io.currentDirectory)
        let range = ids.isEmpty ? "" : ids.count == 1 ? " (flow \(ids[0]))" : " (flows \(ids[0])-\(ids[ids.count - 1]))"
        io.out("imported \(ids.count) flow\(ids.count == 1 ? "" : "s") from \(file) into \(shown)\(range)\n")
        if let upload = recorder.finish(io: io) { io.err(upload) }
        if let readError {
            io.err("mouchard: error: \(readError)\n")
            return 1
        }
        return 0
    }
}

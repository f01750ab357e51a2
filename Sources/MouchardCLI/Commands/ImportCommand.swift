import Foundation
import MouchardAudit
import MouchardFlow
import MouchardSniffer
import MouchardStore

/// `mouchard import FILE.har --session S`: reads a HAR file and appends its flows to a session.
struct ImportCommand: MouchardCommand {
    static let spec = CommandSpec(
        name: "import", abstract: "import a HAR file or a capture into a session",
        usage: "FILE.har|FILE.pcap[ng] --session NAME [--keylog FILE]...",
        discussion: """
        Reads a HAR 1.2 file (Chrome, Firefox, mitmproxy, Charles or Mouchard export) and appends its
        flows to the session, each committed as it is stored. NAME is the folder captures/NAME under
        the current directory; a value containing '/' is a path. The session is created if needed.
        A pcap/pcapng capture (told apart by content) is read like 'scan' reads it: its HTTP flows,
        TLS handshakes, and with --keylog (or a pcapng secrets block) its decrypted HTTPS.
        """,
        options: [
            OptionSpec("--session", short: "-s", value: "NAME", help: "session to import into"),
            OptionSpec("--skip-bad-entries", help: "import the well-formed entries, warn about the others"),
            KeyLogOption.spec,
        ],
        minPositionals: 1, maxPositionals: 1)

    static func run(_ args: ParsedArguments, _ io: CommandIO) throws -> Int32 {
        try SessionFiles.clarifying(io) { try perform(args, io) }
    }

    private static func perform(_ args: ParsedArguments, _ io: CommandIO) throws -> Int32 {
        guard let session = args.value("--session") else { throw UsageError("'import' needs --session NAME") }
        let file = args.positionals[0]
        let data = try SessionFiles.read(file, currentDirectory: io.currentDirectory)
        var flows: [Flow]
        let keys = try KeyLogOption.load(args, io: io)
        do {
            if CaptureFileExtractor.isCaptureFile(header: Array(data.prefix(16))) {
                let path = SessionFiles.absolute(file, currentDirectory: io.currentDirectory)
                let x = try CaptureFileExtractor.extract(path: path, keys: keys)
                for n in DecryptionText.lines(x) { io.err("mouchard: \(file): \(n)\n") }
                if let e = x.readError { io.err("mouchard: warning: \(file): \(e) (flows before it were imported)\n") }
                flows = x.flows
            } else if args.flag("--skip-bad-entries") {
                let (good, skipped) = try HARReader.readSkippingBadEntries(data)
                for problem in skipped { io.err("mouchard: warning: \(file): \(problem) (entry skipped)\n") }
                flows = good
            } else {
                flows = try HARReader.read(data)
            }
        } catch {
            throw CLIError("\(file): \(error)")
        }
        let store = try SessionFiles.openSession(session, io: io, create: true)
        let directory = store.directory
        if try store.metadata(SessionStore.MetadataKey.source) == nil {
            let kind = CaptureFileExtractor.isCaptureFile(header: Array(data.prefix(16))) ? "capture" : "har"
            try store.setMetadata("\(kind):\((file as NSString).lastPathComponent)", for: SessionStore.MetadataKey.source)
            try store.setMetadata(Mouchard.version, for: SessionStore.MetadataKey.toolVersion)
        }
        var ids: [Int] = []
        ids.reserveCapacity(flows.count)
        for var flow in flows {
            flow.id = 0
            ids.append(try store.append(flow))
        }
        let shown = SessionFiles.display(directory, currentDirectory: io.currentDirectory)
        let range = ids.isEmpty ? "" : ids.count == 1 ? " (flow \(ids[0]))" : " (flows \(ids[0])-\(ids[ids.count - 1]))"
        io.out("imported \(ids.count) flow\(ids.count == 1 ? "" : "s") from \(file) into \(shown)\(range)\n")
        return 0
    }
}

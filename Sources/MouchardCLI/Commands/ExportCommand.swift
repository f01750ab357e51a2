import Foundation
import MouchardFlow
import MouchardStore
import MouchardWire

/// `mouchard export S --har OUT`: writes a session's flows as a HAR 1.2 file.
struct ExportCommand: MouchardCommand {
    static let spec = CommandSpec(
        name: "export", abstract: "export a session's flows as a HAR file",
        usage: "SESSION --har OUT.har",
        discussion: """
        Writes every flow of the session, in order, as HAR 1.2 (creator mouchard) that 'mouchard import'
        reads back with the same methods, URLs, headers and bodies. Flows seen only as TLS metadata are
        written as CONNECT entries marked "_noRequest". OUT '-' writes to standard output.
        """,
        options: [OptionSpec("--har", value: "OUT", help: "HAR file to write")],
        minPositionals: 1, maxPositionals: 1)

    static func run(_ args: ParsedArguments, _ io: CommandIO) throws -> Int32 {
        try SessionFiles.clarifying(io) { try perform(args, io) }
    }

    private static func perform(_ args: ParsedArguments, _ io: CommandIO) throws -> Int32 {
        guard let out = args.value("--har") else { throw UsageError("'export' needs --har OUT") }
        let store = try SessionFiles.openSession(args.positionals[0], io: io, create: false)
        let directory = store.directory
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

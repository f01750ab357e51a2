import Foundation
import MouchardFlow
import MouchardStore

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
        var count = 0
        if out == "-" {
            io.out(String(decoding: writer.begin(), as: UTF8.self))
            try store.forEachFlow { flow in
                io.out(String(decoding: writer.entry(flow, isFirst: count == 0), as: UTF8.self))
                count += 1
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
            try handle.write(contentsOf: writer.begin())
            try store.forEachFlow { flow in
                try handle.write(contentsOf: writer.entry(flow, isFirst: count == 0))
                count += 1
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

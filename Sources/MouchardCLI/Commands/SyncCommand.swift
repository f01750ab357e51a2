import Foundation
import MouchardAudit
import MouchardPostgres
import MouchardStore

/// `mouchard sync SESSION --store URL`: uploads a local session to the fleet store.
struct SyncCommand: MouchardCommand {
    static let spec = CommandSpec(
        name: "sync",
        abstract: "upload a local session to the fleet store (what is already there is not sent again)",
        usage: "SESSION --store URL [--app NAME] [--app-version V] [--timeout SECONDS]",
        discussion: """
        Uploads the flows, findings, DNS answers and metadata of a local session (captures/NAME, or a
        path) that the fleet store does not hold yet, in order, one transaction per batch: a session
        recorded without --store, or one whose upload was cut short (the database was away when the
        recorder stopped). Running it again, or beside the recorder still uploading it, sends nothing
        twice. --app and --app-version are added to the session's metadata first. Exit 1 when the
        store cannot be reached for SECONDS (default 30) or refuses the rows.
        example: mouchard sync app-1.2 --store postgresql://audit@db.lab/mouchard --app Lumo --app-version 1.2
        """,
        options: [
            OptionSpec("--store", value: "URL", help: "the fleet store (postgresql://user@host/db)"),
            StoreOption.appSpec, StoreOption.appVersionSpec,
            OptionSpec("--timeout", value: "SECONDS", help: "give up when nothing could be uploaded for this long (default 30)"),
        ],
        minPositionals: 1, maxPositionals: 1)

    static let defaultTimeout = 30.0

    static func run(_ args: ParsedArguments, _ io: CommandIO) throws -> Int32 {
        guard let url = try StoreOption.url(args) else { throw UsageError("'sync' needs --store URL (the fleet store)") }
        var timeout = defaultTimeout
        if let text = args.value("--timeout") {
            guard let t = Double(text), t > 0, t <= 86_400 else { throw UsageError("--timeout wants seconds, from 0 to 86400") }
            timeout = t
        }
        let local = try SessionFiles.openSession(args.positionals[0], io: io, create: false)
        let shown = SessionFiles.display(local.directory, currentDirectory: io.currentDirectory)
        try SessionFiles.clarifying(io) {
            if let app = args.value("--app") { try local.setMetadata(app, for: SessionStore.MetadataKey.app) }
            if let v = args.value("--app-version") { try local.setMetadata(v, for: SessionStore.MetadataKey.appVersion) }
        }
        let spooled = try StoreOption.clarified { () throws(StoreError) in try SpooledSessionStore(journal: local, url: url, log: io.err) }
        let (status, left) = spooled.finish(timeout: timeout)
        let id = (try? local.metadata(SessionStore.MetadataKey.fleetSession)) ?? "?"
        var text = "synced \(shown) to \(spooled.fleetDisplay) as session \(id): \(status.flowsSent) flows, "
            + "\(status.findingsSent) findings, \(status.dnsSent) DNS answers uploaded"
        if let at = status.uploaded { text += "; the fleet store holds it up to flow \(at.flow)" }
        io.out(text + "\n")
        if left > 0 || status.stopped || status.uploaded == nil {
            throw CLIError("\(left) flow\(left == 1 ? "" : "s") of \(shown) not uploaded: \(status.lastError ?? "the fleet store did not answer")")
        }
        return 0
    }
}

import Foundation
import MouchardAudit
import MouchardFlow
import MouchardPostgres
import MouchardStore

/// `--store postgresql://...`: the fleet store. Recorders (`proxy`, `gateway`, `sniff`, `import`)
/// still write their local session first and upload it; readers (`scan`, `report`, `flows`, `diff`,
/// `replay`, `mock`) read sessions from it by name or id.
enum StoreOption {
    static let recorderSpec = OptionSpec("--store", value: "URL",
                                         help: "also upload the session to the fleet store (postgresql://user@host/db)")
    /// `proxy`, `mock` and `replay`: they record a session, and may read their SOURCE from the fleet store.
    static let recorderReaderSpec = OptionSpec("--store", value: "URL",
                                               help: "fleet store (postgresql://...): the session is uploaded to it; a SOURCE that is not a file is read from it")
    static let readerSpec = OptionSpec("--store", value: "URL", help: "read sessions from the fleet store (postgresql://user@host/db)")
    static let appSpec = OptionSpec("--app", value: "NAME", help: "the app under audit (kept with the session, for fleet queries)")
    static let appVersionSpec = OptionSpec("--app-version", value: "V", help: "its version (kept with the session, for fleet queries)")

    /// The `--store` URL, checked to be a PostgreSQL one; nil when not given.
    static func url(_ args: ParsedArguments) throws -> String? {
        guard let url = args.value("--store") else { return nil }
        guard PostgresURL.isPostgres(url) else {
            throw UsageError("--store wants a PostgreSQL URL (postgresql://user@host:port/database), not '\(PostgresURL.masked(url))'")
        }
        return url
    }

    /// The fleet store named by `--store`, or nil; a reader gets an error when it holds no sessions.
    static func fleet(_ args: ParsedArguments, forWriting: Bool = false) throws -> PostgresFleet? {
        guard let url = try url(args) else { return nil }
        return try clarified { () throws(StoreError) in try PostgresFleet(url: url, forWriting: forWriting) }
    }

    /// What readers use to open a session named on the command line in the fleet store.
    static func opener(_ fleet: PostgresFleet) -> @Sendable (String) throws -> any SessionStoring {
        { name in try clarified { () throws(StoreError) in try fleet.openSession(name) } }
    }

    /// Runs `body`, turning a `StoreError` of the fleet store into one clear line.
    static func clarified<T>(_ body: () throws(StoreError) -> T) throws -> T {
        do {
            return try body()
        } catch {
            throw CLIError(error.description)
        }
    }
}

/// A recorder's session: the local folder (`captures/NAME`, always written first) and, with
/// `--store`, its upload to the fleet store. Records the session's source, app, version, device
/// and machine in its metadata.
struct RecorderSession {
    let local: SessionStore
    let spooled: SpooledSessionStore?
    /// What the recorder writes into.
    var store: any SessionStoring { spooled ?? local }

    /// Seconds a recorder waits at exit for the upload to move (it waits as long as batches go in).
    static let uploadPatience = 30.0

    /// Opens (creating) the local session `directory` and, with `--store`, starts its upload.
    /// `source` nil leaves the session's source as it is (an import into an existing session).
    static func open(directory: String, source: String?, _ args: ParsedArguments, device: String?, io: CommandIO) throws -> RecorderSession {
        let url = try StoreOption.url(args)
        let local = try SessionOpening.clarifying(currentDirectory: io.currentDirectory) { () throws(StoreError) in
            try SessionStore(directory: directory, create: true)
        }
        var metadata: [(String, String?)] = [(SessionStore.MetadataKey.toolVersion, Mouchard.version),
                                             (SessionStore.MetadataKey.gateway, hostName())]
        if let source { metadata.append((SessionStore.MetadataKey.source, source)) }
        if let app = args.value("--app") { metadata.append((SessionStore.MetadataKey.app, app)) }
        if let v = args.value("--app-version") { metadata.append((SessionStore.MetadataKey.appVersion, v)) }
        if let device { metadata.append((SessionStore.MetadataKey.device, device)) }
        try SessionOpening.clarifying(currentDirectory: io.currentDirectory) {
            for (k, v) in metadata { try local.setMetadata(v, for: k) }
        }
        guard let url else { return RecorderSession(local: local, spooled: nil) }
        let spooled = try StoreOption.clarified { () throws(StoreError) in
            try SpooledSessionStore(journal: local, url: url, log: io.err)
        }
        spooled.uploader.start()
        let id = (try? local.metadata(SessionStore.MetadataKey.fleetSession)) ?? "?"
        io.err("mouchard: uploading to the fleet store \(spooled.fleetDisplay) as session \(id)\n")
        return RecorderSession(local: local, spooled: spooled)
    }

    /// Marks the end of the recording and, with `--store`, waits for the upload; returns the line
    /// to print about it (nil without `--store`).
    func finish(io: CommandIO) -> String? {
        try? local.setMetadata(ISO8601Time.nowText(), for: SessionStore.MetadataKey.ended)
        guard let spooled else { return nil }
        let (status, left) = spooled.finish(timeout: Self.uploadPatience)
        let shown = SessionFiles.display(local.directory, currentDirectory: io.currentDirectory)
        var line = "mouchard: fleet store: \(status.flowsSent) flow\(status.flowsSent == 1 ? "" : "s") and \(status.findingsSent) findings uploaded"
        if status.latency.total > 0 {
            line += String(format: " (from local commit to the fleet store: p50 %.0f ms, p99 %.0f ms)",
                           status.latency.percentile(0.5) * 1000, status.latency.percentile(0.99) * 1000)
        }
        if left > 0 || status.stopped {
            line += "; \(left) flow\(left == 1 ? "" : "s") not uploaded (\(status.lastError ?? "timed out")): they are in \(shown); "
                + "run `mouchard sync \(shown) --store URL`"
        }
        return line + "\n"
    }

    /// This machine's name (the `gateway` of its sessions).
    static func hostName() -> String {
        var buffer = [CChar](repeating: 0, count: 256)
        guard gethostname(&buffer, buffer.count - 1) == 0 else { return "unknown" }
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}

extension ISO8601Time {
    /// Now, as stored in session metadata.
    static func nowText() -> String { format(Date()) }
}

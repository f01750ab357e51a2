import Foundation
import MouchardFindings
import MouchardFlow
import Synchronization

/// A capture session on disk: the folder `captures/<name>/` holding `session.sqlite` (flows,
/// findings, DNS observations, metadata) and, written by other modules, `traffic.pcap` and `keys.log`.
///
/// Crash safety: the database is in WAL mode and every `append` is its own transaction, committed
/// before it returns, so a process killed at any moment loses at most the flow being appended.
/// The schema is versioned (`PRAGMA user_version`) and migrated on open.
///
/// Thread safety: one SQLite connection behind a mutex; any thread (e.g. every proxy event loop)
/// may call any method. Calls are serialized; each append costs one small transaction.
public final class SessionStore: SessionStoring {
    /// File names inside a session folder.
    public static let databaseFileName = "session.sqlite"
    public static let pcapFileName = "traffic.pcap"
    public static let keyLogFileName = "keys.log"
    /// The folder `--session NAME` lives under, relative to the current directory.
    public static let capturesDirectoryName = "captures"

    /// Well-known metadata keys (any other key may be stored too).
    public enum MetadataKey {
        /// ISO 8601 time the session was created (set automatically).
        public static let created = "created"
        /// What fed the session: `proxy`, `sniffer`, `har:traffic.har`, ...
        public static let source = "source"
        public static let toolVersion = "tool_version"
        /// Name (or path) of the device profile used.
        public static let deviceProfile = "device_profile"
        /// The `log` members of the first imported HAR other than its entries (`pages`, `comment`,
        /// `browser`...): a JSON object, written back by `export`.
        public static let harLog = "har_log"
        /// HAR entries `import` could not read, kept verbatim for `export`: a JSON array of
        /// `{"after": FLOW_ID, "entry": {...}}` (after 0: before the first flow).
        public static let harUnreadEntries = "har_unread_entries"
        /// The app under audit and its version (`--app`, `--app-version`), for fleet queries.
        public static let app = "app"
        public static let appVersion = "app_version"
        /// The device profile's name (its `name` field).
        public static let device = "device"
        /// The machine that recorded the session (its host name).
        public static let gateway = "gateway"
        /// ISO 8601 time the recording stopped.
        public static let ended = "ended"
        /// The session's id in the fleet store (a UUID), set when it is first uploaded.
        public static let fleetSession = "fleet_session"
    }

    /// The session folder (absolute or as resolved).
    public let directory: String
    public var location: String { directory }
    public var databasePath: String { directory + "/" + Self.databaseFileName }
    /// Where the sniffer/proxy write the raw capture of this session.
    public var pcapPath: String { directory + "/" + Self.pcapFileName }
    /// Where TLS session keys go (SSLKEYLOGFILE format), for Wireshark.
    public var keyLogPath: String { directory + "/" + Self.keyLogFileName }

    private let db: Mutex<SQLiteConnection>

    /// The folder of a session: a value containing `/` is a path (relative to `currentDirectory`
    /// unless absolute); a plain name is `captures/NAME` under `currentDirectory`.
    public static func resolve(session: String, currentDirectory: String) throws(StoreError) -> String {
        if session.isEmpty || session == "." || session == ".." {
            throw StoreError(file: session, message: "not a session name (use a name like 'app-test' or a path)")
        }
        let base = currentDirectory.hasSuffix("/") ? String(currentDirectory.dropLast()) : currentDirectory
        if session.contains("/") {
            let path = session.hasPrefix("/") ? session : base + "/" + session
            var trimmed = path
            while trimmed.count > 1, trimmed.hasSuffix("/") { trimmed.removeLast() }
            return trimmed
        }
        return "\(base)/\(capturesDirectoryName)/\(session)"
    }

    /// Opens the session in `directory`; with `create`, makes the folder (0700: it holds personal
    /// data) and the database when missing. Throws one `StoreError` naming the file when the
    /// session is missing, unreadable, corrupt or from a newer Mouchard.
    public convenience init(directory: String, create: Bool) throws(StoreError) {
        try self.init(directory: directory, create: create, migrations: StoreSchema.migrations)
    }

    /// Opens the session named as on the command line (`--session NAME` or a path), see `resolve`.
    public convenience init(session: String, currentDirectory: String = FileManager.default.currentDirectoryPath,
                            create: Bool) throws(StoreError) {
        try self.init(directory: try Self.resolve(session: session, currentDirectory: currentDirectory), create: create)
    }

    init(directory: String, create: Bool, migrations: [String]) throws(StoreError) {
        self.directory = directory
        let path = directory + "/" + Self.databaseFileName
        let fm = FileManager.default
        var isDir: ObjCBool = false
        if fm.fileExists(atPath: directory, isDirectory: &isDir) {
            guard isDir.boolValue else { throw StoreError(file: directory, message: "is a file, not a session folder") }
        } else if create {
            do {
                let parent = (directory as NSString).deletingLastPathComponent
                if !parent.isEmpty { try fm.createDirectory(atPath: parent, withIntermediateDirectories: true) }
                try fm.createDirectory(atPath: directory, withIntermediateDirectories: false,
                                       attributes: [.posixPermissions: 0o700])
            } catch {
                throw StoreError(file: directory, message: "cannot create the session folder (\(error.localizedDescription))")
            }
        }
        if create, !fm.fileExists(atPath: path) {
            try Self.createDatabase(at: path, migrations: migrations)
        }
        guard fm.fileExists(atPath: path) else {
            throw StoreError(file: path, message: "no session here (\(Self.databaseFileName) not found)")
        }
        // A zero-length file (left by a tool that only touched it) is an empty database to set up.
        let isEmptyFile = ((try? fm.attributesOfItem(atPath: path)[.size] as? Int) ?? 0) == 0
        let connection = try SQLiteConnection(path: path, create: false)
        do throws(StoreError) {
            try Self.prepare(connection, migrations: migrations)
            if create, isEmptyFile { try Self.stampCreation(connection) }
        } catch {
            throw Self.explain(error)
        }
        db = Mutex(connection)
    }

    /// Creates the database whole, then makes it appear at `path` in one step: it is built in a
    /// private file (WAL mode, schema, creation time) and hard-linked into place. A reader that
    /// opens the session while it is being created (`mouchard flows` beside a starting proxy)
    /// sees either no database or a complete one, never a half-made file it would try to set up
    /// itself, racing the creator for the write lock. When two creators race, the first link
    /// wins and the other opens that database.
    private static func createDatabase(at path: String, migrations: [String]) throws(StoreError) {
        let directory = (path as NSString).deletingLastPathComponent
        let temporary = "\(directory)/.\(databaseFileName).creating-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        defer {
            for suffix in ["", "-wal", "-shm", "-journal"] { unlink(temporary + suffix) }
        }
        do throws(StoreError) {
            // The connection is closed at the end of this scope, which checkpoints and removes its WAL.
            let connection = try SQLiteConnection(path: temporary, create: true)
            try prepare(connection, migrations: migrations)
            try stampCreation(connection)
        } catch {
            throw StoreError(file: path, message: "cannot create the session database (\(error.message))",
                             sqliteCode: error.sqliteCode)
        }
        if link(temporary, path) != 0, errno != EEXIST {
            // A file system without hard links (some FUSE and FAT mounts): rename, which is atomic
            // too but would replace a database another creator linked in the meantime.
            let linkError = errno
            let unsupported = linkError == EPERM || linkError == EOPNOTSUPP || linkError == ENOSYS
            if !unsupported || (access(path, F_OK) != 0 && rename(temporary, path) != 0) {
                let reason = String(cString: strerror(unsupported ? errno : linkError))
                throw StoreError(file: path, message: "cannot create the session database (\(reason))")
            }
        }
    }

    /// WAL mode, `synchronous = NORMAL`, and the schema migrated to the latest version.
    private static func prepare(_ connection: SQLiteConnection, migrations: [String]) throws(StoreError) {
        let mode = try connection.query("PRAGMA journal_mode = WAL") { s throws(StoreError) in s.text(0) }.first ?? ""
        guard mode.lowercased() == "wal" else {
            throw StoreError(file: connection.path, message: "cannot switch to WAL mode (journal mode is \(mode))")
        }
        try connection.execute("PRAGMA synchronous = NORMAL")
        try StoreSchema.migrate(connection, migrations: migrations)
    }

    /// Records when the session was created (only its creator does: a reader never writes on open).
    private static func stampCreation(_ connection: SQLiteConnection) throws(StoreError) {
        try connection.run("INSERT OR IGNORE INTO session (key, value) VALUES (?, ?)",
                           [.text(MetadataKey.created), .text(isoNow())])
    }

    /// Rewrites SQLite's "not a database"/"corrupt" codes as one clear sentence.
    static func explain(_ error: StoreError) -> StoreError {
        guard let code = error.sqliteCode else { return error }
        switch code & 0xFF {
        case 26: return StoreError(file: error.file, message: "not a Mouchard session database (not an SQLite file, or damaged)", sqliteCode: code)
        case 11:
            if error.message.hasPrefix("the session database is damaged") { return error }
            return StoreError(file: error.file, message: "the session database is damaged: \(error.message)", sqliteCode: code)
        default: return error
        }
    }

    private static func isoNow() -> String { ISO8601Time.format(Date()) }

    /// Runs `body` with the connection, alone (for the store's extensions).
    func lockedConnection<T: Sendable>(_ body: (SQLiteConnection) throws(StoreError) -> T) throws(StoreError) -> T {
        try locked(body)
    }

    private func locked<T: Sendable>(_ body: (SQLiteConnection) throws(StoreError) -> T) throws(StoreError) -> T {
        do throws(StoreError) {
            return try db.withLock { (c: inout SQLiteConnection) throws(StoreError) -> T in try body(c) }
        } catch {
            throw Self.explain(error)
        }
    }

    // MARK: - Flows

    /// Stores one completed flow and commits it before returning. A flow with `id == 0` gets the
    /// next id (1, 2, 3...); a flow with an id keeps it (an id already stored is an error).
    /// Returns the flow's id in the session.
    @discardableResult
    public func append(_ flow: Flow) throws(StoreError) -> Int {
        try locked { c throws(StoreError) in
            // A flow with messages is stored with them in one transaction.
            flow.messages.isEmpty ? try Self.insert(flow, into: c) : try c.transaction { () throws(StoreError) in try Self.insert(flow, into: c) }
        }
    }

    /// Stores several flows in one transaction (all or none), e.g. for an import. Returns their ids.
    @discardableResult
    public func append(flows: [Flow]) throws(StoreError) -> [Int] {
        try locked { c throws(StoreError) in
            try c.transaction { () throws(StoreError) in
                var ids: [Int] = []
                ids.reserveCapacity(flows.count)
                for f in flows { ids.append(try Self.insert(f, into: c)) }
                return ids
            }
        }
    }

    private static func insert(_ flow: Flow, into c: SQLiteConnection) throws(StoreError) -> Int {
        guard flow.id >= 0 else { throw StoreError(file: c.path, message: "flow id \(flow.id) is negative") }
        do throws(StoreError) {
            try c.run(FlowRow.insertSQL, FlowRow.values(flow, id: flow.id == 0 ? nil : flow.id))
        } catch {
            if let code = error.sqliteCode, code & 0xFF == 19 {
                throw StoreError(file: c.path, message: "flow id \(flow.id) is already in the session", sqliteCode: code)
            }
            throw error
        }
        let id = Int(c.lastInsertRowID)
        for (seq, m) in flow.messages.enumerated() { try c.run(FlowRow.insertMessageSQL, FlowRow.messageValues(m, flow: id, seq: seq)) }
        return id
    }

    /// `flows` with their messages, read in one query over their id range.
    private static func withMessages(_ flows: [Flow], _ c: SQLiteConnection) throws(StoreError) -> [Flow] {
        guard let low = flows.first?.id, let high = flows.last?.id else { return flows }
        let rows = try c.query(FlowRow.selectMessagesSQL + " WHERE flow BETWEEN ? AND ? ORDER BY flow, seq",
                               [.integer(Int64(min(low, high))), .integer(Int64(max(low, high)))]) { s throws(StoreError) in
            try FlowRow.decodeMessage(s, file: c.path)
        }
        return FlowRow.attach(rows, to: flows)
    }

    /// The flow with this id, or nil.
    public func flow(id: Int) throws(StoreError) -> Flow? {
        try locked { c throws(StoreError) in
            try Self.withMessages(try c.query(FlowRow.selectSQL + " WHERE id = ?", [.integer(Int64(id))]) { s throws(StoreError) in
                try FlowRow.decode(s, file: c.path)
            }, c).first
        }
    }

    /// Up to `limit` flows with ids above `after`, in id order.
    public func flowPage(after: Int64, limit: Int) throws(StoreError) -> [Flow] {
        try locked { c throws(StoreError) in
            try Self.withMessages(try c.query(FlowRow.selectSQL + " WHERE id > ? ORDER BY id LIMIT ?",
                                              [.integer(after), .integer(Int64(max(1, limit)))]) { s throws(StoreError) in
                try FlowRow.decode(s, file: c.path)
            }, c)
        }
    }

    /// Every flow that can still be read, in id order, and one error per flow that cannot (a damaged
    /// row or page): for reading what is left of a damaged session that `flows()` refuses as a whole.
    /// Throws only when not even the list of flow ids can be read.
    public func salvageFlows() throws(StoreError) -> (flows: [Flow], damaged: [StoreError]) {
        let ids = try locked { c throws(StoreError) in
            try c.query("SELECT id FROM flows ORDER BY id") { s throws(StoreError) in s.int(0) }
        }
        var flows: [Flow] = []
        var damaged: [StoreError] = []
        for id in ids {
            do throws(StoreError) {
                if let f = try flow(id: id) { flows.append(f) }
            } catch {
                damaged.append(error)
            }
        }
        return (flows, damaged)
    }

    /// One line's worth of every flow (no bodies loaded), in id order: for listings.
    public func flowSummaries() throws(StoreError) -> [FlowSummary] {
        try locked { c throws(StoreError) in
            try c.query("SELECT \(FlowSummary.selectList) FROM flows ORDER BY id") { s throws(StoreError) in FlowSummary(s) }
        }
    }

    /// How many flows the session holds.
    public func flowCount() throws(StoreError) -> Int {
        try locked { c throws(StoreError) in Int(try c.scalar("SELECT count(*) FROM flows")) }
    }

    /// The highest flow id (0 for an empty session).
    public func lastFlowID() throws(StoreError) -> Int {
        try locked { c throws(StoreError) in Int(try c.scalar("SELECT coalesce(max(id), 0) FROM flows")) }
    }

    // MARK: - Findings

    /// Stores findings in one transaction.
    public func append(findings: [Finding]) throws(StoreError) {
        try locked { c throws(StoreError) in
            try c.transaction { () throws(StoreError) in
                for f in findings { try c.run(Self.insertFindingSQL, FindingRow.values(f)) }
            }
        }
    }

    static let insertFindingSQL = insertSQL("findings", FindingRow.columns)
    static let insertDNSSQL = insertSQL("dns", DNSRow.columns)

    static func insertSQL(_ table: String, _ columns: [String]) -> String {
        "INSERT INTO \(table) (\(columns.joined(separator: ", "))) VALUES (\(columns.map { _ in "?" }.joined(separator: ", ")))"
    }

    /// Every finding, in the order stored; `flow` limits them to one flow.
    public func findings(flow: Int? = nil) throws(StoreError) -> [Finding] {
        try locked { c throws(StoreError) in
            let sql = "SELECT id, json FROM findings" + (flow == nil ? "" : " WHERE flow = ?") + " ORDER BY id"
            return try c.query(sql, flow.map { [.integer(Int64($0))] } ?? []) { s throws(StoreError) in
                try FindingRow.decode(json: s.text(1), id: s.int(0), file: c.path)
            }
        }
    }

    // MARK: - DNS

    /// Stores DNS observations in one transaction.
    public func append(dns: [DNSObservation]) throws(StoreError) {
        try locked { c throws(StoreError) in
            try c.transaction { () throws(StoreError) in
                for d in dns { try c.run(Self.insertDNSSQL, DNSRow.values(d)) }
            }
        }
    }

    /// Every DNS observation, in the order stored.
    public func dnsObservations() throws(StoreError) -> [DNSObservation] {
        try locked { c throws(StoreError) in
            try c.query("SELECT id, \(DNSRow.columns.joined(separator: ", ")) FROM dns ORDER BY id") { s throws(StoreError) in
                try DNSRow.decode(s, file: c.path)
            }
        }
    }

    // MARK: - Metadata

    /// Sets (or with nil, removes) one metadata value.
    public func setMetadata(_ value: String?, for key: String) throws(StoreError) {
        try locked { c throws(StoreError) in
            if let value {
                try c.run("INSERT OR REPLACE INTO session (key, value) VALUES (?, ?)", [.text(key), .text(value)])
            } else {
                try c.run("DELETE FROM session WHERE key = ?", [.text(key)])
            }
        }
    }

    public func metadata(_ key: String) throws(StoreError) -> String? {
        try locked { c throws(StoreError) in
            try c.query("SELECT value FROM session WHERE key = ?", [.text(key)]) { s throws(StoreError) in s.text(0) }.first
        }
    }

    /// All metadata, key → value.
    public func allMetadata() throws(StoreError) -> [String: String] {
        try locked { c throws(StoreError) in
            Dictionary(try c.query("SELECT key, value FROM session") { s throws(StoreError) in (s.text(0), s.text(1)) },
                       uniquingKeysWith: { a, _ in a })
        }
    }

    /// The schema version of the open database.
    public func schemaVersion() throws(StoreError) -> Int {
        try locked { c throws(StoreError) in Int(try c.scalar("PRAGMA user_version")) }
    }
}

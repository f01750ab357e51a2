import Synchronization

/// The rows of a session read as they are stored, in id order, for copying them to the fleet store
/// without decoding them: the local session is the journal the fleet uploader reads.
public struct JournalRows: Sendable {
    /// Rows of `FlowRow.columns` (the id first).
    public var flows: [[SQLValue]] = []
    /// Rows of `FlowRow.messageColumns`: the messages of `flows`.
    public var messages: [[SQLValue]] = []
    /// Rows of the finding's id, then `FindingRow.columns`.
    public var findings: [[SQLValue]] = []
    /// Rows of the observation's id, then `DNSRow.columns`.
    public var dns: [[SQLValue]] = []
    /// About how many bytes the rows hold.
    public var bytes = 0

    public init() {}

    public var isEmpty: Bool { flows.isEmpty && findings.isEmpty && dns.isEmpty }
}

extension SessionStore {
    /// The ids of the last row of each table: where a journal ends.
    public struct JournalPosition: Sendable, Hashable {
        public var flow: Int
        public var finding: Int
        public var dns: Int

        public init(flow: Int, finding: Int, dns: Int) {
            self.flow = flow
            self.finding = finding
            self.dns = dns
        }
    }

    /// A reader of this session's journal on a connection of its own (see `JournalReader`).
    public func journalReader() throws(StoreError) -> JournalReader {
        try JournalReader(path: databasePath)
    }
}

/// Reads a session's rows as they are stored, for the fleet uploader, on its own SQLite connection:
/// in WAL mode a reader and the recorder's writes do not wait for each other, so uploading never
/// holds the connection the recorder writes through.
public final class JournalReader: Sendable {
    private let db: Mutex<SQLiteConnection>

    init(path: String) throws(StoreError) {
        db = Mutex(try SQLiteConnection(path: path, create: false))
    }

    private func locked<T: Sendable>(_ body: (SQLiteConnection) throws(StoreError) -> T) throws(StoreError) -> T {
        do throws(StoreError) {
            return try db.withLock { (c: inout SQLiteConnection) throws(StoreError) -> T in try body(c) }
        } catch {
            throw SessionStore.explain(error)
        }
    }

    /// The rows stored after `position`, in id order: at most `limit` of each table, and flows only
    /// up to about `byteLimit` bytes (at least one flow when there is one), read one by one so that
    /// large bodies never pile up in memory.
    public func rows(after position: SessionStore.JournalPosition, limit: Int, byteLimit: Int) throws(StoreError) -> JournalRows {
        try locked { c throws(StoreError) in
            var rows = JournalRows()
            let columns = Int32(FlowRow.columns.count)
            try c.each(FlowRow.selectSQL + " WHERE id > ? ORDER BY id LIMIT ?",
                       [.integer(Int64(position.flow)), .integer(Int64(limit))]) { s throws(StoreError) in
                let row = (0..<columns).map { s.value($0) }
                rows.bytes += row.reduce(0) { $0 + $1.byteCount }
                rows.flows.append(row)
                return rows.bytes < byteLimit
            }
            if case .integer(let low)? = rows.flows.first?.first, case .integer(let high)? = rows.flows.last?.first {
                let messageColumns = Int32(FlowRow.messageColumns.count)
                rows.messages = try c.query(FlowRow.selectMessagesSQL + " WHERE flow BETWEEN ? AND ? ORDER BY flow, seq",
                                            [.integer(low), .integer(high)]) { s throws(StoreError) in
                    (0..<messageColumns).map { s.value($0) }
                }
            }
            let findingSQL = "SELECT id, \(FindingRow.columns.joined(separator: ", ")) FROM findings WHERE id > ? ORDER BY id LIMIT ?"
            let findingColumns = Int32(FindingRow.columns.count + 1)
            rows.findings = try c.query(findingSQL, [.integer(Int64(position.finding)), .integer(Int64(limit))]) { s throws(StoreError) in
                (0..<findingColumns).map { s.value($0) }
            }
            let dnsColumns = Int32(DNSRow.columns.count + 1)
            rows.dns = try c.query("SELECT id, \(DNSRow.columns.joined(separator: ", ")) FROM dns WHERE id > ? ORDER BY id LIMIT ?",
                                   [.integer(Int64(position.dns)), .integer(Int64(limit))]) { s throws(StoreError) in
                (0..<dnsColumns).map { s.value($0) }
            }
            for r in rows.messages + rows.findings + rows.dns { rows.bytes += r.reduce(0) { $0 + $1.byteCount } }
            return rows
        }
    }

    /// How many flows have ids above `id`.
    public func flowCount(after id: Int) throws(StoreError) -> Int {
        try locked { c throws(StoreError) in Int(try c.scalar("SELECT count(*) FROM flows WHERE id > ?", [.integer(Int64(id))])) }
    }

    /// All metadata, key → value.
    public func metadata() throws(StoreError) -> [String: String] {
        try locked { c throws(StoreError) in
            Dictionary(try c.query("SELECT key, value FROM session") { s throws(StoreError) in (s.text(0), s.text(1)) },
                       uniquingKeysWith: { a, _ in a })
        }
    }
}

extension SQLValue {
    /// About how many bytes the value takes.
    public var byteCount: Int {
        switch self {
        case .null: return 1
        case .integer, .real: return 8
        case .text(let s): return s.utf8.count
        case .blob(let b): return b.count
        }
    }
}

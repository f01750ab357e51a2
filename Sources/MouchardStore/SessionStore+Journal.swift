/// The rows of a session read as they are stored, in id order, for copying them to the fleet store
/// without decoding them: the local session is the journal the fleet uploader reads.
public struct JournalRows: Sendable {
    /// Rows of `FlowRow.columns` (the id first).
    public var flows: [[SQLValue]] = []
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

    /// The rows stored after `position`, in id order: at most `limit` of each table, and flows only
    /// up to about `byteLimit` bytes (at least one flow when there is one).
    public func journalRows(after position: JournalPosition, limit: Int, byteLimit: Int) throws(StoreError) -> JournalRows {
        try lockedConnection { c throws(StoreError) in
            var rows = JournalRows()
            let columns = Int32(FlowRow.columns.count)
            let flowSQL = FlowRow.selectSQL + " WHERE id > ? ORDER BY id LIMIT ?"
            for row in try c.query(flowSQL, [.integer(Int64(position.flow)), .integer(Int64(limit))], row: { s throws(StoreError) in
                (0..<columns).map { s.value($0) }
            }) {
                rows.bytes += row.reduce(0) { $0 + $1.byteCount }
                rows.flows.append(row)
                if rows.bytes >= byteLimit { break }
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
            for r in rows.findings + rows.dns { rows.bytes += r.reduce(0) { $0 + $1.byteCount } }
            return rows
        }
    }

    /// How many flows have ids above `id`.
    public func flowCount(after id: Int) throws(StoreError) -> Int {
        try lockedConnection { c throws(StoreError) in Int(try c.scalar("SELECT count(*) FROM flows WHERE id > ?", [.integer(Int64(id))])) }
    }

    /// Where the journal ends now.
    public func journalEnd() throws(StoreError) -> JournalPosition {
        try lockedConnection { c throws(StoreError) in
            JournalPosition(flow: Int(try c.scalar("SELECT coalesce(max(id), 0) FROM flows")),
                            finding: Int(try c.scalar("SELECT coalesce(max(id), 0) FROM findings")),
                            dns: Int(try c.scalar("SELECT coalesce(max(id), 0) FROM dns")))
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

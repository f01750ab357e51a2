import Foundation
import MouchardFindings
import MouchardFlow
import MouchardStore

/// One session in the fleet store (a PostgreSQL database holding the sessions of many gateways):
/// the same reads and writes as a local `SessionStore`. Writes go straight to the database, each
/// call one transaction (a batch of flows is one binary COPY); live recorders write through
/// `SpooledSessionStore` instead, which keeps a local journal and uploads it. Open one with
/// `PostgresFleet`.
public final class PostgresSessionStore: SessionStoring {
    /// The session's id in the fleet store (a UUID).
    public let id: String
    /// The name it was recorded under (`--session NAME`).
    public let name: String
    /// When it started: the partition its rows are in.
    public let started: Date
    let key: FleetSessionKey
    let link: PGLink

    init(key: FleetSessionKey, name: String, link: PGLink) {
        id = key.id
        self.name = name
        started = key.started
        self.key = key
        self.link = link
    }

    public var location: String { "\(link.display) session \(name)" }

    /// `WHERE` of the session's rows (parameters $1, $2): one partition.
    private static let scope = "session_id = $1::uuid AND session_start = $2::timestamptz"
    private var scopeParameters: [String?] { [key.id, key.startParameter] }

    // MARK: - Writes

    @discardableResult
    public func append(_ flow: Flow) throws(StoreError) -> Int {
        try append(flows: [flow])[0]
    }

    @discardableResult
    public func append(flows: [Flow]) throws(StoreError) -> [Int] {
        guard !flows.isEmpty else { return [] }
        return try write { c, position throws(StoreError) in
            var next = position.flow
            var ids: [Int] = []
            var rows: [[SQLValue]] = []
            var messages: [[SQLValue]] = []
            for f in flows {
                guard f.id >= 0 else { throw StoreError(file: self.location, message: "flow id \(f.id) is negative") }
                let id = f.id == 0 ? next + 1 : f.id
                next = max(next, id)
                ids.append(id)
                rows.append(FlowRow.values(f, id: id))
                for (seq, m) in f.messages.enumerated() { messages.append(FlowRow.messageValues(m, flow: id, seq: seq)) }
            }
            let explicit = flows.map(\.id).filter { $0 != 0 }
            var taken = Self.firstRepeated(explicit)
            if taken == nil, !explicit.isEmpty { taken = try self.firstStored(explicit, on: c) }
            if let taken {
                throw StoreError(file: self.location, message: "flow id \(taken) is already in the session", sqlState: "23505")
            }
            var end = position
            end.flow = next
            return (FleetBatch(flows: rows, messages: messages), end, ids)
        }
    }

    public func append(findings: [Finding]) throws(StoreError) {
        try appendNumbered(findings.map { FindingRow.values($0) + FindingColumns.values($0) }, \.finding) { FleetBatch(findings: $0) }
    }

    public func append(dns: [DNSObservation]) throws(StoreError) {
        try appendNumbered(dns.map(DNSRow.values), \.dns) { FleetBatch(dns: $0) }
    }

    /// Rows numbered after the last of their table (`counter`), in one batch.
    private func appendNumbered(_ rows: [[SQLValue]], _ counter: WritableKeyPath<SessionStore.JournalPosition, Int>,
                                _ batch: ([[SQLValue]]) -> FleetBatch) throws(StoreError) {
        guard !rows.isEmpty else { return }
        _ = try write { _, position throws(StoreError) in
            var end = position
            let numbered = rows.map { row -> [SQLValue] in
                end[keyPath: counter] += 1
                return [.integer(Int64(end[keyPath: counter]))] + row
            }
            return (batch(numbered), end, [Int]())
        }
    }

    public func setMetadata(_ value: String?, for key: String) throws(StoreError) {
        _ = try write { _, position throws(StoreError) in (FleetBatch(metadata: [key: value]), position, [Int]()) }
    }

    /// One transaction: the session's row locked, `build` given where the session ends, its batch
    /// inserted and the end moved.
    private func write(_ build: (PGConnection, SessionStore.JournalPosition) throws(StoreError)
                       -> (FleetBatch, SessionStore.JournalPosition, [Int])) throws(StoreError) -> [Int] {
        try link.locked { c throws(StoreError) in
            try c.transaction { () throws(StoreError) in
                let position = try FleetBatchWriter.lockPosition(c, key)
                let (batch, end, ids) = try build(c, position)
                try FleetBatchWriter.insert(batch, key, on: c, advancingTo: end)
                return ids
            }
        }
    }

    private static func firstRepeated(_ ids: [Int]) -> Int? {
        var seen = Set<Int>()
        return ids.first { !seen.insert($0).inserted }
    }

    private func firstStored(_ ids: [Int], on c: PGConnection) throws(StoreError) -> Int? {
        let r = try c.query("SELECT min(id) FROM mouchard.flows WHERE \(Self.scope) AND id = ANY($3::bigint[])",
                            scopeParameters + ["{" + ids.map(String.init).joined(separator: ",") + "}"])
        return r.first.flatMap { $0.optionalInt(0) }
    }

    // MARK: - Reads

    public func flow(id: Int) throws(StoreError) -> Flow? {
        try flows(where: "id = $3::bigint", [String(id)]).first
    }

    public func flowPage(after: Int64, limit: Int) throws(StoreError) -> [Flow] {
        try flows(where: "id > $3::bigint ORDER BY id LIMIT $4::bigint", [String(after), String(max(1, limit))])
    }

    /// The flows `condition` selects, with their messages.
    private func flows(where condition: String, _ parameters: [String?]) throws(StoreError) -> [Flow] {
        let location = self.location
        return try link.locked { c throws(StoreError) in
            let flows = try c.query("SELECT \(FlowRow.columns.joined(separator: ", ")) FROM mouchard.flows WHERE \(Self.scope) AND \(condition)",
                                    scopeParameters + parameters).rows { r throws(StoreError) in try FlowRow.decode(r, file: location) }
            guard let low = flows.map(\.id).min(), let high = flows.map(\.id).max() else { return flows }
            let messages = try c.query("""
                SELECT \(FlowRow.messageColumns.joined(separator: ", ")) FROM mouchard.messages
                WHERE \(Self.scope) AND flow BETWEEN $3::bigint AND $4::bigint ORDER BY flow, seq
                """, scopeParameters + [String(low), String(high)]).rows { r throws(StoreError) in
                try FlowRow.decodeMessage(r, file: location)
            }
            return FlowRow.attach(messages, to: flows)
        }
    }

    public func flowSummaries() throws(StoreError) -> [FlowSummary] {
        try link.locked { c throws(StoreError) in
            try c.query("SELECT \(FlowSummary.selectList) FROM mouchard.flows WHERE \(Self.scope) ORDER BY id",
                        scopeParameters).rows { r throws(StoreError) in FlowSummary(r) }
        }
    }

    public func flowCount() throws(StoreError) -> Int {
        try scalar("SELECT count(*) FROM mouchard.flows WHERE \(Self.scope)")
    }

    public func lastFlowID() throws(StoreError) -> Int {
        try scalar("SELECT coalesce(max(id), 0) FROM mouchard.flows WHERE \(Self.scope)")
    }

    private func scalar(_ sql: String) throws(StoreError) -> Int {
        try link.locked { c throws(StoreError) in try c.query(sql, scopeParameters).first?.int(0) ?? 0 }
    }

    public func findings(flow: Int?) throws(StoreError) -> [Finding] {
        let location = self.location
        return try link.locked { c throws(StoreError) in
            try c.query("SELECT id, json FROM mouchard.findings WHERE \(Self.scope)" + (flow == nil ? "" : " AND flow = $3::bigint")
                        + " ORDER BY id", scopeParameters + (flow.map { [String($0)] } ?? [])).rows { r throws(StoreError) in
                try FindingRow.decode(json: r.text(1), id: r.int(0), file: location)
            }
        }
    }

    public func dnsObservations() throws(StoreError) -> [DNSObservation] {
        let location = self.location
        return try link.locked { c throws(StoreError) in
            try c.query("SELECT id, \(DNSRow.columns.joined(separator: ", ")) FROM mouchard.dns WHERE \(Self.scope) ORDER BY id",
                        scopeParameters).rows { r throws(StoreError) in try DNSRow.decode(r, file: location) }
        }
    }

    public func metadata(_ key: String) throws(StoreError) -> String? {
        try link.locked { c throws(StoreError) in
            try c.query("SELECT value FROM mouchard.metadata WHERE session_id = $1::uuid AND key = $2", [self.key.id, key])
                .first?.text(0)
        }
    }

    public func allMetadata() throws(StoreError) -> [String: String] {
        let pairs = try link.locked { c throws(StoreError) in
            try c.query("SELECT key, value FROM mouchard.metadata WHERE session_id = $1::uuid", [key.id]).rows { r throws(StoreError) in
                (r.text(0), r.text(1))
            }
        }
        return Dictionary(pairs, uniquingKeysWith: { a, _ in a })
    }

    public func schemaVersion() throws(StoreError) -> Int {
        try link.locked { c throws(StoreError) in try PostgresSchema.version(c) ?? 0 }
    }
}

import Foundation
import MouchardFlow
import MouchardStore

/// A session's identity in the fleet store: its id and start (the partition key of its rows).
struct FleetSessionKey: Sendable, Hashable {
    /// Lower-case UUID text.
    let id: String
    let uuid: [UInt8]
    let started: Date
    let startMicroseconds: Int64

    init?(id: String, started: Date) {
        guard let uuid = PGUUID.bytes(id) else { return nil }
        self.id = PGUUID.text(uuid)
        self.uuid = uuid
        self.started = started
        startMicroseconds = PGTime.microseconds(started)
    }

    /// The start as a text parameter (`$n::timestamptz`).
    var startParameter: String { FleetBatchWriter.timestampText(startMicroseconds) }
}

/// Rows for one session, ready to go into the fleet store in one transaction, with their ids:
/// rows of `FlowRow.columns`, of `FlowRow.messageColumns` (the messages of those flows), of the
/// finding id, `FindingRow.columns` and `FindingColumns.names`, of the DNS id then `DNSRow.columns`.
struct FleetBatch: Sendable {
    var flows: [[SQLValue]] = []
    var messages: [[SQLValue]] = []
    var findings: [[SQLValue]] = []
    var dns: [[SQLValue]] = []
    /// Metadata to set (nil values remove the key).
    var metadata: [String: String?] = [:]

    var isEmpty: Bool { flows.isEmpty && findings.isEmpty && dns.isEmpty && metadata.isEmpty }

    /// The highest ids of the batch, or `position`'s where the batch has none.
    func end(from position: SessionStore.JournalPosition) -> SessionStore.JournalPosition {
        func last(_ rows: [[SQLValue]], _ old: Int) -> Int {
            rows.reduce(old) { m, r in if case .integer(let id)? = r.first { return max(m, Int(id)) } else { return m } }
        }
        return .init(flow: last(flows, position.flow), finding: last(findings, position.finding), dns: last(dns, position.dns))
    }
}

extension FleetBatch {
    /// The rows read from a local session (the findings' destination columns read from their JSON).
    init(_ rows: JournalRows) {
        let json = FindingRow.columns.firstIndex(of: "json")! + 1
        let findings = rows.findings.map { row -> [SQLValue] in
            guard json < row.count, case .text(let text) = row[json] else { return row + [.null, .null, .null, .null] }
            return row + FindingColumns.values(json: text)
        }
        self.init(flows: rows.flows, messages: rows.messages, findings: findings, dns: rows.dns)
    }
}

/// Writes batches of one session into the fleet store, inside a transaction the caller opened
/// (`PGConnection.transaction`): the session's row is locked first (`lockPosition`), so that
/// writers of one session (a gateway's uploader and a `mouchard sync`) take turns; the batch goes
/// in with binary COPY; the per-host destinations, the counters and the upload position move in
/// the same transaction. A crash before the commit leaves nothing; after it, the position says so.
enum FleetBatchWriter {
    static let flowCopySQL = copySQL("flows", FlowRow.columns)
    static let findingCopySQL = copySQL("findings", ["id"] + FindingRow.columns + FindingColumns.names)
    static let dnsCopySQL = copySQL("dns", ["id"] + DNSRow.columns)
    static let messageCopySQL = copySQL("messages", FlowRow.messageColumns)

    static let flowTypes = FlowRow.columns.map { PostgresSchema.flowColumnTypes[$0] ?? .text }
    static let findingTypes = (["id"] + FindingRow.columns + FindingColumns.names).map { PostgresSchema.findingColumnTypes[$0] ?? .text }
    static let dnsTypes = (["id"] + DNSRow.columns).map { PostgresSchema.dnsColumnTypes[$0] ?? .text }
    static let messageTypes = FlowRow.messageColumns.map { PostgresSchema.messageColumnTypes[$0] ?? .text }

    static func copySQL(_ table: String, _ columns: [String]) -> String {
        "COPY mouchard.\(table) (session_id, session_start, \(columns.joined(separator: ", "))) FROM STDIN WITH (FORMAT binary)"
    }

    /// Locks the session's row for this transaction and returns how far it has been written.
    static func lockPosition(_ c: PGConnection, _ key: FleetSessionKey) throws(StoreError) -> SessionStore.JournalPosition {
        let r = try c.query("SELECT last_flow, last_finding, last_dns FROM mouchard.sessions WHERE id = $1::uuid FOR UPDATE", [key.id])
        guard let row = r.first else {
            throw StoreError(file: c.display, message: "session \(key.id) is not in the fleet store (deleted?)")
        }
        return .init(flow: row.int(0), finding: row.int(1), dns: row.int(2))
    }

    /// Inserts the batch and moves the session's counters and position to `position` (the end of
    /// what is now stored).
    static func insert(_ batch: FleetBatch, _ key: FleetSessionKey, on c: PGConnection,
                       advancingTo position: SessionStore.JournalPosition) throws(StoreError) {
        if !batch.flows.isEmpty {
            try c.copyIn(flowCopySQL, data: encode(batch.flows, types: flowTypes, key))
            // Per host: flows, first and last seen, body bytes (summed here, from the rows in hand).
            let hosts = HostTotals(batch.flows)
            try c.query("""
                INSERT INTO mouchard.destinations AS d (session_id, session_start, host, flows, first_seen, last_seen,
                                                        request_bytes, response_bytes)
                SELECT $1::uuid, $2::timestamptz, h, n, f, l, q, r
                FROM unnest($3::text[], $4::bigint[], $5::float8[], $6::float8[], $7::bigint[], $8::bigint[]) AS u(h, n, f, l, q, r)
                ON CONFLICT (session_id, host, session_start) DO UPDATE SET flows = d.flows + excluded.flows,
                    first_seen = least(d.first_seen, excluded.first_seen), last_seen = greatest(d.last_seen, excluded.last_seen),
                    request_bytes = d.request_bytes + excluded.request_bytes, response_bytes = d.response_bytes + excluded.response_bytes
                """, [key.id, key.startParameter] + hosts.arrayParameters)
        }
        if !batch.messages.isEmpty {
            try c.copyIn(messageCopySQL, data: encode(batch.messages, types: messageTypes, key))
        }
        if !batch.findings.isEmpty {
            try c.copyIn(findingCopySQL, data: encode(batch.findings, types: findingTypes, key))
            let hosts = HostFindings(batch.findings)
            try c.query("""
                INSERT INTO mouchard.destinations AS d (session_id, session_start, host, findings, company)
                SELECT $1::uuid, $2::timestamptz, h, n, c FROM unnest($3::text[], $4::bigint[], $5::text[]) AS u(h, n, c)
                ON CONFLICT (session_id, host, session_start) DO UPDATE SET findings = d.findings + excluded.findings,
                    company = coalesce(d.company, excluded.company)
                """, [key.id, key.startParameter] + hosts.arrayParameters)
        }
        if !batch.dns.isEmpty {
            try c.copyIn(dnsCopySQL, data: encode(batch.dns, types: dnsTypes, key))
        }
        for (k, v) in batch.metadata.sorted(by: { $0.key < $1.key }) {
            if let v {
                try c.query("""
                    INSERT INTO mouchard.metadata (session_id, key, value) VALUES ($1::uuid, $2, $3)
                    ON CONFLICT (session_id, key) DO UPDATE SET value = excluded.value
                    """, [key.id, clean(k), clean(v)])
            } else {
                try c.query("DELETE FROM mouchard.metadata WHERE session_id = $1::uuid AND key = $2", [key.id, clean(k)])
            }
            if let column = FleetMetadata.sessionColumns[k] {
                try c.query("UPDATE mouchard.sessions SET \(column) = $2\(column == "ended" ? "::timestamptz" : "") WHERE id = $1::uuid",
                            [key.id, v.flatMap { column == "ended" ? FleetMetadata.timestampParameter($0) : clean($0) }])
            }
        }
        try c.query("""
            UPDATE mouchard.sessions SET flows = flows + $2::bigint, findings = findings + $3::bigint, dns = dns + $4::bigint,
                last_flow = greatest(last_flow, $5::bigint), last_finding = greatest(last_finding, $6::bigint),
                last_dns = greatest(last_dns, $7::bigint), uploaded = now()
            WHERE id = $1::uuid
            """, [key.id, String(batch.flows.count), String(batch.findings.count), String(batch.dns.count),
                  String(position.flow), String(position.finding), String(position.dns)])
    }

    /// The rows in binary COPY format, each prefixed with the session's id and start.
    static func encode(_ rows: [[SQLValue]], types: [PGType], _ key: FleetSessionKey) -> [UInt8] {
        var buffer = PGCopyBuffer(capacity: rows.reduce(64) { $0 + 64 + $1.reduce(0) { $0 + 4 + $1.byteCount } })
        for row in rows {
            buffer.startRow(fields: types.count + 2)
            buffer.uuid(key.uuid)
            buffer.timestamptz(microseconds: key.startMicroseconds)
            for (k, type) in types.enumerated() { buffer.append(k < row.count ? row[k] : .null, as: type) }
        }
        return buffer.finished()
    }

    /// `{"a","b\\"c",NULL}`: strings as an array parameter (quoted, `"` and `\\` escaped, NUL cleaned).
    static func textArray(_ items: [String?]) -> String {
        "{" + items.map { item in
            guard let s = item else { return "NULL" }
            return "\"" + clean(s).replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"") + "\""
        }.joined(separator: ",") + "}"
    }

    /// Text without NUL characters (PostgreSQL text cannot hold them), for parameters.
    static func clean(_ s: String) -> String {
        s.contains("\u{0}") ? String(decoding: PGCopyBuffer.withoutNUL(s), as: UTF8.self) : s
    }

    /// `2026-10-05 07:41:40.215000+00`, exact to the microsecond (times before 1970 are not used:
    /// session starts are clamped, see `FleetMetadata.sessionStart`).
    static func timestampText(_ microseconds: Int64) -> String {
        let unix = max(0, microseconds + Int64(PGTime.unixOffsetSeconds) * 1_000_000)
        let date = Date(timeIntervalSince1970: Double(unix / 1_000_000))
        let iso = ISO8601Time.format(date)  // 2026-10-05T07:41:40Z or with milliseconds
        let us = String(unix % 1_000_000)
        return String(iso.prefix(19)).replacingOccurrences(of: "T", with: " ") + "."
            + String(repeating: "0", count: 6 - us.count) + us + "+00"
    }
}

/// Per host of a batch of flow rows: how many, first and last start, request and response body
/// bytes; as the array parameters of the destinations upsert.
struct HostTotals {
    struct Total {
        var flows = 0
        var first = Double.infinity
        var last = -Double.infinity
        var requestBytes = 0
        var responseBytes = 0
    }

    private(set) var totals: [String: Total] = [:]

    static let hostColumn = FlowRow.columns.firstIndex(of: "host")!
    static let startedColumn = FlowRow.columns.firstIndex(of: "started")!
    static let requestBodyColumn = FlowRow.columns.firstIndex(of: "req_body")!
    static let responseBodyColumn = FlowRow.columns.firstIndex(of: "resp_body")!

    init(_ rows: [[SQLValue]]) {
        func text(_ v: SQLValue) -> String {
            switch v {
            case .text(let s): return s
            case .blob(let b): return String(decoding: b, as: UTF8.self)
            case .integer(let n): return String(n)
            case .real(let d): return String(d)
            case .null: return ""
            }
        }
        func number(_ v: SQLValue) -> Double {
            switch v {
            case .real(let d): return d
            case .integer(let n): return Double(n)
            default: return 0
            }
        }
        for row in rows where row.count == FlowRow.columns.count {
            var t = totals[text(row[Self.hostColumn]), default: Total()]
            let started = number(row[Self.startedColumn])
            t.flows += 1
            t.first = min(t.first, started)
            t.last = max(t.last, started)
            if case .blob(let b) = row[Self.requestBodyColumn] { t.requestBytes += b.count }
            if case .blob(let b) = row[Self.responseBodyColumn] { t.responseBytes += b.count }
            totals[text(row[Self.hostColumn])] = t
        }
    }

    /// hosts, flows, first seen, last seen, request bytes, response bytes: six array literals, in one order.
    var arrayParameters: [String?] {
        let hosts = totals.keys.sorted()
        let rows = hosts.map { totals[$0]! }
        func list(_ values: [String]) -> String { "{" + values.joined(separator: ",") + "}" }
        return [FleetBatchWriter.textArray(hosts), list(rows.map { String($0.flows) }), list(rows.map { "\($0.first)" }),
                list(rows.map { "\($0.last)" }), list(rows.map { String($0.requestBytes) }), list(rows.map { String($0.responseBytes) })]
    }
}

/// Per host of a batch of finding rows: how many, and the first company named; as the array
/// parameters of the destinations upsert.
struct HostFindings {
    private(set) var totals: [String: (findings: Int, company: String?)] = [:]

    /// Columns of a finding row: its id, `FindingRow.columns`, `FindingColumns.names`.
    static let hostColumn = FindingRow.columns.firstIndex(of: "host")! + 1
    static let companyColumn = FindingRow.columns.count + 1

    init(_ rows: [[SQLValue]]) {
        for row in rows where row.count > Self.companyColumn {
            guard case .text(let host) = row[Self.hostColumn] else { continue }
            var t = totals[host, default: (0, nil)]
            t.findings += 1
            if t.company == nil, case .text(let company) = row[Self.companyColumn] { t.company = company }
            totals[host] = t
        }
    }

    /// hosts, findings, companies.
    var arrayParameters: [String?] {
        let hosts = totals.keys.sorted()
        return [FleetBatchWriter.textArray(hosts), "{" + hosts.map { String(totals[$0]!.findings) }.joined(separator: ",") + "}",
                FleetBatchWriter.textArray(hosts.map { totals[$0]!.company })]
    }
}

import Foundation
import MouchardFlow
import MouchardStore

/// A fleet store: a PostgreSQL database holding the sessions of many gateways, proxies and imports
/// (`--store postgresql://...`). Opening it connects and brings its schema to this build's version
/// (refusing a newer one); sessions are then found by name or id, or created.
public final class PostgresFleet: Sendable {
    let link: PGLink
    /// The URL without its password, for messages.
    public var display: String { link.display }

    /// Connects to `url` and migrates the schema (a reader of an empty database gets an error
    /// instead: there is nothing to read).
    public init(url: String, forWriting: Bool = true) throws(StoreError) {
        let c = try PGConnection(url: url)
        if !forWriting, try PostgresSchema.version(c) == nil {
            throw StoreError(file: c.display, message: "no Mouchard sessions in this database (nothing was uploaded to it yet)")
        }
        try PostgresSchema.migrate(c)
        link = PGLink(c)
    }

    /// The session with this id, created (with its month's partitions) when it is not there yet;
    /// `started` counts only at creation.
    public func session(id: String, name: String, started: Date) throws(StoreError) -> PostgresSessionStore {
        guard let proposed = FleetSessionKey(id: id, started: started) else {
            throw StoreError(file: display, message: "'\(id)' is not a session id (a UUID)")
        }
        let key = try link.locked { c throws(StoreError) in try Self.ensureSession(c, proposed, name: name) }
        return PostgresSessionStore(key: key, name: name, link: link)
    }

    /// Creates the session's row (and its month's partitions) unless it is there; returns its key
    /// as stored (a session created earlier keeps its start).
    static func ensureSession(_ c: PGConnection, _ proposed: FleetSessionKey, name: String) throws(StoreError) -> FleetSessionKey {
        try c.query("SELECT mouchard.ensure_month($1::timestamptz)", [proposed.startParameter])
        try c.query("""
            INSERT INTO mouchard.sessions (id, name, started) VALUES ($1::uuid, $2, $3::timestamptz)
            ON CONFLICT (id) DO NOTHING
            """, [proposed.id, FleetBatchWriter.clean(name), proposed.startParameter])
        guard let row = try sessionRow(c, "id = $1::uuid", [proposed.id]).first else {
            throw StoreError(file: c.display, message: "session \(proposed.id) could not be created")
        }
        return row.key
    }

    /// The session named `reference` (its name, its id, or the first 8 or more characters of its id).
    /// Several sessions of one name (from different gateways) are an error listing their ids.
    public func openSession(_ reference: String) throws(StoreError) -> PostgresSessionStore {
        let hex = reference.lowercased().filter { $0 != "-" }
        let byID = hex.count >= 8 && hex.allSatisfy(\.isHexDigit)
        let found = try link.locked { c throws(StoreError) in
            try Self.sessionRow(c, byID ? "name = $1 OR replace(id::text, '-', '') LIKE $2" : "name = $1",
                                byID ? [reference, hex + "%"] : [reference])
        }
        guard let first = found.first else {
            throw StoreError(file: display, message: "no session '\(reference)' in the fleet store (mouchard sessions --store ... lists them)")
        }
        guard found.count == 1 else {
            let list = found.prefix(5).map { "\($0.key.id) (\($0.gateway ?? "?"), \(ISO8601Time.format($0.key.started)))" }
            throw StoreError(file: display, message: "\(found.count) sessions are named '\(reference)': give the id of one: "
                             + list.joined(separator: ", ") + (found.count > 5 ? ", ..." : ""))
        }
        return PostgresSessionStore(key: first.key, name: first.name, link: link)
    }

    /// The sessions matching `filter`, oldest first.
    public func sessions(_ filter: FleetFilter = FleetFilter()) throws(StoreError) -> [FleetSessionInfo] {
        let (condition, parameters) = filter.sql(firstParameter: 1)
        return try link.locked { c throws(StoreError) in
            try c.query("""
                SELECT id, name, app, app_version, device, gateway, started, ended, flows, findings, uploaded
                FROM mouchard.sessions WHERE \(condition) ORDER BY started, name
                """, parameters).rows { r throws(StoreError) in
                FleetSessionInfo(id: r.text(0), name: r.text(1), app: r.optionalText(2), appVersion: r.optionalText(3),
                                 device: r.optionalText(4), gateway: r.optionalText(5),
                                 started: Date(timeIntervalSinceReferenceDate: r.double(6)),
                                 ended: r.isNull(7) ? nil : Date(timeIntervalSinceReferenceDate: r.double(7)),
                                 flows: r.int(8), findings: r.int(9),
                                 uploaded: r.isNull(10) ? nil : Date(timeIntervalSinceReferenceDate: r.double(10)))
            }
        }
    }

    /// Opens every session `filter` selects, oldest first.
    public func openSessions(_ filter: FleetFilter) throws(StoreError) -> [PostgresSessionStore] {
        let link = self.link
        return try sessions(filter).map { info throws(StoreError) in
            guard let key = FleetSessionKey(id: info.id, started: info.started) else {
                throw StoreError(file: display, message: "session \(info.id) has a damaged id")
            }
            return PostgresSessionStore(key: key, name: info.name, link: link)
        }
    }

    private struct SessionRow: Sendable {
        var key: FleetSessionKey
        var name: String
        var gateway: String?
    }

    private static func sessionRow(_ c: PGConnection, _ condition: String, _ parameters: [String?]) throws(StoreError) -> [SessionRow] {
        try c.query("SELECT id, name, started, gateway FROM mouchard.sessions WHERE \(condition) ORDER BY started",
                    parameters).rows { r throws(StoreError) in
            guard let key = FleetSessionKey(id: r.text(0), started: Date(timeIntervalSinceReferenceDate: r.double(2))) else {
                throw StoreError(file: c.display, message: "session \(r.text(0)) has a damaged id")
            }
            return SessionRow(key: key, name: r.text(1), gateway: r.optionalText(3))
        }
    }
}

/// Which sessions a fleet query covers: an app, some of its versions, a start time.
public struct FleetFilter: Sendable, Hashable {
    public var app: String?
    /// Empty: every version.
    public var versions: [String]
    /// Sessions started at or after this time.
    public var since: Date?

    public init(app: String? = nil, versions: [String] = [], since: Date? = nil) {
        self.app = app
        self.versions = versions
        self.since = since
    }

    /// The condition on `mouchard.sessions` (aliased `prefix`) and its parameters, numbered from `firstParameter`.
    func sql(firstParameter: Int, prefix: String = "") -> (String, [String?]) {
        var conditions = ["true"]
        var parameters: [String?] = []
        func next(_ value: String) -> Int {
            parameters.append(value)
            return firstParameter + parameters.count - 1
        }
        if let app { conditions.append("\(prefix)app = $\(next(app))") }
        if !versions.isEmpty {
            let list = versions.map { "\"" + $0.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"") + "\"" }
            conditions.append("\(prefix)app_version = ANY($\(next("{" + list.joined(separator: ",") + "}"))::text[])")
        }
        if let since { conditions.append("\(prefix)started >= $\(next(FleetBatchWriter.timestampText(PGTime.microseconds(since))))::timestamptz") }
        return (conditions.joined(separator: " AND "), parameters)
    }
}

/// A line of `mouchard sessions`.
public struct FleetSessionInfo: Sendable, Hashable {
    public var id: String
    public var name: String
    public var app: String?
    public var appVersion: String?
    public var device: String?
    public var gateway: String?
    public var started: Date
    public var ended: Date?
    public var flows: Int
    public var findings: Int
    /// When its last batch arrived.
    public var uploaded: Date?
}

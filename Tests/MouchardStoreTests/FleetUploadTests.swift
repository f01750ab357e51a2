import Foundation
import MouchardFindings
import MouchardFlow
import MouchardTestSupport
import MouchardWire
import Synchronization
import Testing
@testable import MouchardPostgres
@testable import MouchardStore

/// The fleet uploader: what a recorder commits locally arrives in PostgreSQL exactly once, in order,
/// whatever happens to the database meanwhile.
@Suite(.requiresPostgres) struct FleetUploadTests {
    /// A local session (temporary folder) with a spooled store uploading it to `url`.
    static func spooled(_ url: String, log: @escaping @Sendable (String) -> Void = { _ in }) throws
        -> (store: SpooledSessionStore, tmp: TemporaryDirectory) {
        let tmp = TemporaryDirectory()
        let journal = try SessionStore(directory: tmp.path + "/gw-session", create: true)
        return (try SpooledSessionStore(journal: journal, url: url, log: log), tmp)
    }

    /// Flow `k` of a synthetic recording, with a distinct body and one of seven hosts.
    static func flow(_ k: Int) -> Flow {
        let host = "sdk\(k % 7).example"
        return Flow(id: 0, source: .proxy, transport: .https,
                    request: HTTPRequest(head: HTTPRequestHead(method: "POST", target: "/e/\(k)", headers: [("Host", host)]),
                                         scheme: "https", body: Array("{\"seq\":\(k),\"pad\":\"\(String(repeating: "x", count: k % 300))\"}".utf8)),
                    response: HTTPResponse(head: HTTPResponseHead(status: 200, reason: "OK"), body: Array("ok".utf8)),
                    timings: FlowTimings(started: Date(timeIntervalSinceReferenceDate: 800_000_000 + Double(k) / 1000)))
    }

    @Test func theUploadedSessionEqualsTheLocalOne() throws {
        let url = try FleetDatabase.sharedURL()
        let (store, tmp) = try Self.spooled(url)
        defer { tmp.cleanUp() }
        store.uploader.start()
        try store.setMetadata("Lumo", for: SessionStore.MetadataKey.app)
        try store.setMetadata("1.3", for: SessionStore.MetadataKey.appVersion)
        try store.append(flows: StoreSamples.flows())
        try store.append(findings: StoreSamples.findings())
        try store.append(dns: StoreSamples.dns())
        try store.append(StoreSamples.flows()[0])
        try store.setMetadata(ISO8601Time.format(Date()), for: SessionStore.MetadataKey.ended)
        let (status, left) = store.finish(timeout: 30)
        #expect(left == 0 && !status.stopped && status.flowsSent == 5 && status.findingsSent == 3 && status.dnsSent == 2)

        let fleet = try PostgresFleet(url: url, forWriting: false)
        let id = try #require(try store.metadata(SessionStore.MetadataKey.fleetSession))
        let remote = try fleet.openSession(id)
        #expect(try remote.flows() == store.journal.flows())
        #expect(try remote.findings() == store.journal.findings())
        #expect(try remote.dnsObservations() == store.journal.dnsObservations())
        #expect(try remote.allMetadata() == store.journal.allMetadata())
        #expect(remote.name == "gw-session")
        let info = try #require(try fleet.sessions(FleetFilter(app: "Lumo", versions: ["1.3"])).first { $0.id == id })
        #expect(info.flows == 5 && info.findings == 3 && info.ended != nil && info.appVersion == "1.3")
        #expect(try fleet.sessions(FleetFilter(app: "Lumo", versions: ["1.2"])).allSatisfy { $0.id != id })
    }

    /// A recorded WebSocket flow arrives with its messages, in order, through the journal upload.
    @Test func messagesAreUploadedWithTheirFlows() throws {
        let url = try FleetDatabase.sharedURL()
        let (store, tmp) = try Self.spooled(url)
        defer { tmp.cleanUp() }
        store.uploader.start()
        let ws = StoreMessagesTests.webSocketFlow()
        try store.append(flows: [StoreSamples.flows()[0], ws])
        try store.append(ws)
        let (status, left) = store.finish(timeout: 30)
        #expect(left == 0 && status.flowsSent == 3)
        let id = try #require(try store.metadata(SessionStore.MetadataKey.fleetSession))
        let remote = try PostgresFleet(url: url, forWriting: false).openSession(id)
        let back = try remote.flows()
        #expect(back.map(\.messages.count) == [0, 3, 3])
        #expect(back == (try store.journal.flows()))
        #expect(try remote.flowSummaries().map(\.serverMessages) == [0, 1, 1])
    }

    /// A database of fleet schema version 1 with a month of flows is brought to the latest version:
    /// the existing month gets its messages partition (version 2), and messages of flows in that
    /// month go in.
    @Test func version1DatabasesGainTheMessagesTable() throws {
        let server = try #require(PostgresTestServer.shared)
        let url = try server.freshDatabase()
        let c = try PGConnection(url: url)
        try PostgresSchema.migrate(c, migrations: [PostgresSchema.v1])
        let started = Date(timeIntervalSinceReferenceDate: 800_000_000)
        try c.query("SELECT mouchard.ensure_month($1::timestamptz)", [FleetSessionKey(id: UUID().uuidString, started: started)!.startParameter])
        let db = PostgresTestServer.database(in: url)
        #expect(try server.psql("SELECT to_regclass('mouchard.messages') IS NULL", database: db) == "t\n")
        let fleet = try PostgresFleet(url: url)
        #expect(try PostgresSchema.version(c) == PostgresSchema.latestVersion)
        #expect(try server.psql("SELECT count(*) FROM pg_inherits WHERE inhparent = 'mouchard.messages'::regclass", database: db) == "1\n")
        let store = try fleet.session(id: UUID().uuidString, name: "old-month", started: started)
        let id = try store.append(StoreMessagesTests.webSocketFlow())
        #expect(try store.flow(id: id)?.messages.count == 3)
    }

    /// Two uploaders of one session at once (a gateway's, and `mouchard sync` run beside it) take
    /// turns on the session's row: each batch goes in once.
    @Test func twoUploadersOfOneSessionStoreEachFlowOnce() throws {
        let url = try FleetDatabase.sharedURL()
        let (store, tmp) = try Self.spooled(url)
        defer { tmp.cleanUp() }
        for k in 0..<30 { try store.append(flows: (0..<100).map { Self.flow(k * 100 + $0) }) }
        let second = try SpooledSessionStore(journal: store.journal, url: url, log: { _ in })
        store.uploader.start()
        second.uploader.start()
        let a = store.finish(timeout: 60)
        let b = second.finish(timeout: 60)
        #expect(a.flowsLeft == 0 && b.flowsLeft == 0)
        #expect(a.status.flowsSent + b.status.flowsSent == 3000)
        let remote = try PostgresFleet(url: url, forWriting: false).openSession(try #require(try store.metadata("fleet_session")))
        #expect(try remote.flowCount() == 3000)
        #expect(try remote.flowSummaries().map(\.id) == Array(1...3000))
    }

    /// The acceptance test of the fleet store: the database is killed (SIGKILL, as a crash) while a
    /// recorder writes, stays down while flows keep coming, and is started again; every flow and
    /// finding arrives exactly once, and the per-host and per-session counts agree.
    @Test func aKilledDatabaseLosesNothingAndDoublesNothing() throws {
        let server = try PostgresTestServer()
        defer { server.stop(removing: true) }
        let url = try server.freshDatabase()
        let said = Mutex<[String]>([])
        let (store, tmp) = try Self.spooled(url) { line in said.withLock { $0.append(line) } }
        defer { tmp.cleanUp() }
        store.uploader.start()
        let total = 6000
        let batch = 50
        // Phase 1: the database is up.
        for k in stride(from: 0, to: total / 3, by: batch) { try appendBatch(store, from: k, count: batch) }
        server.kill()
        // Phase 2: it is away; the recorder goes on (bounded: a fixed number of batches).
        for k in stride(from: total / 3, to: 2 * total / 3, by: batch) { try appendBatch(store, from: k, count: batch) }
        usleep(300_000)
        try server.start()
        // Phase 3: back.
        for k in stride(from: 2 * total / 3, to: total, by: batch) { try appendBatch(store, from: k, count: batch) }
        let (status, left) = store.finish(timeout: 60)
        #expect(left == 0 && !status.stopped)
        let lines = said.withLock { $0 }
        #expect(lines.contains { $0.contains("unreachable") } && lines.contains { $0.contains("is back") })

        let db = PostgresTestServer.database(in: url)
        let counts = try server.psql("""
            SELECT count(*), count(DISTINCT id), min(id), max(id) FROM mouchard.flows;
            SELECT count(*), count(DISTINCT id) FROM mouchard.findings;
            SELECT flows, findings, last_flow FROM mouchard.sessions;
            SELECT sum(flows), sum(findings) FROM mouchard.destinations;
            """, database: db)
        #expect(counts.split(separator: "\n") == ["\(total)|\(total)|1|\(total)", "\(total / 2)|\(total / 2)",
                                                  "\(total)|\(total / 2)|\(total)", "\(total)|\(total / 2)"])
        // And the rows are the recorded ones, byte for byte.
        let remote = try PostgresFleet(url: url, forWriting: false).openSession(try #require(try store.metadata("fleet_session")))
        for id in [1, total / 3 + 1, total / 2, total] {
            #expect(try remote.flow(id: id) == store.journal.flow(id: id))
        }
        #expect(try remote.findings() == store.journal.findings())
    }

    /// Appends flows `from..<from+count` in one batch, and a finding for every second one.
    private func appendBatch(_ store: SpooledSessionStore, from: Int, count: Int) throws {
        let ids = try store.append(flows: (from..<from + count).map(Self.flow))
        try store.append(findings: ids.filter { $0 % 2 == 0 }.map { sampleFinding($0, "idfa", confidence: 1) })
        usleep(2_000)
    }

    @Test func schemaVersionsAreMigratedOnFirstUseAndANewerOneIsRefused() throws {
        let server = try #require(PostgresTestServer.shared)
        let url = try server.freshDatabase()
        let db = PostgresTestServer.database(in: url)
        // A reader of an empty database is told there is nothing, and changes nothing.
        #expect(throws: StoreError.self) { try PostgresFleet(url: url, forWriting: false) }
        #expect(try server.psql("SELECT count(*) FROM pg_namespace WHERE nspname = 'mouchard'", database: db) == "0\n")
        _ = try PostgresFleet(url: url)
        #expect(try server.psql("SELECT version FROM mouchard.schema_version", database: db) == "\(PostgresSchema.latestVersion)\n")
        // A later build's migration runs once, on an existing database.
        let c = try PGConnection(url: url)
        try PostgresSchema.migrate(c, migrations: PostgresSchema.migrations + ["ALTER TABLE mouchard.sessions ADD COLUMN note text"])
        #expect(try PostgresSchema.version(c) == PostgresSchema.latestVersion + 1)
        #expect(try server.psql("SELECT count(*) FROM information_schema.columns WHERE table_name = 'sessions' AND column_name = 'note'",
                                database: db) == "1\n")
        // This build refuses it, before writing anything.
        do {
            _ = try PostgresFleet(url: url)
            Issue.record("a newer fleet schema was accepted")
        } catch {
            #expect(error.message == "made by a newer Mouchard (fleet schema version \(PostgresSchema.latestVersion + 1); "
                    + "this build knows up to \(PostgresSchema.latestVersion))")
        }
    }

    /// The binary COPY writes each column in its declared type: the fleet's `flows` table has the
    /// local table's columns, in the types `PostgresSchema.flowColumnTypes` says.
    @Test func theFleetTablesHaveTheLocalColumnsInTheirDeclaredTypes() throws {
        let server = try #require(PostgresTestServer.shared)
        let url = try FleetDatabase.sharedURL()
        _ = try PostgresFleet(url: url)
        let db = PostgresTestServer.database(in: url)
        func columns(_ table: String) throws -> [String: String] {
            let text = try server.psql("SELECT column_name || '=' || udt_name FROM information_schema.columns "
                                       + "WHERE table_schema = 'mouchard' AND table_name = '\(table)'", database: db)
            return Dictionary(uniqueKeysWithValues: text.split(separator: "\n").map { line in
                let parts = line.split(separator: "=")
                return (String(parts[0]), String(parts[1]))
            })
        }
        let names: [PGType: String] = [.int8: "int8", .int4: "int4", .float8: "float8", .bool: "bool", .bytea: "bytea",
                                       .text: "text", .json: "json"]
        for (table, list, types) in [("flows", FlowRow.columns, PostgresSchema.flowColumnTypes),
                                     ("findings", ["id"] + FindingRow.columns, PostgresSchema.findingColumnTypes),
                                     ("dns", ["id"] + DNSRow.columns, PostgresSchema.dnsColumnTypes),
                                     ("messages", FlowRow.messageColumns, PostgresSchema.messageColumnTypes)] {
            let actual = try columns(table)
            for c in list { #expect(actual[c] == names[types[c] ?? .text], "\(table).\(c)") }
        }
    }
}

import Foundation
import MouchardTestSupport
import Testing
@testable import MouchardCLI

/// The fleet store from the command line, against the test PostgreSQL server: recorders upload with
/// --store, readers read fleet sessions, `sessions` lists them, `sync` uploads old sessions once.
@Suite(.requiresPostgres) struct FleetCommandsTests {
    /// A working folder, and a fresh database of the shared test server.
    struct Fleet {
        let dir = NSTemporaryDirectory() + "mouchard-fleet-cli-" + UUID().uuidString
        let server: PostgresTestServer
        let url: String

        init() throws {
            server = try #require(PostgresTestServer.shared, Comment(rawValue: PostgresTestServer.sharedStartError ?? ""))
            url = try server.freshDatabase()
            try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        }

        func cleanUp() { try? FileManager.default.removeItem(atPath: dir) }

        func run(_ args: [String]) -> (status: Int32, out: String, err: String) {
            let c = Captured()
            let status = Mouchard.main(args, io: CommandIO(out: c.io.out, err: c.io.err, currentDirectory: dir))
            return (status, c.out, c.err)
        }

        func sql(_ query: String) throws -> String {
            try server.psql(query, database: PostgresTestServer.database(in: url)).trimmingCharacters(in: .whitespacesAndNewlines)
        }
    }

    static let rules = TestFiles.rules.path
    static func har(_ device: String) -> String { TestFiles.fixture(device, "traffic.har").path }

    @Test func importedVersionsAreListedReadReportedAndDiffed() throws {
        let f = try Fleet()
        defer { f.cleanUp() }
        for (device, version) in [("ios", "1.2"), ("android", "1.3")] {
            let r = f.run(["import", Self.har(device), "--session", "lumo-\(version)", "--store", f.url, "--app", "Lumo",
                           "--app-version", version])
            #expect(r.status == 0, "\(r.err)")
            #expect(r.err.contains("fleet store: 35 flows and 0 findings uploaded"), "\(r.err)")
        }
        let list = f.run(["sessions", "--store", f.url])
        #expect(list.status == 0)
        let lines = list.out.split(separator: "\n")
        #expect(lines.count == 3 && lines[2].hasPrefix("2 sessions in postgresql://mouchard@/"))
        #expect(lines[0].contains("  lumo-1.2  Lumo 1.2  ") && lines[0].contains("  35 flows  0 findings  "))
        let json = f.run(["sessions", "--store", f.url, "--app", "Lumo", "--versions", "1.3", "--format", "json"])
        #expect(json.out.contains("\"name\" : \"lumo-1.3\"") && !json.out.contains("lumo-1.2"))
        #expect(f.run(["sessions", "--store", f.url, "--app", "Other"]).out.hasPrefix("0 sessions"))

        // A fleet session reads as its local copy does.
        let fleetFlows = f.run(["flows", "lumo-1.2", "--store", f.url, "--full-urls"])
        #expect(fleetFlows.status == 0 && fleetFlows.out == f.run(["flows", "lumo-1.2", "--full-urls"]).out)
        let fleetScan = f.run(["scan", "lumo-1.3", "--store", f.url, "--rules", Self.rules, "--format", "jsonl"])
        #expect(fleetScan.status == 0 && !fleetScan.out.isEmpty)
        #expect(fleetScan.out == f.run(["scan", "lumo-1.3", "--rules", Self.rules, "--format", "jsonl"]).out)

        // Across versions: the report adds who received what per version; diff compares the versions.
        let report = f.run(["report", "--store", f.url, "--app", "Lumo", "--versions", "1.2,1.3", "--rules", Self.rules,
                            "--out", "lumo.md"])
        #expect(report.status == 0, "\(report.err)")
        let md = try String(contentsOfFile: f.dir + "/lumo.md", encoding: .utf8)
        #expect(md.contains("## Who received what, per app and version"))
        #expect(md.contains("### Lumo 1\\.2") && md.contains("### Lumo 1\\.3"))
        #expect(md.contains("| Device IDs | Adjust | app\\.adjust\\.com | third |"))
        let diff = f.run(["diff", "--store", f.url, "--app", "Lumo", "--versions", "1.2,1.3", "--rules", Self.rules])
        let local = f.run(["diff", "lumo-1.2", "lumo-1.3", "--rules", Self.rules])
        #expect(diff.status == 0 && diff.out.hasPrefix("changes from Lumo 1.2 to Lumo 1.3:\n"))
        #expect(diff.out.split(separator: "\n").dropFirst() == local.out.split(separator: "\n").dropFirst())
        #expect(f.run(["diff", "--store", f.url, "--app", "Lumo", "--versions", "1.2"]).status == 64)
        let missing = f.run(["diff", "--store", f.url, "--app", "Lumo", "--versions", "1.2,9.9"])
        #expect(missing.status == 1 && missing.err.contains("no session of Lumo 9.9 in the fleet store"))
    }

    @Test func syncUploadsAnOldSessionOnce() throws {
        let f = try Fleet()
        defer { f.cleanUp() }
        #expect(f.run(["import", Self.har("ios"), "--session", "old"]).status == 0)
        // The store away: sync says so and fails, the session is untouched.
        let away = f.run(["sync", "old", "--store", "postgresql://nobody:s3cret@/x?host=\(f.dir)/nosocket", "--timeout", "1"])
        #expect(away.status == 1 && away.err.contains("35 flows of captures/old not uploaded"), "\(away.err)")
        #expect(away.err.contains("nobody:***@") && !away.err.contains("s3cret") && !away.out.contains("s3cret"))
        let first = f.run(["sync", "old", "--store", f.url, "--app", "Lumo", "--app-version", "1.1"])
        #expect(first.status == 0, "\(first.err)")
        #expect(first.out.contains(": 35 flows, 0 findings, 0 DNS answers uploaded; the fleet store holds it up to flow 35"))
        let again = f.run(["sync", "old", "--store", f.url])
        #expect(again.status == 0 && again.out.contains(": 0 flows, 0 findings, 0 DNS answers uploaded"))
        #expect(try f.sql("SELECT count(*), count(DISTINCT id) FROM mouchard.flows") == "35|35")
        #expect(try f.sql("SELECT name, app, app_version, flows FROM mouchard.sessions") == "old|Lumo|1.1|35")
    }

    @Test func badStoreArgumentsAreUsageErrors() throws {
        let f = try Fleet()
        defer { f.cleanUp() }
        let wrong = f.run(["sessions", "--store", "mysql://u:pw@db/x"])
        #expect(wrong.status == 64 && wrong.err.hasPrefix("mouchard: --store wants a PostgreSQL URL"))
        #expect(!wrong.err.contains("pw@"))
        #expect(f.run(["sessions"]).status == 64)
        #expect(f.run(["sync", "old"]).status == 64)
        #expect(f.run(["report", "--out", "x.md"]).status == 64)
        let selectWithInputs = f.run(["report", "a", "--store", f.url, "--versions", "1", "--out", "x.md"])
        #expect(selectWithInputs.status == 64)
        let sniff = f.run(["sniff", "-i", "lo", "--store", f.url])
        #expect(sniff.status == 64 && sniff.err.hasPrefix("mouchard: --store uploads the session: give --session S too"))
        let none = f.run(["flows", "nothing-here", "--store", f.url])
        #expect(none.status == 1 && none.err.contains("no Mouchard sessions in this database"))
    }
}

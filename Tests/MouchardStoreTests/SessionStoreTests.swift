import Foundation
import MouchardFindings
import Testing
import MouchardFlow
import MouchardWire
@testable import MouchardStore

@Suite struct SessionStoreTests {
    @Test func reopenedStoreKeepsEverything() throws {
        let tmp = TemporaryDirectory()
        defer { tmp.cleanUp() }
        let dir = tmp.path + "/s"
        let findings = StoreSamples.findings()
        let dns = StoreSamples.dns()
        do {
            let store = try SessionStore(directory: dir, create: true)
            try store.append(flows: StoreSamples.flows())
            try store.append(findings: findings)
            try store.append(dns: dns)
            try store.setMetadata("proxy", for: SessionStore.MetadataKey.source)
            try store.setMetadata("iphone.json", for: SessionStore.MetadataKey.deviceProfile)
            try store.setMetadata("x", for: "temporary")
            try store.setMetadata(nil, for: "temporary")
            #expect(FileManager.default.fileExists(atPath: store.databasePath + "-wal"))
        }
        let store = try SessionStore(directory: dir, create: false)
        #expect(try store.flows().map(\.id) == [1, 2, 3, 4])
        #expect(try store.flows().map { var f = $0; f.id = 0; return f } == StoreSamples.flows())
        #expect(try store.findings() == findings)
        #expect(try store.findings(flow: 2) == [findings[2]])
        #expect(try store.dnsObservations() == dns)
        let meta = try store.allMetadata()
        #expect(meta["source"] == "proxy" && meta["device_profile"] == "iphone.json" && meta["temporary"] == nil)
        #expect(try store.metadata("created")?.hasPrefix("20") == true)
        #expect(try store.schemaVersion() == StoreSchema.latestVersion)
        #expect(store.pcapPath == dir + "/traffic.pcap" && store.keyLogPath == dir + "/keys.log")
        let perms = try FileManager.default.attributesOfItem(atPath: dir)[.posixPermissions] as? Int
        #expect(perms == 0o700)
    }

    @Test func emptyFileAndOlderSchemasAreMigrated() throws {
        let tmp = TemporaryDirectory()
        defer { tmp.cleanUp() }
        // An empty session.sqlite (e.g. created by `touch`) becomes a v1 session.
        let dir = tmp.path + "/empty"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        _ = FileManager.default.createFile(atPath: dir + "/session.sqlite", contents: Data())
        let store = try SessionStore(directory: dir, create: false)
        let latest = StoreSchema.latestVersion
        #expect(try store.schemaVersion() == latest)
        try store.append(StoreSamples.flows()[0])

        // A database opened by a build with one more migration is upgraded in place, data kept.
        let next = StoreSchema.migrations + ["ALTER TABLE flows ADD COLUMN note TEXT; CREATE TABLE marks (flow INTEGER)"]
        let upgraded = try SessionStore(directory: dir, create: false, migrations: next)
        #expect(try upgraded.schemaVersion() == latest + 1)
        #expect(try upgraded.flowCount() == 1)
        #expect(try upgraded.flows().first.map { var f = $0; f.id = 0; return f } == StoreSamples.flows()[0])
        // A build that knows one version less refuses the file instead of damaging it.
        #expect(throws: StoreError(file: dir + "/session.sqlite",
                                   message: "made by a newer Mouchard (schema version \(latest + 1); this build knows up to \(latest))")) {
            try SessionStore(directory: dir, create: false)
        }
        // From version 0 the whole chain runs.
        let fresh = try SessionStore(directory: tmp.path + "/fresh", create: true, migrations: next)
        #expect(try fresh.schemaVersion() == latest + 1)

        // A version 1 session (before WebSocket messages) gains the messages table, its flows kept.
        let old = tmp.path + "/v1"
        #expect(try SessionStore(directory: old, create: true, migrations: [StoreSchema.v1]).schemaVersion() == 1)
        let migrated = try SessionStore(directory: old, create: false)
        #expect(try migrated.schemaVersion() == latest)
        try migrated.append(StoreSamples.flows()[0])
        #expect(try migrated.flowSummaries().map(\.protocol) == [nil])
    }

    @Test func unreadableSessionsGiveOneClearError() throws {
        let tmp = TemporaryDirectory()
        defer { tmp.cleanUp() }
        let fm = FileManager.default
        let garbage = tmp.path + "/garbage"
        try fm.createDirectory(atPath: garbage, withIntermediateDirectories: true)
        _ = fm.createFile(atPath: garbage + "/session.sqlite",
                      contents: Data(String(repeating: "this is not an SQLite database\n", count: 200).utf8))
        #expect(throws: StoreError(file: garbage + "/session.sqlite",
                                   message: "not a Mouchard session database (not an SQLite file, or damaged)", sqliteCode: 26)) {
            try SessionStore(directory: garbage, create: false)
        }
        // A real session whose pages were overwritten in the middle.
        let damaged = tmp.path + "/damaged"
        do {
            let s = try SessionStore(directory: damaged, create: true)
            for _ in 0..<40 { try s.append(StoreSamples.flows()[0]) }
        }
        let path = damaged + "/session.sqlite"
        let h = try #require(FileHandle(forUpdatingAtPath: path))
        try h.seek(toOffset: 4096)
        h.write(Data(repeating: 0xA5, count: 16384))
        try h.close()
        do {
            let s = try SessionStore(directory: damaged, create: false)
            _ = try s.flows()
            Issue.record("a damaged database read without error")
        } catch {
            #expect(error.file == path)
            #expect(error.description.hasPrefix(path + ": "))
        }

        #expect(throws: StoreError(file: tmp.path + "/missing/session.sqlite", message: "no session here (session.sqlite not found)")) {
            try SessionStore(directory: tmp.path + "/missing", create: false)
        }
        _ = fm.createFile(atPath: tmp.path + "/plainfile", contents: Data("x".utf8))
        #expect(throws: StoreError(file: tmp.path + "/plainfile", message: "is a file, not a session folder")) {
            try SessionStore(directory: tmp.path + "/plainfile", create: true)
        }
    }

    /// The fleet uploader reads a session in batches bounded by bytes as well as rows, whatever the
    /// bodies' sizes, on a connection of its own while the recorder writes.
    @Test func journalReadsAreBoundedByBytes() throws {
        let tmp = TemporaryDirectory()
        defer { tmp.cleanUp() }
        let store = try SessionStore(directory: tmp.path + "/s", create: true)
        var big = StoreSamples.flows()[0]
        big.request?.body = [UInt8](repeating: 0x41, count: 1 << 20)
        try store.append(flows: Array(repeating: big, count: 5))
        try store.append(findings: StoreSamples.findings())
        let reader = try store.journalReader()
        let start = SessionStore.JournalPosition(flow: 0, finding: 0, dns: 0)
        let first = try reader.rows(after: start, limit: 100, byteLimit: 2 << 20)
        #expect(first.flows.count == 2 && first.findings.count == 3 && first.bytes >= 2 << 20)
        #expect(try reader.rows(after: start, limit: 100, byteLimit: 1).flows.count == 1)
        let rest = try reader.rows(after: .init(flow: 2, finding: 3, dns: 0), limit: 100, byteLimit: 64 << 20)
        #expect(rest.flows.count == 3 && rest.findings.isEmpty)
        #expect(rest.flows.first?.first == .integer(3))
        // What the recorder commits meanwhile is seen by the reader's next call.
        try store.append(StoreSamples.flows()[1])
        #expect(try reader.flowCount(after: 5) == 1)
        #expect(try reader.metadata()["created"] != nil)
    }

    @Test func sessionNamesAndPaths() throws {
        #expect(try SessionStore.resolve(session: "app-test", currentDirectory: "/home/u/audits") == "/home/u/audits/captures/app-test")
        #expect(try SessionStore.resolve(session: "x", currentDirectory: "/home/u/") == "/home/u/captures/x")
        #expect(try SessionStore.resolve(session: "./runs/x", currentDirectory: "/w") == "/w/./runs/x")
        #expect(try SessionStore.resolve(session: "/tmp/s1/", currentDirectory: "/w") == "/tmp/s1")
        #expect(throws: StoreError.self) { try SessionStore.resolve(session: "..", currentDirectory: "/w") }
        #expect(throws: StoreError.self) { try SessionStore.resolve(session: "", currentDirectory: "/w") }
    }
}

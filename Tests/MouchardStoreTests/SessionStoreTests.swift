import Foundation
import MouchardFindings
import Testing
import MouchardFlow
import MouchardWire
import Synchronization
@testable import MouchardStore

private func finding(_ flow: Int?, _ type: String, confidence: Double?) -> Finding {
    Finding(category: .deviceID, type: type, request: FindingRequest(method: "GET", url: "https://a.example/?id=x"),
            destination: FindingDestination(host: "a.example", tracker: "Ads Inc", trackerCategory: "advertising", thirdParty: true),
            where: "query:id", encoding: "base64+url", evidence: "9F55…8C22", rule: "device-id.idfa", transport: "https",
            flow: flow, confidence: confidence, severity: .high, description: "IDFA sent to Ads Inc.",
            time: "2026-10-05T07:41:40.215Z", inner: "$.ifa")
}

@Suite struct SessionStoreTests {
    @Test func flowsRoundTripExactly() throws {
        let tmp = TemporaryDirectory()
        defer { tmp.cleanUp() }
        let store = try SessionStore(directory: tmp.path + "/s", create: true)
        var expected: [Flow] = []
        for (k, var f) in StoreSamples.flows().enumerated() {
            let id = try store.append(f)
            #expect(id == k + 1)
            f.id = id
            expected.append(f)
        }
        #expect(try store.flows() == expected)
        #expect(try store.flowCount() == 4)
        #expect(try store.flow(id: 3) == expected[2])
        #expect(try store.flow(id: 99) == nil)
        var visited: [Int] = []
        try store.forEachFlow(pageSize: 3) { visited.append($0.id) }
        #expect(visited == [1, 2, 3, 4])

        // Explicit ids are kept; a taken id is refused with a clear error.
        var explicit = expected[0]
        explicit.id = 10
        #expect(try store.append(explicit) == 10)
        #expect(try store.append(StoreSamples.flows()[1]) == 11)
        #expect(throws: StoreError(file: store.databasePath, message: "flow id 10 is already in the session", sqliteCode: 1555)) {
            try store.append(explicit)
        }
        // A batch is one transaction: a failing flow leaves none of the batch.
        #expect(throws: StoreError.self) { try store.append(flows: [StoreSamples.flows()[0], explicit]) }
        #expect(try store.flowCount() == 6)
        #expect(try store.append(flows: StoreSamples.flows()) == [12, 13, 14, 15])

        let summaries = try store.flowSummaries()
        #expect(summaries.map(\.id) == [1, 2, 3, 4, 10, 11, 12, 13, 14, 15])
        #expect(summaries[0].requestBodySize == 256 && summaries[0].responseBodySize == 4 && summaries[0].status == 200)
        #expect(summaries[0].url == "https://api.example.com/v1/e?a=%20b" && summaries[0].method == "POST")
        #expect(summaries[2].method == nil && summaries[2].serverName == "tracker.example" && summaries[2].host == "tracker.example")
        #expect(summaries[1].error == "connection reset after 12 bytes" && summaries[1].status == nil)
    }

    @Test func reopenedStoreKeepsEverything() throws {
        let tmp = TemporaryDirectory()
        defer { tmp.cleanUp() }
        let dir = tmp.path + "/s"
        let findings = [finding(1, "idfa", confidence: 0.9), finding(nil, "imei", confidence: nil),
                        finding(2, "email", confidence: 1.0 / 3.0)]
        let dns = [DNSObservation(time: StoreSamples.started, name: "api.example.com", queryType: "AAAA",
                                  addresses: ["2001:db8::5", "2001:db8::6"], cnames: ["edge.example.net"],
                                  client: Endpoint(address: "192.168.1.20", port: 5353), server: Endpoint(address: "192.168.1.1", port: 53)),
                   DNSObservation(time: StoreSamples.started.addingTimeInterval(0.5), name: "t.example")]
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
        #expect(try store.schemaVersion() == 1)
        try store.append(StoreSamples.flows()[0])

        // A v1 database opened by a build with a v2 migration is upgraded in place, data kept.
        let v2 = StoreSchema.migrations + ["ALTER TABLE flows ADD COLUMN note TEXT; CREATE TABLE marks (flow INTEGER)"]
        let upgraded = try SessionStore(directory: dir, create: false, migrations: v2)
        #expect(try upgraded.schemaVersion() == 2)
        #expect(try upgraded.flowCount() == 1)
        #expect(try upgraded.flows().first.map { var f = $0; f.id = 0; return f } == StoreSamples.flows()[0])
        // A build that only knows v1 refuses the v2 file instead of damaging it.
        #expect(throws: StoreError(file: dir + "/session.sqlite",
                                   message: "made by a newer Mouchard (schema version 2; this build knows up to 1)")) {
            try SessionStore(directory: dir, create: false)
        }
        // From version 0 the whole chain runs.
        let fresh = try SessionStore(directory: tmp.path + "/fresh", create: true, migrations: v2)
        #expect(try fresh.schemaVersion() == 2)
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

    @Test func appendsFromManyThreads() throws {
        let tmp = TemporaryDirectory()
        defer { tmp.cleanUp() }
        let store = try SessionStore(directory: tmp.path + "/s", create: true)
        let sample = StoreSamples.flows()[0]
        let failures = Atomic<Int>(0)
        DispatchQueue.concurrentPerform(iterations: 4) { worker in
            for k in 0..<50 {
                var f = sample
                f.extras = ["worker": "\(worker)-\(k)"]
                do {
                    try store.append(f)
                    if k % 10 == 0 { try store.append(dns: [DNSObservation(time: Date(), name: "w\(worker).example")]) }
                } catch { failures.add(1, ordering: .relaxed) }
            }
        }
        #expect(failures.load(ordering: .relaxed) == 0)
        let flows = try store.flows()
        #expect(flows.map(\.id) == Array(1...200))
        #expect(Set(flows.compactMap { $0.extras["worker"] }).count == 200)
        #expect(try store.dnsObservations().count == 20)
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

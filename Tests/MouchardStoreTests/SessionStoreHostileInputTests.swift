import Foundation
#if canImport(Glibc)
import Glibc
#endif
import MouchardFindings
import MouchardFlow
import MouchardTestSupport
import MouchardWire
import Testing
@testable import MouchardStore

/// Hostile-input proof for `SessionStore`: opening corrupt, truncated or foreign `session.sqlite`
/// files (pages with flipped bytes, cuts, a damaged WAL, other SQLite files, non-database files)
/// either works or throws a `StoreError` naming the file — never a crash — and what can still be
/// read is read. Damage is seeded (`ByteMutator`) so a failure replays.
///
/// `MOUCHARD_FUZZ_ITERATIONS=N` runs N damaged files per test instead of the small CI default.
@Suite struct SessionStoreHostileInputTests {
    static let iterations = ByteMutator.iterations(default: 120, environment: ProcessInfo.processInfo.environment)

    /// Sample flows plus a few with bodies big enough for overflow pages, some findings and DNS.
    static func populate(_ store: SessionStore) throws {
        var flows = StoreSamples.flows()
        for k in 0..<6 {
            var f = flows[k % flows.count]
            f.request?.body = (0..<(3_000 * (k + 1))).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ k) }
            flows.append(f)
        }
        try store.append(flows: flows)
        try store.append(findings: [
            Finding(category: .deviceID, type: "idfa", request: FindingRequest(method: "GET", url: "https://a.example/?id=x"),
                    destination: FindingDestination(host: "a.example", tracker: nil, trackerCategory: nil, thirdParty: true),
                    where: "query:id", encoding: "plain", evidence: "AEBE…6239", rule: "device-id.idfa", transport: "https",
                    flow: 1, confidence: 1, severity: .high, description: "IDFA", time: "2026-10-05T07:41:40.215Z", inner: nil),
        ])
        try store.append(dns: [DNSObservation(time: StoreSamples.started, name: "a.example", queryType: "A",
                                              addresses: ["192.0.2.1"], cnames: [])])
        try store.setMetadata("proxy", for: SessionStore.MetadataKey.source)
    }

    /// The bytes of a valid, closed session database (WAL checkpointed into the main file).
    static let validDatabase: [UInt8] = {
        let tmp = TemporaryDirectory()
        defer { tmp.cleanUp() }
        do {
            let store = try SessionStore(directory: tmp.path + "/s", create: true)
            try populate(store)
        } catch {
            return []
        }
        return [UInt8]((try? Data(contentsOf: URL(fileURLWithPath: tmp.path + "/s/session.sqlite"))) ?? Data())
    }()

    /// Writes `database` (and `wal`, when given) as a session in a new folder under `tmp`.
    static func session(_ database: [UInt8], wal: [UInt8]? = nil, in tmp: TemporaryDirectory, _ name: String) -> String {
        let dir = tmp.path + "/" + name
        try? FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        #expect(FileManager.default.createFile(atPath: dir + "/session.sqlite", contents: Data(database)))
        if let wal { #expect(FileManager.default.createFile(atPath: dir + "/session.sqlite-wal", contents: Data(wal))) }
        return dir
    }

    /// What reading a damaged session gave.
    struct Salvage {
        var opened = false
        var flows = 0
        /// Flows read one by one after `flows()` failed.
        var salvaged = 0
        var errors: [StoreError] = []
    }

    /// Opens the session and reads everything it can, flow by flow when the whole list fails.
    /// Every error must be a `StoreError` naming the session's file or folder.
    static func salvage(_ dir: String, _ what: @autoclosure () -> String, sourceLocation: SourceLocation = #_sourceLocation) -> Salvage {
        var result = Salvage()
        func record(_ error: StoreError) {
            result.errors.append(error)
            #expect(error.file.hasPrefix(dir), "\(what()): error does not name the file: \(error)", sourceLocation: sourceLocation)
            #expect(!error.message.isEmpty, sourceLocation: sourceLocation)
        }
        let store: SessionStore
        do {
            store = try SessionStore(directory: dir, create: false)
        } catch {
            record(error)
            return result
        }
        result.opened = true
        do throws(StoreError) {
            result.flows = try store.flows().count
        } catch {
            record(error)
            // Salvage: every flow that can still be read on its own.
            do throws(StoreError) {
                let (flows, damaged) = try store.salvageFlows()
                result.flows = flows.count
                result.salvaged = flows.count
                damaged.forEach(record)
                // Never more flows than were stored (10, plus the one appended below by an earlier
                // pass). A damaged b-tree page can list ids that are not rows: those come back
                // as errors, one per id, which is allowed.
                #expect(flows.count <= 11, "\(what()): \(flows.count) flows, \(damaged.count) damaged", sourceLocation: sourceLocation)
            } catch {
                record(error)
            }
        }
        do throws(StoreError) { _ = try store.flowSummaries() } catch { record(error) }
        do throws(StoreError) { _ = try store.findings() } catch { record(error) }
        do throws(StoreError) { _ = try store.dnsObservations() } catch { record(error) }
        do throws(StoreError) { _ = try store.allMetadata() } catch { record(error) }
        do throws(StoreError) { _ = try store.flowCount() } catch { record(error) }
        do throws(StoreError) { _ = try store.schemaVersion() } catch { record(error) }
        // Appending to a damaged session fails cleanly or works.
        do throws(StoreError) { try store.append(StoreSamples.flows()[1]) } catch { record(error) }
        return result
    }

    static var pageSize: Int {
        let b = validDatabase
        guard b.count > 17 else { return 4096 }
        let size = Int(b[16]) << 8 | Int(b[17])
        return size == 1 ? 65536 : max(512, size)
    }

    @Test func validSessionReadsFully() {
        let tmp = TemporaryDirectory()
        defer { tmp.cleanUp() }
        #expect(Self.validDatabase.count > 8 * Self.pageSize)
        let s = Self.salvage(Self.session(Self.validDatabase, in: tmp, "valid"), "valid")
        #expect(s.opened && s.flows == 10 && s.errors.isEmpty, "\(s.errors)")
    }

    /// Bytes flipped inside random pages (header page included).
    @Test(arguments: [0x5E55_0001, 0x5E55_0002] as [UInt64])
    func flippedPageBytes(seed: UInt64) {
        let tmp = TemporaryDirectory()
        defer { tmp.cleanUp() }
        var mutator = ByteMutator(seed: seed)
        let valid = Self.validDatabase
        let pages = valid.count / Self.pageSize
        var readable = 0
        var salvaged = 0
        for k in 0..<Self.iterations {
            var bytes = valid
            let page = k % 3 == 0 ? 0 : mutator.below(pages)
            for _ in 0..<(1 + mutator.below(16)) {
                let at = page * Self.pageSize + mutator.below(Self.pageSize)
                bytes[at] ^= UInt8(truncatingIfNeeded: 1 + mutator.below(255))
            }
            let s = Self.salvage(Self.session(bytes, in: tmp, "flip\(k)"), "seed \(seed) iteration \(k) page \(page)")
            if s.flows > 0 { readable += 1 }
            salvaged += s.salvaged
        }
        print("flippedPageBytes seed \(seed): \(readable) of \(Self.iterations) damaged sessions kept flows, \(salvaged) flows salvaged one by one")
        // Most single-page damage leaves flows readable.
        #expect(readable > Self.iterations / 2, "only \(readable) of \(Self.iterations) damaged sessions kept any flow")
    }

    /// One damaged row: `flows()` refuses the session naming the flow, `salvageFlows()` gives every
    /// other flow back.
    @Test func oneDamagedRowLosesOnlyThatFlow() throws {
        let tmp = TemporaryDirectory()
        defer { tmp.cleanUp() }
        let dir = Self.session(Self.validDatabase, in: tmp, "row")
        do {
            let c = try SQLiteConnection(path: dir + "/session.sqlite", create: false)
            try c.execute("UPDATE flows SET req_headers = x'FFFFFFFF01' WHERE id = 2; UPDATE flows SET transport = 'carrier-pigeon' WHERE id = 7")
        }
        let store = try SessionStore(directory: dir, create: false)
        #expect(throws: StoreError.self) { try store.flows() }
        let (flows, damaged) = try store.salvageFlows()
        #expect(flows.map(\.id) == [1, 3, 4, 5, 6, 8, 9, 10])
        #expect(damaged.map(\.message) == ["flow 2: request headers is damaged", "flow 7: transport is damaged"])
        #expect(damaged.allSatisfy { $0.file == dir + "/session.sqlite" })
    }

    /// Cut at every page boundary and at random places.
    @Test func truncatedFiles() {
        let tmp = TemporaryDirectory()
        defer { tmp.cleanUp() }
        let valid = Self.validDatabase
        var mutator = ByteMutator(seed: 0x7C07)
        var lengths = Array(stride(from: 0, to: valid.count, by: Self.pageSize))
        lengths += (0..<20).map { _ in mutator.below(valid.count) } + [1, 15, 16, 99, 100, 101]
        for (k, length) in lengths.enumerated() {
            let s = Self.salvage(Self.session(Array(valid.prefix(length)), in: tmp, "cut\(k)"), "cut at \(length)")
            if length == 0 { #expect(s.opened, "an empty file is a new session") }
        }
    }

    /// Header fields that drive the schema check: negative, huge and foreign versions and ids.
    @Test func damagedHeaderFields() {
        let tmp = TemporaryDirectory()
        defer { tmp.cleanUp() }
        // user_version at 60, application_id at 68 (big-endian 32-bit), page size at 16.
        let patches: [(Int, [UInt8])] = [
            (60, [0xFF, 0xFF, 0xFF, 0xFF]), (60, [0x80, 0, 0, 0]), (60, [0x7F, 0xFF, 0xFF, 0xFF]), (60, [0, 0, 0, 0]),
            (60, [0, 0, 0, 2]), (68, [0, 0, 0, 0]), (68, [0xFF, 0xFF, 0xFF, 0xFF]), (68, [0x12, 0x34, 0x56, 0x78]),
            (16, [0, 0]), (16, [0xFF, 0xFF]), (16, [0, 1]), (18, [9, 9]), (28, [0, 0, 0, 1]), (28, [0xFF, 0xFF, 0xFF, 0xFF]),
            (0, Array("SQLite format 2\u{0}".utf8)), (56, [0, 0, 0, 9]),
        ]
        for (k, (offset, patch)) in patches.enumerated() {
            var bytes = Self.validDatabase
            bytes.replaceSubrange(offset..<(offset + patch.count), with: patch)
            let s = Self.salvage(Self.session(bytes, in: tmp, "header\(k)"), "patch at \(offset): \(patch)")
            if offset == 60, patch != [0, 0, 0, 1] {
                #expect(!s.opened, "a schema version of \(patch) must be refused")
            }
        }
    }

    /// A WAL holding committed flows, damaged: the main file's flows stay readable.
    @Test func damagedWriteAheadLog() throws {
        let tmp = TemporaryDirectory()
        defer { tmp.cleanUp() }
        let dir = tmp.path + "/live"
        let store = try SessionStore(directory: dir, create: true)
        try Self.populate(store)
        // Copies taken while the store is open: the last flows live in the WAL only.
        let database = [UInt8](try Data(contentsOf: URL(fileURLWithPath: dir + "/session.sqlite")))
        let wal = [UInt8](try Data(contentsOf: URL(fileURLWithPath: dir + "/session.sqlite-wal")))
        #expect(wal.count > 32)
        let intact = Self.salvage(Self.session(database, wal: wal, in: tmp, "wal"), "intact WAL")
        #expect(intact.flows == 10 && intact.errors.isEmpty, "\(intact.errors)")
        var mutator = ByteMutator(seed: 0x3A1)
        for k in 0..<(Self.iterations / 2) {
            let damaged = mutator.mutate(wal, maxMutations: 6)
            _ = Self.salvage(Self.session(database, wal: damaged, in: tmp, "wal\(k)"), "WAL iteration \(k), size \(damaged.count)")
        }
        withExtendedLifetime(store) {}
    }

    /// Files that are not Mouchard sessions.
    @Test func foreignFiles() throws {
        let tmp = TemporaryDirectory()
        defer { tmp.cleanUp() }
        let other = tmp.path + "/other"
        do {
            // Another SQLite database, with a table of the same name.
            let c = try SQLiteConnection(path: tmp.path + "/other.sqlite", create: true)
            try c.execute("CREATE TABLE flows (x TEXT); INSERT INTO flows VALUES ('not ours')")
        }
        let foreign = [UInt8](try Data(contentsOf: URL(fileURLWithPath: tmp.path + "/other.sqlite")))
        let samples: [[UInt8]] = [
            foreign, Array("SQLite format 3\u{0}".utf8), Array("not a database at all".utf8),
            [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] + Array(repeating: 0, count: 5000),
            Array(repeating: 0, count: 8192), Array(repeating: 0xFF, count: 8192),
            Array(#"{"log":{"entries":[]}}"#.utf8),
        ]
        for (k, sample) in samples.enumerated() {
            let s = Self.salvage(Self.session(sample, in: tmp, "foreign\(k)"), "foreign sample \(k)")
            #expect(!s.opened || s.flows == 0, "foreign sample \(k) gave flows")
        }
        _ = other
        // A folder where the database file should be, and a file where the folder should be.
        try FileManager.default.createDirectory(atPath: tmp.path + "/dirdb/session.sqlite", withIntermediateDirectories: true)
        let s = Self.salvage(tmp.path + "/dirdb", "session.sqlite is a folder")
        #expect(!s.opened)
        // Special files in place of the database: a FIFO and a link to /dev/zero.
        try FileManager.default.createDirectory(atPath: tmp.path + "/fifo", withIntermediateDirectories: true)
        #expect(mkfifo(tmp.path + "/fifo/session.sqlite", 0o600) == 0)
        #expect(!Self.salvage(tmp.path + "/fifo", "FIFO").opened)
        try FileManager.default.createDirectory(atPath: tmp.path + "/zero", withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(atPath: tmp.path + "/zero/session.sqlite", withDestinationPath: "/dev/zero")
        #expect(!Self.salvage(tmp.path + "/zero", "/dev/zero").opened)
        #expect(FileManager.default.createFile(atPath: tmp.path + "/plainfile", contents: Data("x".utf8)))
        #expect(throws: StoreError.self) { try SessionStore(directory: tmp.path + "/plainfile", create: false) }
    }
}

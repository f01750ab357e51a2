import Foundation
import Testing
import MouchardFlow
import MouchardWire
@testable import MouchardStore
#if canImport(Glibc)
import Glibc
#endif

/// A `mouchard import` killed with SIGKILL in the middle of writing leaves a session that opens
/// and holds every flow that was committed, intact.
@Suite struct CrashSafetyTests {
    /// The `mouchard` executable built beside this test bundle.
    static func mouchardBinary() -> String? {
        guard let exe = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe") else { return nil }
        var dir = (exe as NSString).deletingLastPathComponent
        // The bundle may be a directory (…/MouchardPackageTests.xctest/…) on some layouts.
        while !dir.isEmpty, dir != "/" {
            let candidate = dir + "/mouchard"
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
            if dir.hasSuffix("/debug") || dir.hasSuffix("/release") { break }
            dir = (dir as NSString).deletingLastPathComponent
        }
        return nil
    }

    /// A HAR with `count` flows, each with a distinct binary request body and headers.
    static func bigHAR(count: Int) -> Data {
        var flows: [Flow] = []
        flows.reserveCapacity(count)
        for k in 0..<count {
            var body = [UInt8](repeating: 0, count: 1000)
            var x = UInt32(truncatingIfNeeded: k &* 2_654_435_761 &+ 1)
            for i in body.indices { x = x &* 1_664_525 &+ 1_013_904_223; body[i] = UInt8(truncatingIfNeeded: x >> 24) }
            let head = HTTPRequestHead(method: "POST", target: "/e/\(k)?n=\(k)", headers: [
                ("Host", "sdk\(k % 7).example"), ("X-Seq", String(k)), ("X-Seq", String(k * 2)),
                ("Content-Type", "application/octet-stream"),
            ])
            flows.append(Flow(id: k + 1, source: .har, transport: k % 2 == 0 ? .https : .http,
                              request: HTTPRequest(head: head, scheme: k % 2 == 0 ? "https" : "http",
                                                   fallbackAuthority: "sdk\(k % 7).example", body: body),
                              response: HTTPResponse(head: HTTPResponseHead(status: 200, reason: "OK"), body: Array("ok\(k)".utf8)),
                              timings: FlowTimings(started: Date(timeIntervalSince1970: 1_790_000_000 + Double(k) / 1000), send: 1, wait: 2)))
        }
        return HARWriter(creatorVersion: "test", pretty: false).document(flows)
    }

    @Test func killedImportKeepsEveryCommittedFlow() throws {
        guard let binary = Self.mouchardBinary() else {
            Issue.record("the mouchard executable was not found beside the test bundle (run `swift build` first)")
            return
        }
        let tmp = TemporaryDirectory()
        defer { tmp.cleanUp() }
        // Large enough that the import outlasts the watcher even on a loaded machine (2000 was flaky).
        let total = 8000
        let harPath = tmp.path + "/big.har"
        let har = Self.bigHAR(count: total)
        try har.write(to: URL(fileURLWithPath: harPath))
        let source = try HARReader.read(har)
        let sessionDir = tmp.path + "/session"

        let child = Process()
        child.executableURL = URL(fileURLWithPath: binary)
        child.arguments = ["import", harPath, "--session", sessionDir]
        child.standardOutput = FileHandle.nullDevice
        let stderrPath = tmp.path + "/import.stderr"
        #expect(FileManager.default.createFile(atPath: stderrPath, contents: nil))
        child.standardError = try FileHandle(forWritingTo: URL(fileURLWithPath: stderrPath))
        try child.run()

        // Watch the session's write-ahead log grow (a plain stat: the watcher takes no SQLite lock
        // that could slow or fail the writer), then SIGKILL the writer in the middle of its work.
        // 256 KiB of log is some 200 committed flows of the 8000.
        let walPath = sessionDir + "/" + SessionStore.databaseFileName + "-wal"
        let deadline = Date().addingTimeInterval(60)
        var walBytes = 0
        while Date() < deadline, child.isRunning {
            walBytes = ((try? FileManager.default.attributesOfItem(atPath: walPath)[.size]) as? Int) ?? 0
            if walBytes >= 256 * 1024 { break }
            usleep(500)
        }
        let wasRunning = child.isRunning
        kill(child.processIdentifier, SIGKILL)
        child.waitUntilExit()
        let childErrors = (try? String(contentsOfFile: stderrPath, encoding: .utf8)) ?? ""
        #expect(wasRunning, "the import finished before it could be killed (exit \(child.terminationStatus), log \(walBytes) bytes, stderr: \(childErrors))")
        #expect(child.terminationReason == .uncaughtSignal)

        let store = try SessionStore(directory: sessionDir, create: false)
        let flows = try store.flows()
        #expect(flows.count >= 1, "flows committed before the kill survive")
        #expect(flows.count < total, "killed mid-write")
        #expect(flows.map(\.id) == Array(stride(from: 1, through: flows.count, by: 1)))
        for f in flows where f.id >= 1 && f.id <= source.count {
            #expect(f == source[f.id - 1], "flow \(f.id) intact")
        }
        // The session is still writable: the next flow gets the next id.
        var next = source[0]
        next.id = 0
        #expect(try store.append(next) == flows.count + 1)
    }
}

import Foundation
import Testing
@testable import MouchardCLI

/// How `scan` and `report` read their inputs and find their rules: session names holding dots,
/// the checkout's `Rules/` found when the binary is started through `$PATH`, and one-line errors
/// for a `--rules` folder that is not there.
@Suite struct InputNamingTests {
    static let repo = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    static let rules = repo.appendingPathComponent("Rules").path

    /// A HAR file of `count` GET requests, each carrying a fake advertising id in its query.
    static func har(requests count: Int) -> String {
        let entries = (0..<count).map { i in
            #"{"request": {"method": "GET", "url": "http://t.example/e?n=\#(i)&idfa=6D92078A-8246-4BA4-AE5B-76104861E7DC", "headers": []}}"#
        }
        return #"{"log": {"entries": [\#(entries.joined(separator: ", "))]}}"#
    }

    /// A fresh current directory.
    static func workspace() throws -> URL {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("mouchard-inputs-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        return dir
    }

    func run(_ args: [String], in dir: URL) -> (status: Int32, out: String, err: String) {
        let c = Captured()
        let io = CommandIO(out: c.io.out, err: c.io.err, currentDirectory: dir.path)
        return (Mouchard.main(args, io: io), c.out, c.err)
    }

    @Test func sessionNamesMayHoldDots() throws {
        let dir = try Self.workspace()
        defer { try? FileManager.default.removeItem(at: dir) }
        try Self.har(requests: 2).write(to: dir.appendingPathComponent("in.har"), atomically: true, encoding: .utf8)
        #expect(run(["import", "in.har", "--session", "app-1.2"], in: dir).status == 0)

        let scan = run(["scan", "app-1.2", "--rules", Self.rules], in: dir)
        #expect(scan.status == 0, "\(scan.err)")
        #expect(scan.out.contains("mouchard scan: 2 requests inspected"), "\(scan.out)")
        let report = run(["report", "app-1.2", "--rules", Self.rules, "--out", "r.json"], in: dir)
        #expect(report.status == 0, "\(report.err)")
        let doc = try String(contentsOf: dir.appendingPathComponent("r.json"), encoding: .utf8)
        #expect(doc.contains("session app-1.2"))

        // An existing file of that name wins over the session.
        try Self.har(requests: 3).write(to: dir.appendingPathComponent("app-1.2"), atomically: true, encoding: .utf8)
        let file = run(["scan", "app-1.2", "--rules", Self.rules], in: dir)
        #expect(file.status == 0, "\(file.err)")
        #expect(file.out.contains("mouchard scan: 3 requests inspected"), "\(file.out)")
    }

    @Test func missingInputNamesBothReadings() throws {
        let dir = try Self.workspace()
        defer { try? FileManager.default.removeItem(at: dir) }
        let bare = run(["scan", "app-9.9", "--rules", Self.rules], in: dir)
        #expect(bare.status == 1)
        #expect(bare.err == "mouchard: error: no file app-9.9 and no session captures/app-9.9/\n")
        let noDot = run(["report", "nope", "--rules", Self.rules, "--out", "r.md"], in: dir)
        #expect(noDot.status == 1)
        #expect(noDot.err == "mouchard: error: no file nope and no session captures/nope/\n")
        // A path (holding '/') has one reading only.
        let path = run(["scan", "sub/a.har", "--rules", Self.rules], in: dir)
        #expect(path.status == 1)
        #expect(path.err == "mouchard: error: sub/a.har: no such file or directory\n")
    }

    @Test func missingRulesFolderIsOneLineExit1() throws {
        let dir = try Self.workspace()
        defer { try? FileManager.default.removeItem(at: dir) }
        try Self.har(requests: 1).write(to: dir.appendingPathComponent("in.har"), atomically: true, encoding: .utf8)
        let missing = "/nonexistent-\(UUID().uuidString)"
        let r = run(["scan", "in.har", "--rules", missing], in: dir)
        #expect(r.status == 1)
        #expect(r.err == "mouchard: error: --rules \(missing): no such folder (it should hold the rule files, *.json)\n")
        let file = run(["scan", "in.har", "--rules", "in.har"], in: dir)
        #expect(file.status == 1)
        #expect(file.err == "mouchard: error: --rules in.har: not a folder (give the folder that holds the rule files, *.json)\n")
        try FileManager.default.createDirectory(at: dir.appendingPathComponent("empty"), withIntermediateDirectories: true)
        let empty = run(["scan", "in.har", "--rules", "empty"], in: dir)
        #expect(empty.status == 1)
        #expect(empty.err.hasSuffix("empty: no rule files (*.json)\n") && empty.err.filter { $0 == "\n" }.count == 1, "\(empty.err)")
    }

    /// The built `mouchard` beside the test bundle (`.build/<config>/`), when there is one.
    static let binary: String? = {
        guard let exe = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe") else { return nil }
        let path = URL(fileURLWithPath: exe).deletingLastPathComponent().appendingPathComponent("mouchard").path
        return FileManager.default.isExecutableFile(atPath: path) ? path : nil
    }()

    @Test(.enabled(if: binary != nil, "needs the built mouchard executable beside the test bundle (swift build)"))
    func findsTheCheckoutRulesWhenRunThroughPATH() throws {
        let binary = try #require(Self.binary)
        let dir = try Self.workspace()
        defer { try? FileManager.default.removeItem(at: dir) }
        try Self.har(requests: 1).write(to: dir.appendingPathComponent("in.har"), atomically: true, encoding: .utf8)
        let p = Process()
        // The shell finds `mouchard` through PATH, so argv[0] is the bare name.
        p.executableURL = URL(fileURLWithPath: "/bin/sh")
        p.arguments = ["-c", "exec mouchard scan in.har"]
        p.currentDirectoryURL = dir
        p.environment = ["PATH": URL(fileURLWithPath: binary).deletingLastPathComponent().path + ":/usr/bin:/bin"]
        let out = Pipe(), err = Pipe()
        p.standardOutput = out
        p.standardError = err
        try p.run()
        let output = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        let errors = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        p.waitUntilExit()
        #expect(p.terminationStatus == 0, "\(errors)")
        #expect(output.contains("mouchard scan: 1 request inspected"), "\(output)")
    }
}

import Foundation
import Testing
import MouchardFlow
import MouchardPosix
import MouchardReplay
import MouchardStore
import MouchardWire
@testable import MouchardCLI

/// `replay`, `mock`, `proxy --replay`, `diff` and `export --format` from the command line: bad input
/// gets one clear line (exit 1 or 64), and `diff` reports exactly a planted leak.
@Suite struct ReplayCommandsTests {
    static let repo = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    static let har = repo.appendingPathComponent("captures/example/traffic.har").path
    static let device = repo.appendingPathComponent("captures/example/device.json").path
    static let rules = repo.appendingPathComponent("Rules").path

    final class Workspace {
        let path = NSTemporaryDirectory() + "mouchard-replay-cli-\(UUID().uuidString)"
        init() { try? FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true) }
        deinit { try? FileManager.default.removeItem(atPath: path) }

        func run(_ args: [String]) -> (status: Int32, out: String, err: String) {
            let c = Captured()
            let status = Mouchard.main(args, io: CommandIO(out: c.io.out, err: c.io.err, currentDirectory: path))
            return (status, c.out, c.err)
        }

        func write(_ flows: [Flow], _ name: String) throws -> String {
            let file = path + "/" + name
            try HARWriter(creatorVersion: "test").document(flows).write(to: URL(fileURLWithPath: file))
            return file
        }
    }

    static func exampleFlows() throws -> [Flow] {
        try HARReader.read(Data(contentsOf: URL(fileURLWithPath: har)))
    }

    /// One line on standard error, `mouchard: error: ...` or a usage error.
    func oneClearLine(_ r: (status: Int32, out: String, err: String), status: Int32, saying text: String,
                      sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(r.status == status, "exit \(r.status): \(r.err)", sourceLocation: sourceLocation)
        #expect(r.err.contains(text), "\(r.err)", sourceLocation: sourceLocation)
        if status == 1 { #expect(r.err.split(separator: "\n").count == 1, "\(r.err)", sourceLocation: sourceLocation) }
    }

    @Test func badInputIsOneClearLine() throws {
        let w = Workspace()
        oneClearLine(w.run(["replay", "no-such-session"]), status: 1, saying: "no-such-session: no such session")
        oneClearLine(w.run(["mock", "no-such-session"]), status: 1, saying: "no such session")
        oneClearLine(w.run(["replay", Self.har, "--flows", "99", "--no-store"]), status: 1,
                     saying: "no flow 99 (it has 16 flows, ids 1-16)")
        oneClearLine(w.run(["export", Self.har, "--flows", "17-20", "--format", "curl"]), status: 1, saying: "no flow 17, 18, 19, 20")
        oneClearLine(w.run(["replay", Self.har, "--flows", "3-x"]), status: 64, saying: "--flows wants flow ids")
        oneClearLine(w.run(["replay", Self.har, "--to", "ftp://x"]), status: 64, saying: "--to wants a URL")
        oneClearLine(w.run(["mock", Self.har, "--replay-miss", "drop"]), status: 64, saying: "--replay-miss wants 404, forward or close")
        oneClearLine(w.run(["proxy", "--replay-keep"]), status: 64, saying: "--replay-keep goes with --replay SOURCE")

        // A HAR entry without a response cannot be served.
        var flows = try Self.exampleFlows()
        flows[2].response = nil
        let incomplete = try w.write(flows, "incomplete.har")
        oneClearLine(w.run(["mock", incomplete, "--listen", "127.0.0.1:0"]), status: 1,
                     saying: "flow 3 (POST https://launches.appsflyersdk.com/")
        oneClearLine(w.run(["mock", incomplete]), status: 1, saying: "has no recorded response")
        // A body larger than the limit.
        oneClearLine(w.run(["mock", Self.har, "--max-body", "10"]), status: 1, saying: "is larger than the limit (10 bytes, --max-body)")
        oneClearLine(w.run(["replay", Self.har, "--max-body", "10", "--no-store"]), status: 1,
                     saying: "request body of")
        // A replay never overwrites a session that already has flows.
        #expect(w.run(["import", Self.har, "--session", "taken"]).status == 0)
        oneClearLine(w.run(["replay", Self.har, "--session", "taken", "--to", "http://127.0.0.1:9"]), status: 1,
                     saying: "the session already has flows")
    }

    @Test func diffReportsExactlyThePlantedLeak() throws {
        let w = Workspace()
        let flows = try Self.exampleFlows()
        let old = try w.write(flows, "app-1.2.har")
        // Version 1.3 sends the IDFA to a new tracker host, in a query parameter.
        var planted = flows[0]
        planted.id = flows.count + 1
        planted.request?.head.target = "http://t.newtracker.test/v1/collect?ifa=8C1F6A2E-5B3D-4E7F-A9C1-2D4E6F8A0B13"
        planted.request?.head.headers.replaceOrAdd(name: "Host", value: "t.newtracker.test")
        let new = try w.write(flows + [planted], "app-1.3.har")

        let same = w.run(["diff", old, old, "--device", Self.device, "--rules", Self.rules, "--fail-on", "any"])
        #expect(same.status == 0)
        #expect(same.out.contains("nothing changed"))

        let text = w.run(["diff", old, new, "--device", Self.device, "--rules", Self.rules, "--fail-on", "new"])
        #expect(text.status == 3, "\(text.err)")
        let newLines = text.out.split(separator: "\n").filter { $0.contains("NEW leak") }
        #expect(newLines.count == 1)
        #expect(newLines.first?.contains("device-id → t.newtracker.test") == true)
        #expect(newLines.first?.contains("query:ifa") == true)
        #expect(text.out.contains("new destination: t.newtracker.test"))
        #expect(!text.out.contains("CHANGED leak") && !text.out.contains("gone leak:"))
        #expect(text.out.contains("1 new, 0 changed, 0 gone leaks"))

        let json = w.run(["diff", old, new, "--device", Self.device, "--rules", Self.rules, "--format", "json"])
        #expect(json.status == 0)
        let doc = try JSONSerialization.jsonObject(with: Data(json.out.utf8)) as? [String: Any]
        let diff = doc?["diff"] as? [String: Any]
        #expect((diff?["newLeaks"] as? [Any])?.count == 1)
        #expect((diff?["goneLeaks"] as? [Any])?.isEmpty == true)
        #expect((diff?["changedLeaks"] as? [Any])?.isEmpty == true)
        #expect(diff?["newDestinations"] as? [String] == ["t.newtracker.test"])

        let md = w.run(["diff", old, new, "--device", Self.device, "--rules", Self.rules, "--format", "md"])
        #expect(md.out.contains("## Changes since"))
        #expect(md.out.contains(#"| **new** | Device IDs | t\.newtracker\.test | — | third | idfa | query\:ifa |"#))

        // The report shows the same as a section.
        let report = w.run(["report", new, "--device", Self.device, "--rules", Self.rules, "--diff-against", old, "--out", "r.md"])
        #expect(report.status == 0, "\(report.err)")
        let written = try String(contentsOfFile: w.path + "/r.md", encoding: .utf8)
        #expect(written.contains("## Changes since"))
        #expect(written.contains(#"t\.newtracker\.test"#))
        #expect(w.run(["report", new, "--diff-against", old, "--out", "r.json", "--rules", Self.rules]).status == 64)
    }

    @Test func exportsCurlAndASwiftTest() throws {
        let w = Workspace()
        let curl = w.run(["export", Self.har, "--flows", "5", "--format", "curl"])
        #expect(curl.status == 0, "\(curl.err)")
        #expect(curl.out.contains("curl --http1.1 -X 'POST' 'http://ads.lumotorch.example/v1/bid'"))
        #expect(curl.out.contains("--data-binary"))
        #expect(!curl.out.contains("Content-Length"))

        let swift = w.run(["export", Self.har, "--flows", "6", "--format", "swift-test", "--device", Self.device])
        #expect(swift.status == 0, "\(swift.err)")
        #expect(swift.out.contains("@Test func flow6KeepsItsFindings() throws {"))
        #expect(swift.out.contains("import MouchardKit"))
        #expect(swift.out.contains("#expect(audit.findings.signatures == ["))
        #expect(swift.out.contains("googleads.g.doubleclick.net"))
        #expect(w.run(["export", Self.har, "--format", "swift-test"]).status == 64)
    }

    /// `replay --to` a mock of the same recording: every response agrees; against a mock whose
    /// recording changed, `--fail-on-diff` exits 3 and names the difference.
    @Test func replayComparesWithTheRecording() throws {
        let w = Workspace()
        let flows = try Self.exampleFlows()
        let home = w.path + "/home"
        let same = try MockServer(flows: flows, options: MockServer.Options(authorityDirectory: home, threads: 1))
        let a = try same.start()
        defer { same.stop() }
        let ok = w.run(["replay", Self.har, "--flows", "1,4", "--to", "http://\(a)", "--fail-on-diff", "--session", "again"])
        #expect(ok.status == 0, "\(ok.out)\(ok.err)")
        #expect(ok.out.contains("replayed 2 requests from HAR file traffic.har"))
        #expect(ok.out.contains("2 answered, 0 failed, 0 differ from the recording"))
        let store = try SessionStore(directory: w.path + "/captures/again", create: false)
        #expect(try store.flows().map { $0.extras["_replayOf"] } == ["1", "4"])

        var changed = flows
        changed[0].response?.body = Array(#"{"modes":["steady"],"ads":false,"tips":true}"#.utf8)
        let other = try MockServer(flows: changed, options: MockServer.Options(matching: MatchOptions(keepsLast: true), authorityDirectory: home,
                                                                              threads: 1))
        let b = try other.start()
        defer { other.stop() }
        let diff = w.run(["replay", Self.har, "--flows", "1", "--to", "http://\(b)", "--fail-on-diff", "--no-store"])
        #expect(diff.status == 3)
        #expect(diff.out.contains("#1 GET http://api.lumotorch.example/v2/config?app=com.lumo.torch&v=2.4.0 → 200"))
        #expect(diff.out.contains("body $.ads: true → false"))
        #expect(diff.out.contains("body $.modes.length: 3 → 1"))
        let ignored = w.run(["replay", Self.har, "--flows", "1", "--to", "http://\(b)", "--fail-on-diff", "--no-store",
                             "--ignore-field", "ads", "--ignore-field", "$.modes"])
        #expect(ignored.status == 0, "\(ignored.out)")
    }
}

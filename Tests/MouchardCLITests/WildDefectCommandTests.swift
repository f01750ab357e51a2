import Foundation
import Testing
@testable import MouchardCLI

/// `scan`, `report`, `import` and `export` on the real-world defects of `Tests/Fixtures/wild-defects`
/// (made by its `make_wild_defects.py`): an unreadable HAR entry is skipped with a warning naming
/// it (`--strict` fails), a round trip keeps every field, a file that is no capture says what it
/// is, and a cut capture gives the same message and exit status for the three readers.
@Suite struct WildDefectCommandTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()
    static let fixtures = root.appendingPathComponent("Tests/Fixtures/wild-defects").path
    static let rules = root.appendingPathComponent("Rules").path
    static let har = fixtures + "/odd-entries.har"

    final class Work {
        let path = NSTemporaryDirectory() + "mouchard-wild-" + UUID().uuidString
        init() { try? FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true) }
        deinit { try? FileManager.default.removeItem(atPath: path) }
        func run(_ args: [String]) -> (status: Int32, out: String, err: String) {
            let c = Captured()
            let status = Mouchard.main(args, io: CommandIO(out: c.io.out, err: c.io.err, currentDirectory: path))
            return (status, c.out, c.err)
        }
    }

    static func json(_ path: String) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: path))) as? [String: Any])
    }

    static func entries(_ doc: [String: Any]) -> [[String: Any]] {
        ((doc["log"] as? [String: Any])?["entries"] as? [[String: Any]]) ?? []
    }

    @Test func unreadableEntriesAreSkippedWithTheirIndex() throws {
        let w = Work()
        let scan = w.run(["scan", Self.har, "--rules", Self.rules, "--format", "json"])
        #expect(scan.status == 0, "\(scan.err)")
        let doc = try #require(try JSONSerialization.jsonObject(with: Data(scan.out.utf8)) as? [String: Any])
        #expect(doc["requests"] as? Int == 1)
        let warnings = try #require((doc["methodology"] as? [String: Any])?["warnings"] as? [String])
        #expect(warnings.count == 3)
        #expect(warnings[0].contains("log.entries[0].request.url: a data: URL, no network request") && warnings[0].hasSuffix("(entry skipped)"))
        #expect(warnings[1].contains("log.entries[2].request.postData.params[0].value: expected a string, found a number"))
        #expect(warnings[2].contains("log.entries[3].request.url: missing"))
        let text = w.run(["scan", Self.har, "--rules", Self.rules])
        #expect(text.out.contains("\nwarnings (3):\n  ") && text.out.contains("log.entries[3].request.url: missing (entry skipped)"))
        for command in [["scan", Self.har, "--rules", Self.rules], ["report", Self.har, "--rules", Self.rules, "--out", "r.html"],
                        ["import", Self.har, "--session", "s"]] {
            let strict = w.run(command + ["--strict"])
            #expect(strict.status == 1, "\(command[0])")
            #expect(strict.err == "mouchard: error: \(Self.har): log.entries[0].request.url: a data: URL, no network request (\"data:image/png;base64,iVBORw0KGgo=\")\n", "\(command[0])")
        }
        let report = w.run(["report", Self.har, "--rules", Self.rules, "--out", "r.html"])
        #expect(report.status == 0)
        let html = try String(contentsOfFile: w.path + "/r.html", encoding: .utf8)
        #expect(html.contains("Input warnings") && html.contains("log.entries[2].request.postData.params[0].value"))
    }

    @Test func importThenExportKeepsEveryField() throws {
        let w = Work()
        let imported = w.run(["import", Self.har, "--session", "s"])
        #expect(imported.status == 0)
        #expect(imported.err.components(separatedBy: "\n").filter { $0.hasPrefix("mouchard: warning:") }.count == 3)
        #expect(w.run(["export", "s", "--har", "out.har"]).status == 0)
        let original = try Self.json(Self.har), exported = try Self.json(w.path + "/out.har")
        let (a, b) = (Self.entries(original), Self.entries(exported))
        #expect(a.count == b.count)
        // The unreadable entries come back verbatim, in place; the good one field by field.
        for (x, y) in zip(a, b) where x["_flowId"] == nil {
            for key in ["startedDateTime", "time", "comment", "pageref", "connection", "serverIPAddress", "_priority", "_resourceType"] {
                #expect(String(describing: x[key]) == String(describing: y[key]), "\(key)")
            }
            for part in ["request", "response"] {
                let p = try #require(x[part] as? [String: Any]), q = try #require(y[part] as? [String: Any])
                for (key, value) in p {
                    #expect(NSDictionary(dictionary: [key: value]).isEqual(to: [key: q[key] as Any]), "\(part).\(key)")
                }
            }
            #expect(NSDictionary(dictionary: x["timings"] as? [String: Any] ?? [:]).isEqual(to: y["timings"] as? [String: Any] ?? [:]))
        }
        let (logA, logB) = (try #require(original["log"] as? [String: Any]), try #require(exported["log"] as? [String: Any]))
        for key in ["pages", "comment", "browser"] {
            #expect(NSDictionary(dictionary: [key: logA[key] as Any]).isEqual(to: [key: logB[key] as Any]), "log.\(key)")
        }
    }

    @Test func filesThatAreNoCaptureSayWhatTheyAre() {
        let w = Work()
        for (name, message) in [("empty.pcap", "empty file"), ("lfs-pointer.pcap", "looks like a Git LFS pointer")] {
            for command in [["scan", Self.fixtures + "/" + name, "--rules", Self.rules],
                            ["import", Self.fixtures + "/" + name, "--session", "s"]] {
                let r = w.run(command)
                #expect(r.status == 1 && r.err.hasPrefix("mouchard: error: \(Self.fixtures)/\(name): \(message)"), "\(command[0]) \(name): \(r.err)")
            }
        }
    }

    @Test func aCutCaptureGivesTheSameMessageAndStatusEverywhere() throws {
        let w = Work()
        let whole = try Data(contentsOf: URL(fileURLWithPath: Self.fixtures + "/ipv4-fragments.pcap"))
        let cut = w.path + "/cut.pcap"
        try whole.prefix(whole.count - 10).write(to: URL(fileURLWithPath: cut))
        let results = [w.run(["scan", cut, "--rules", Self.rules]), w.run(["report", cut, "--rules", Self.rules, "--out", "r.html"]),
                       w.run(["import", cut, "--session", "cut"])]
        for r in results {
            #expect(r.status == 1)
            let errors = r.err.components(separatedBy: "\n").filter { $0.hasPrefix("mouchard: error:") }
            #expect(errors.count == 1, "\(r.err)")
        }
        let lines = results.map { $0.err.components(separatedBy: "\n").first { $0.hasPrefix("mouchard: error:") } ?? "" }
        #expect(Set(lines).count == 1 && lines[0].contains("file cut short at byte") && lines[0].hasSuffix("(everything before it was read)"))
    }
}

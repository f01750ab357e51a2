import Foundation
import Testing
import MouchardFlow
import MouchardStore
import MouchardTestSupport
@testable import MouchardCLI

/// `mouchard report` end to end on small real files: HAR, session folder, findings JSON.
@Suite struct ReportCommandTests {
    static let idfa = "6D92078A-8246-4BA4-AE5B-76104861E7DC"

    static let har = """
    {"log":{"version":"1.2","creator":{"name":"test","version":"1"},"entries":[
     {"startedDateTime":"2026-11-30T01:00:00.000Z","time":20,
      "request":{"method":"GET","url":"http://t.tracker.example/v1/open?idfa=\(idfa)&t=1","httpVersion":"HTTP/1.1",
        "headers":[{"name":"Host","value":"t.tracker.example"}],"queryString":[],"cookies":[],"headersSize":-1,"bodySize":0},
      "response":{"status":200,"statusText":"OK","httpVersion":"HTTP/1.1","headers":[],"cookies":[],
        "content":{"size":2,"mimeType":"text/plain","text":"ok"},"redirectURL":"","headersSize":-1,"bodySize":2},
      "cache":{},"timings":{"send":1,"wait":18,"receive":1}},
     {"startedDateTime":"2026-11-30T01:00:05.000Z","time":20,
      "request":{"method":"GET","url":"https://api.app.example/config","httpVersion":"HTTP/1.1",
        "headers":[{"name":"Host","value":"api.app.example"}],"queryString":[],"cookies":[],"headersSize":-1,"bodySize":0},
      "response":{"status":200,"statusText":"OK","httpVersion":"HTTP/1.1","headers":[],"cookies":[],
        "content":{"size":2,"mimeType":"text/plain","text":"ok"},"redirectURL":"","headersSize":-1,"bodySize":2},
      "cache":{},"timings":{"send":1,"wait":18,"receive":1}}
    ]}}
    """
    static let device = """
    {"name":"test phone","identifiers":{"idfa":"\(idfa)"}}
    """

    static func workspace() throws -> URL {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("mouchard-report-cli-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        try Data(har.utf8).write(to: dir.appendingPathComponent("traffic.har"))
        try Data(device.utf8).write(to: dir.appendingPathComponent("device.json"))
        return dir
    }

    func run(_ args: [String], in dir: URL) -> (status: Int32, out: String, err: String) {
        let c = Captured()
        let io = CommandIO(out: c.io.out, err: c.io.err, currentDirectory: dir.path)
        let status = Mouchard.main(args, io: io)
        return (status, c.out, c.err)
    }

    @Test func writesEveryFormatAndGatesOnCategories() throws {
        let dir = try Self.workspace()
        defer { try? FileManager.default.removeItem(at: dir) }
        for name in ["r.html", "r.md", "r.json", "r.sarif"] {
            let r = run(["report", "traffic.har", "--device", "device.json", "--rules", "none-here", "--out", name], in: dir)
            #expect(r.status == 1 && r.err.contains("none-here"))
            let ok = run(["report", "traffic.har", "--device", "device.json", "--out", name], in: dir)
            #expect(ok.status == 0, "\(ok.err)")
            #expect(ok.out.hasPrefix("Device identifiers left the device"))
            #expect(ok.out.contains("wrote \(name)"))
            let text = try String(contentsOf: dir.appendingPathComponent(name), encoding: .utf8)
            #expect(text.contains("t.tracker") || text.contains("t\\.tracker"))
        }
        let json = try String(contentsOf: dir.appendingPathComponent("r.json"), encoding: .utf8)
        #expect(json.contains("\"rule\" : \"profile.idfa\""))
        #expect(json.contains("\"requests\" : 2"))
        let gate = run(["report", "traffic.har", "--device", "device.json", "--out", "g.html", "--fail-on", "email,device-id"], in: dir)
        #expect(gate.status == 3)
        #expect(gate.err.contains("--fail-on matched"))
        let pass = run(["report", "traffic.har", "--device", "device.json", "--out", "g.html", "--fail-on", "email"], in: dir)
        #expect(pass.status == 0)
        // A findings document is an input too.
        let again = run(["report", "r.json", "--out", "from-json.md", "--fail-on", "any"], in: dir)
        #expect(again.status == 3)
        #expect(try String(contentsOf: dir.appendingPathComponent("from-json.md"), encoding: .utf8).contains("profile\\.idfa") == false)
    }

    @Test func sessionAndHARReportsDifferOnlyInTheSourceLine() throws {
        let dir = try Self.workspace()
        defer { try? FileManager.default.removeItem(at: dir) }
        let flows = try HARReader.read(Data(Self.har.utf8))
        let store = try SessionStore(directory: dir.appendingPathComponent("captures/s1").path, create: true)
        _ = try store.append(flows: flows)
        let a = run(["report", "traffic.har", "--device", "device.json", "--out", "har.html"], in: dir)
        let b = run(["report", "s1", "--device", "device.json", "--out", "session.html"], in: dir)
        #expect(a.status == 0 && b.status == 0, "\(a.err) \(b.err)")
        let ha = try String(contentsOf: dir.appendingPathComponent("har.html"), encoding: .utf8).split(separator: "\n")
        let hb = try String(contentsOf: dir.appendingPathComponent("session.html"), encoding: .utf8).split(separator: "\n")
        #expect(ha.count == hb.count)
        let differing = zip(ha, hb).filter { $0 != $1 }
        #expect(differing.count == 2)
        #expect(differing.allSatisfy { $0.0.contains("HAR file traffic.har") && $0.1.contains("session s1") })
    }

    @Test func pcapInputNamesHostsSeenOnlyInDNSAndSNI() throws {
        try checkPcapInputNamesHostsSeenOnlyInDNSAndSNI(TestFiles.fixtures.appendingPathComponent("ios"), requests: 20)
    }

    @Test(.requires(.dev)) func devCorpusPcapInputNamesHostsSeenOnlyInDNSAndSNI() throws {
        try checkPcapInputNamesHostsSeenOnlyInDNSAndSNI(OutsideCorpus.dev.file("ios"), requests: 76)
    }

    /// `session` holds traffic.pcapng (with `requests` cleartext requests) and device.json.
    func checkPcapInputNamesHostsSeenOnlyInDNSAndSNI(_ session: URL, requests: Int) throws {
        let dir = try Self.workspace()
        defer { try? FileManager.default.removeItem(at: dir) }
        let r = run(["report", session.appendingPathComponent("traffic.pcapng").path, "--device", session.appendingPathComponent("device.json").path,
                     "--out", "pcap.json"], in: dir)
        #expect(r.status == 0, "\(r.err)")
        let doc = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: dir.appendingPathComponent("pcap.json"))) as? [String: Any])
        #expect(doc["requests"] as? Int == requests)
        let hidden = try #require(doc["metadata_only_hosts"] as? [[String: Any]])
        #expect(hidden.contains { ($0["seen_in"] as? [String]) == ["dns", "sni"] && $0["company"] as? String != nil })
        let destinations = try #require(doc["destinations"] as? [[String: Any]])
        #expect(destinations.contains { ($0["transports"] as? [String]) == ["tls-not-decrypted"] })
        #expect((doc["methodology"] as? [String: Any])?["source"] as? String == "pcapng file traffic.pcapng")
    }

    @Test func usageErrors() throws {
        let dir = try Self.workspace()
        defer { try? FileManager.default.removeItem(at: dir) }
        #expect(run(["report", "traffic.har"], in: dir).status == 64)
        #expect(run(["report", "traffic.har", "--out", "x.pdf"], in: dir).status == 64)
        #expect(run(["report", "traffic.har", "--out", "x", "--format", "pdf"], in: dir).status == 64)
        let missing = run(["report", "nope.har", "--out", "x.html"], in: dir)
        #expect(missing.status == 1 && missing.err.contains("no file nope.har and no session captures/nope.har/"))
    }
}

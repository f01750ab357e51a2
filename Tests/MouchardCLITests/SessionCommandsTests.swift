import Foundation
import Testing
import MouchardFlow
import MouchardStore
import MouchardTestSupport
import MouchardWire
@testable import MouchardCLI

/// A temporary working directory for CLI runs.
private struct WorkDir {
    let path = NSTemporaryDirectory() + "mouchard-cli-tests-" + UUID().uuidString
    init() { try? FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true) }
    func cleanUp() { try? FileManager.default.removeItem(atPath: path) }

    func run(_ args: [String]) -> (status: Int32, out: String, err: String) {
        let c = Captured()
        let io = CommandIO(out: c.io.out, err: c.io.err, currentDirectory: path)
        let status = Mouchard.main(args, io: io)
        return (status, c.out, c.err)
    }

    func write(_ name: String, _ text: String) {
        _ = FileManager.default.createFile(atPath: path + "/" + name, contents: Data(text.utf8))
    }
}


@Suite struct SessionCommandsTests {
    @Test func helpTexts() {
        let w = WorkDir()
        defer { w.cleanUp() }
        let r = w.run(["import", "--help"])
        #expect(r.status == 0)
        #expect(r.out.hasPrefix("usage: mouchard import FILE.har|FILE.pcap[ng] --session NAME [--store URL] [--keylog FILE]...\n\nimport a HAR file or a capture into a session\n"))
        #expect(r.out.contains("  -s, --session NAME  session to import into\n"))
        #expect(r.out.contains("  --keylog FILE"))
        #expect(r.out.contains("NAME is the folder captures/NAME under the current directory"))
        let e = w.run(["export", "--help"]).out
        #expect(e.hasPrefix("usage: mouchard export SESSION --har OUT.har | SESSION --pcapng OUT.pcapng [--keylog FILE]... | SESSION --flows IDS --format curl|swift-test [--device FILE] [--out FILE]\n"))
        #expect(e.contains("  --har OUT") && e.contains("  --pcapng OUT") && e.contains("  --flows IDS"))
        #expect(w.run(["help", "flows"]).out.hasPrefix("usage: mouchard flows SESSION\n\nlist the flows of a session\n"))
        let top = w.run(["--help"]).out
        #expect(top.contains("\n  import    import a HAR file or a capture into a session\n"))
        #expect(top.contains("\n  export    export a session's flows as a HAR file, curl commands or a Swift test, or its packets as a pcapng\n"))
        #expect(top.contains("\n  flows     list the flows of a session\n"))
        #expect(top.contains("\n  trackers  look a host up in the tracker directory, or check a directory file\n"))
        #expect(r.out.contains("  --strict            fail on a HAR entry that cannot be read (default: skip it with a warning)\n"))
    }

    @Test func usageErrorsExit64() {
        let w = WorkDir()
        defer { w.cleanUp() }
        let a = w.run(["import", "x.har"])
        #expect(a.status == 64)
        #expect(a.err == "mouchard: 'import' needs --session NAME\nusage: mouchard import FILE.har|FILE.pcap[ng] --session NAME [--store URL] [--keylog FILE]...\n(see 'mouchard import --help')\n")
        let b = w.run(["import", "--session", "s"])
        #expect(b.status == 64)
        #expect(b.err.hasPrefix("mouchard: 'import' needs FILE.har|FILE.pcap[ng]\n"))
        let c = w.run(["export", "s"])
        #expect(c.status == 64)
        #expect(c.err.hasPrefix("mouchard: 'export' needs --har OUT, --pcapng OUT, or --format curl|swift-test\n"))
        let d = w.run(["flows"])
        #expect(d.status == 64)
        #expect(d.err.hasPrefix("mouchard: 'flows' needs SESSION\n"))
        let e = w.run(["flows", "a", "b"])
        #expect(e.status == 64)
        #expect(e.err.hasPrefix("mouchard: unexpected argument 'b' for 'flows'\n"))
        #expect(w.run(["import", "x.har", "-s", ".."]).status == 1)
    }

    @Test func runtimeErrorsAreOneLineExit1() throws {
        let w = WorkDir()
        defer { w.cleanUp() }
        let missing = w.run(["import", "nope.har", "--session", "s"])
        #expect(missing.status == 1)
        #expect(missing.err == "mouchard: error: nope.har: no such file\n")
        w.write("bad.har", #"""
        {"log": {"entries": [{"request": {"method": "GET", "url": "http://a.example/", "headers": []}},
                             {"request": {"method": "GET", "url": "http://a.example/", "headers": [{"name": "X", "value": 7}]}}]}}
        """#)
        let bad = w.run(["import", "bad.har", "--session", "s", "--strict"])
        #expect(bad.status == 1)
        #expect(bad.err == "mouchard: error: bad.har: log.entries[1].request.headers[0].value: expected a string, found a number\n")
        #expect(!FileManager.default.fileExists(atPath: w.path + "/captures/s"), "nothing is created for a bad file")
        let skipping = w.run(["import", "bad.har", "--session", "s"])
        #expect(skipping.status == 0)
        #expect(skipping.err == "mouchard: warning: bad.har: log.entries[1].request.headers[0].value: expected a string, found a number (entry skipped)\n")
        #expect(skipping.out == "imported 1 flow from bad.har into captures/s (flow 1)\n")
        w.write("broken.har", #"{"log": {"entries": [}"#)
        #expect(w.run(["import", "broken.har", "-s", "s"]).err ==
                "mouchard: error: broken.har: byte 21: invalid JSON: expected a value, found '}'\n")
        let noSession = w.run(["flows", "nope"])
        #expect(noSession.status == 1)
        #expect(noSession.err == "mouchard: error: captures/nope/session.sqlite: no session here (session.sqlite not found)\n")
        try FileManager.default.createDirectory(atPath: w.path + "/captures/junk", withIntermediateDirectories: true)
        w.write("captures/junk/session.sqlite", String(repeating: "garbage ", count: 1000))
        let junk = w.run(["export", "junk", "--har", "out.har"])
        #expect(junk.status == 1)
        #expect(junk.err == "mouchard: error: captures/junk/session.sqlite: not a Mouchard session database (not an SQLite file, or damaged)\n")
        #expect(!FileManager.default.fileExists(atPath: w.path + "/out.har"))

        // A session damaged after it was written: still one line naming the file, exit 1.
        #expect(w.run(["import", TestFiles.fixture("ios", "traffic.har").path, "-s", "d"]).status == 0)
        let h = try #require(FileHandle(forUpdatingAtPath: w.path + "/captures/d/session.sqlite"))
        try h.seek(toOffset: 8192)
        h.write(Data(repeating: 0xA5, count: 40_000))
        try h.close()
        let damaged = w.run(["flows", "d"])
        #expect(damaged.status == 1)
        #expect(damaged.err.hasPrefix("mouchard: error: captures/d/session.sqlite: the session database is damaged"))
        #expect(damaged.err.filter { $0 == "\n" }.count == 1 && damaged.err.hasSuffix("\n"))
    }

    /// Acceptance: import then export gives the same entries (method, URL, header list, request body).
    /// Returns the work folder (session `x` imported) for more checks; the caller cleans it up.
    private func checkImportThenExportKeepsEveryEntry(_ har: String, flows n: Int) throws -> WorkDir {
        let w = WorkDir()
        let imported = w.run(["import", har, "--session", "x"])
        #expect(imported.status == 0)
        #expect(imported.out == "imported \(n) flows from \(har) into captures/x (flows 1-\(n))\n")
        let exported = w.run(["export", "x", "--har", "y.har"])
        #expect(exported.status == 0)
        #expect(exported.out == "exported \(n) flows from captures/x to y.har\n")
        let original = try HARReader.read(Data(contentsOf: URL(fileURLWithPath: har)))
        let roundTripped = try HARReader.read(Data(contentsOf: URL(fileURLWithPath: w.path + "/y.har")))
        #expect(roundTripped.count == original.count)
        for (a, b) in zip(original, roundTripped) {
            let ra = try #require(a.request), rb = try #require(b.request)
            #expect(ra.method == rb.method)
            #expect(ra.url == rb.url)
            #expect(ra.headers == rb.headers)
            #expect(ra.body == rb.body)
            #expect(a == b, "entry \(a.id)")
        }
        let listing = w.run(["flows", "x"])
        #expect(listing.status == 0)
        #expect(listing.out.split(separator: "\n").count == n)
        return w
    }

    @Test(arguments: TestFiles.fixtureDevices)
    func importThenExportKeepsEveryEntry(device: String) throws {
        let har = TestFiles.fixture(device, "traffic.har").path
        let w = try checkImportThenExportKeepsEveryEntry(har, flows: 35)
        defer { w.cleanUp() }
        if device == "ios" {
            // Query values are masked unless asked for; the IDFA never shows in the masked listing.
            let idfa = "1CE7A3D8-60D2-4F17-B911-B44ED4595414"
            let listing = w.run(["flows", "x"]).out
            #expect(listing.split(separator: "\n").first == " 1  2026-11-03T08:12:04.318Z  GET https://api.brindille.example/v3/config?platform=•••&build=•••&t=179…909  200  0 B → 44 B  HTTP/1.1")
            #expect(!listing.contains(idfa) && !listing.lowercased().contains("1ce7a3d8-60d2"))
            let full = w.run(["flows", "x", "--full-urls"]).out
            #expect(full.split(separator: "\n").first == " 1  2026-11-03T08:12:04.318Z  GET https://api.brindille.example/v3/config?platform=ios&build=321&t=1793700000909  200  0 B → 44 B  HTTP/1.1")
            #expect(full.contains("rdid=\(idfa)"))
        }
        // Importing again appends after what is there.
        #expect(w.run(["import", har, "-s", "x"]).out.hasSuffix("(flows 36-70)\n"))
    }

    @Test(.requires(.dev), arguments: ["ios", "android"])
    func devCorpusImportThenExportKeepsEveryEntry(device: String) throws {
        let har = OutsideCorpus.dev.file("\(device)/traffic.har").path
        let w = try checkImportThenExportKeepsEveryEntry(har, flows: 182)
        defer { w.cleanUp() }
        if device == "ios" {
            let listing = w.run(["flows", "x"]).out
            #expect(listing.split(separator: "\n").first == "  1  2026-10-05T07:41:40.215Z  POST https://api.chatterly.example/v1/presence?seq=179…215  200  65 B → 11 B  HTTP/1.1")
            #expect(!listing.contains("9F556435-F8AA-4567-BC63-F47D66BC8C22") && !listing.lowercased().contains("9f556435-f8aa"))
            let full = w.run(["flows", "x", "--full-urls"]).out
            #expect(full.split(separator: "\n").first == "  1  2026-10-05T07:41:40.215Z  POST https://api.chatterly.example/v1/presence?seq=1791186100215  200  65 B → 11 B  HTTP/1.1")
            #expect(full.contains("idfa=9F556435-F8AA-4567-BC63-F47D66BC8C22") || full.contains("idfa=9f556435-f8aa-4567-bc63-f47d66bc8c22"))
        }
        #expect(w.run(["import", har, "-s", "x"]).out.hasSuffix("(flows 183-364)\n"))
    }

    @Test func listingShowsSNIForTLSMetadataAndEscapesControls() throws {
        let w = WorkDir()
        defer { w.cleanUp() }
        let store = try SessionStore(directory: w.path + "/captures/t", create: true)
        try store.append(Flow(id: 0, source: .transparent, transport: .tlsMetadata,
                              timings: FlowTimings(started: Date(timeIntervalSince1970: 1_700_000_000)),
                              server: Endpoint(address: "203.0.113.9", port: 443), tls: TLSFacts(serverName: "tracker.example")))
        try store.append(Flow(id: 0, source: .pcap, transport: .http,
                              request: HTTPRequest(head: .init(method: "GET", target: "/a\u{1b}[31m", headers: [("Host", "h.example")]),
                                                   scheme: "http"),
                              timings: FlowTimings(started: Date(timeIntervalSince1970: 1_700_000_001.5)), error: "reset"))
        var h2 = Flow(id: 0, source: .proxy, transport: .https,
                      request: HTTPRequest(head: .init(method: "POST", target: "/v1/e", version: HTTPVersion(major: 2, minor: 0)), scheme: "https",
                                           fallbackAuthority: "api.example", body: Array("{}".utf8)),
                      response: HTTPResponse(head: .init(version: HTTPVersion(major: 2, minor: 0), status: 204)),
                      timings: FlowTimings(started: Date(timeIntervalSince1970: 1_700_000_002)))
        h2.extras["_streamId"] = "5"
        try store.append(h2)
        let r = w.run(["flows", "t"])
        #expect(r.status == 0)
        #expect(r.out == """
        1  2023-11-14T22:13:20.000Z  TLS tracker.example  (tls-metadata, SNI only)
        2  2023-11-14T22:13:21.500Z  GET http://h.example/a\\x1b[31m  -  0 B → 0 B  HTTP/1.1  error: reset
        3  2023-11-14T22:13:22.000Z  POST https://api.example/v1/e  204  2 B → 0 B  HTTP/2 stream 5

        """)
    }
}

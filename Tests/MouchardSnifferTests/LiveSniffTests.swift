import Foundation
import Testing
import MouchardFlow
import MouchardSniffer
import MouchardTestSupport

/// `mouchard sniff -i lo` for real (CI runs as root): a local HTTP server, a curl request carrying
/// a planted advertising identifier, the finding printed as it happens, SIGTERM, then the session's
/// traffic.pcap and store checked. Needs root (live capture) and curl; skipped, saying so, without them.
@Suite(.serialized, .requiresRoot) struct LiveSniffTests {
    /// The `mouchard` executable built beside this test bundle.
    static var mouchard: URL {
        var dir = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        if dir.lastPathComponent.hasSuffix(".xctest") { dir = dir.deletingLastPathComponent() }
        for candidate in [dir, dir.deletingLastPathComponent()] {
            let url = candidate.appendingPathComponent("mouchard")
            if FileManager.default.isExecutableFile(atPath: url.path) { return url }
        }
        return TestFiles.repositoryRoot.appendingPathComponent(".build/debug/mouchard")
    }

    /// Collects a pipe's output on a background thread.
    final class OutputCollector: @unchecked Sendable {
        private let lock = NSLock()
        private var data = Data()
        init(_ pipe: Pipe) {
            pipe.fileHandleForReading.readabilityHandler = { [weak self] h in
                let chunk = h.availableData
                guard let self else { return }
                self.lock.lock(); self.data.append(chunk); self.lock.unlock()
            }
        }
        var text: String { lock.lock(); defer { lock.unlock() }; return String(decoding: data, as: UTF8.self) }
    }

    static func waitUntil(_ seconds: Double, _ condition: () -> Bool) -> Bool {
        let end = Date().addingTimeInterval(seconds)
        while Date() < end {
            if condition() { return true }
            Thread.sleep(forTimeInterval: 0.05)
        }
        return condition()
    }

    @Test(.requires(.curl), .requires(.python3)) func sniffReportsAPlantedIdentifierSentWithCurl() throws {
        let dir = try TestFiles.temporaryDirectory("sniffer")
        defer { try? FileManager.default.removeItem(at: dir) }
        // A device profile whose IDFA is fresh for this run.
        let idfa = UUID().uuidString.uppercased()
        var profile = try JSONSerialization.jsonObject(with: Data(contentsOf: TestFiles.fixture("ios", "device.json"))) as? [String: Any] ?? [:]
        var identifiers = profile["identifiers"] as? [String: Any] ?? [:]
        identifiers["idfa"] = idfa
        profile["identifiers"] = identifiers
        let devicePath = dir.appendingPathComponent("device.json")
        try JSONSerialization.data(withJSONObject: profile).write(to: devicePath)

        // A local HTTP server on a free loopback port.
        let server = Process()
        server.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        server.arguments = ["python3", "-c", """
            import http.server, sys
            class H(http.server.BaseHTTPRequestHandler):
                def do_GET(self):
                    self.send_response(200); self.send_header('Content-Length', '2'); self.end_headers(); self.wfile.write(b'ok')
                def log_message(self, *a): pass
            s = http.server.HTTPServer(('127.0.0.1', 0), H)
            print(s.server_address[1], flush=True)
            s.serve_forever()
            """]
        let serverOut = Pipe()
        server.standardOutput = serverOut
        try server.run()
        // SIGKILL: the test runner's threads block SIGTERM, and children inherit that mask.
        defer { kill(server.processIdentifier, SIGKILL); server.waitUntilExit() }
        let portLine = OutputCollector(serverOut)
        #expect(Self.waitUntil(10) { Int(portLine.text.trimmingCharacters(in: .whitespacesAndNewlines)) != nil })
        let port = try #require(Int(portLine.text.trimmingCharacters(in: .whitespacesAndNewlines)))

        // mouchard sniff on loopback with a port filter, recording into a session.
        let session = dir.appendingPathComponent("session")
        let sniff = Process()
        sniff.executableURL = Self.mouchard
        sniff.arguments = ["sniff", "-i", "lo", "--filter", "tcp port \(port)", "--session", session.path,
                           "--device", devicePath.path, "--rules", TestFiles.repositoryRoot.appendingPathComponent("Rules").path]
        let out = Pipe(), err = Pipe()
        sniff.standardOutput = out
        sniff.standardError = err
        try sniff.run()
        defer { if sniff.isRunning { kill(sniff.processIdentifier, SIGKILL) } }
        let stdout = OutputCollector(out), stderr = OutputCollector(err)
        #expect(Self.waitUntil(20) { stderr.text.contains("sniffing on lo") }, "sniff did not start: \(stderr.text)")
        Thread.sleep(forTimeInterval: 0.3)

        let curl = Process()
        curl.executableURL = URL(fileURLWithPath: try #require(TestTool.curl.path))
        curl.arguments = ["-s", "-o", "/dev/null", "-m", "5", "http://127.0.0.1:\(port)/v1/open?idfa=\(idfa)&t=1"]
        try curl.run()
        curl.waitUntilExit()
        #expect(curl.terminationStatus == 0)

        // Reported as it happens, before we stop the capture; the full value is never printed.
        #expect(Self.waitUntil(10) { stdout.text.contains("device-id idfa") }, "no finding line: \(stdout.text) \(stderr.text)")
        #expect(!stdout.text.contains(idfa))

        kill(sniff.processIdentifier, SIGTERM)
        #expect(Self.waitUntil(10) { !sniff.isRunning })
        #expect(sniff.terminationStatus == 0)
        #expect(Self.waitUntil(2) { stdout.text.contains("mouchard sniff:") && stdout.text.contains("1 HTTP requests") })

        // The session's traffic.pcap holds the exchange, readable by our own reader.
        let pcap = session.appendingPathComponent("traffic.pcap").path
        let replay = try CaptureFileExtractor.extract(path: pcap)
        #expect(replay.readError == nil)
        #expect(replay.flows.compactMap(\.request?.path) == ["/v1/open"])
        #expect(replay.flows.first?.request?.query?.contains(idfa) == true)
        // And the store has the flow (listed by `mouchard flows`).
        let flows = Process()
        flows.executableURL = Self.mouchard
        flows.arguments = ["flows", session.path]
        let flowsOut = Pipe()
        flows.standardOutput = flowsOut
        try flows.run()
        let listing = String(decoding: flowsOut.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        flows.waitUntilExit()
        #expect(listing.contains("/v1/open"), "flows listing: \(listing)")
    }

    @Test func badFilterIsOneClearError() throws {
        let sniff = Process()
        sniff.executableURL = Self.mouchard
        sniff.arguments = ["sniff", "-i", "lo", "--filter", "tcp port eighty", "--rules",
                           TestFiles.repositoryRoot.appendingPathComponent("Rules").path]
        let err = Pipe()
        sniff.standardError = err
        sniff.standardOutput = FileHandle.nullDevice
        try sniff.run()
        let text = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        sniff.waitUntilExit()
        #expect(sniff.terminationStatus == 1)
        #expect(text.hasPrefix("mouchard: error: bad filter 'tcp port eighty':"))
        #expect(text.split(separator: "\n").count == 1)
    }
}

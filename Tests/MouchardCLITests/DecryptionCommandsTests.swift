import Foundation
import Testing
@testable import MouchardCLI

/// The tools the real-capture tests need, and why they are skipped when one is missing.
enum DecryptionTools {
    static func tool(_ name: String) -> String? {
        ["/usr/bin/", "/usr/sbin/", "/bin/", "/sbin/"].map { $0 + name }.first { FileManager.default.isExecutableFile(atPath: $0) }
    }

    static let unavailableReason: String? = {
        for t in ["tcpdump", "tshark", "curl", "openssl", "python3"] where tool(t) == nil { return "\(t) is not installed" }
        return getuid() == 0 ? nil : "tcpdump on lo needs root"
    }()
}

/// `scan --keylog`, `import --keylog` and `export --pcapng` on a real TLS capture (recorded by
/// scripts/record-tls-capture.sh: curl and openssl s_client against openssl s_server, tcpdump on
/// lo): the exported files open decrypted in tshark with no option, and scanning them gives the
/// findings of the original capture with its key log.
@Suite(.serialized, .enabled(if: DecryptionTools.unavailableReason == nil, "\(DecryptionTools.unavailableReason ?? "")"))
struct DecryptionCommandsTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()
    static let rules = root.appendingPathComponent("Rules").path

    static func tool(_ name: String) -> String? { DecryptionTools.tool(name) }

    static func shell(_ executable: String, _ args: [String]) -> String? {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: executable)
        p.arguments = args
        let pipe = Pipe()
        p.standardOutput = pipe
        p.standardError = FileHandle.nullDevice
        guard (try? p.run()) != nil else { return nil }
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        return p.terminationStatus == 0 ? String(decoding: data, as: UTF8.self) : nil
    }

    static func tsharkRequests(_ file: String) -> [String] {
        (shell(tool("tshark") ?? "tshark", ["-r", file, "-Y", "http.request", "-T", "fields", "-e", "http.request.method",
                                             "-e", "http.request.uri"]) ?? "").split(separator: "\n").map(String.init)
    }

    static func findingKeys(_ json: String) -> [String] {
        let doc = (try? JSONSerialization.jsonObject(with: Data(json.utf8))) as? [String: Any] ?? [:]
        return (doc["findings"] as? [[String: Any]] ?? []).map { f in
            let r = f["request"] as? [String: Any] ?? [:]
            return [f["category"], f["type"], r["method"], r["url"], f["where"], f["encoding"], f["transport"]]
                .map { "\($0 ?? "")" }.joined(separator: "|")
        }.sorted()
    }

    @Test func importedAndExportedSessionsOpenDecryptedInTshark() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("mouchard-export-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: dir) }
        let script = Self.root.appendingPathComponent("scripts/record-tls-capture.sh").path
        try #require(Self.shell("/bin/bash", [script, dir.path]) != nil, "recording the capture failed")
        let capture = dir.appendingPathComponent("capture.pcap").path
        let keys = dir.appendingPathComponent("keys.log").path

        let scanned = run(["scan", capture, "--keylog", keys, "--rules", Self.rules, "--format", "json"])
        #expect(scanned.status == 0)
        #expect(scanned.err.contains("TLS: 9 connections decrypted"))
        let original = Self.findingKeys(scanned.out)
        // The planted IDFA, in the query of two requests and in the X-IDFA header of all nine.
        #expect(original.filter { $0.contains("idfa") && $0.contains("|https") }.count >= 9)

        // A session without packets (as the proxy records): synthesised TCP and TLS records.
        let proxyLike = dir.appendingPathComponent("s1").path
        #expect(run(["import", capture, "--keylog", keys, "--session", proxyLike]).status == 0)
        let synthesised = dir.appendingPathComponent("s1.pcapng").path
        let e1 = run(["export", proxyLike, "--pcapng", synthesised])
        #expect(e1.status == 0 && e1.out.contains("synthesised from 9 exchanges"))
        #expect(Self.tsharkRequests(synthesised).count == 9)
        let rescanned = run(["scan", synthesised, "--rules", Self.rules, "--format", "json"])
        #expect(Self.findingKeys(rescanned.out) == original)

        // A session with packets (as the sniffer and gateway record): traffic.pcap and keys.log.
        let gatewayLike = dir.appendingPathComponent("s2")
        #expect(run(["import", capture, "--session", gatewayLike.path]).status == 0)
        try FileManager.default.copyItem(atPath: capture, toPath: gatewayLike.appendingPathComponent("traffic.pcap").path)
        try FileManager.default.copyItem(atPath: keys, toPath: gatewayLike.appendingPathComponent("keys.log").path)
        let copied = dir.appendingPathComponent("s2.pcapng").path
        let e2 = run(["export", gatewayLike.path, "--pcapng", copied])
        #expect(e2.status == 0 && e2.out.contains("packets of traffic.pcap"))
        #expect(Self.tsharkRequests(copied).count == 9)
        #expect(Self.findingKeys(run(["scan", copied, "--rules", Self.rules, "--format", "json"]).out) == original)
    }

}

/// `--keylog` with bad lines: warnings on stderr with line numbers, the command still runs.
@Suite struct KeyLogOptionTests {
    @Test func badKeyLogLinesAreWarnedWithLineNumbers() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("mouchard-keylog-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let keys = dir.appendingPathComponent("keys.log")
        let random = String(repeating: "ab", count: 32)
        try "# comment\nCLIENT_RANDOM \(random) 00\nnonsense\n".write(to: keys, atomically: true, encoding: .utf8)
        let har = dir.appendingPathComponent("empty.har")
        try #"{"log":{"version":"1.2","creator":{"name":"t","version":"1"},"entries":[]}}"#.write(to: har, atomically: true, encoding: .utf8)
        let r = run(["scan", har.path, "--keylog", keys.path, "--rules", DecryptionCommandsTests.rules])
        #expect(r.status == 0)
        #expect(r.err.contains("key log line 2: CLIENT_RANDOM: secret of 1 bytes (expected 48)"))
        #expect(r.err.contains("key log line 3:"))
    }
}

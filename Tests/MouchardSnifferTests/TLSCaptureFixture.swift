import Foundation
import MouchardTestSupport

/// A real TLS capture made once per test run by `scripts/record-tls-capture.sh` (openssl s_server,
/// curl and openssl s_client writing key logs, tcpdump on loopback), and tshark's reading of it.
enum TLSCaptureFixture {
    static func which(_ tool: String) -> String? {
        for dir in ["/usr/bin", "/usr/sbin", "/bin", "/sbin", "/usr/local/bin"] {
            let path = "\(dir)/\(tool)"
            if FileManager.default.isExecutableFile(atPath: path) { return path }
        }
        return nil
    }

    static let missingTool: String? = {
        for tool in ["tcpdump", "tshark", "editcap", "curl", "openssl"] where which(tool) == nil { return tool }
        return nil
    }()

    /// Why the real-capture tests cannot run here, nil when they can.
    static let unavailableReason: String? = {
        if let tool = missingTool { return "\(tool) is not installed" }
        if getuid() != 0 { return "tcpdump on lo needs root" }
        return nil
    }()

    static var available: Bool { unavailableReason == nil }

    struct Recording: Sendable {
        var directory: URL
        var capture: String { directory.appendingPathComponent("capture.pcap").path }
        var keyLog: String { directory.appendingPathComponent("keys.log").path }
        /// `METHOD URI` per request the clients sent.
        var requests: [String]
    }

    /// Runs a command; its standard output, or nil when it fails.
    @discardableResult
    static func run(_ executable: String, _ arguments: [String]) -> String? {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: executable)
        p.arguments = arguments
        let out = Pipe()
        p.standardOutput = out
        p.standardError = FileHandle.nullDevice
        do { try p.run() } catch { return nil }
        let data = out.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        return p.terminationStatus == 0 ? String(decoding: data, as: UTF8.self) : nil
    }

    /// The recording shared by the tests of one run (made on first use).
    static let shared: Recording? = record()

    static func record(rounds: Int = 1) -> Recording? {
        guard available else { return nil }
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("mouchard-tls-\(UUID().uuidString)")
        let script = TestFiles.repositoryRoot.appendingPathComponent("scripts/record-tls-capture.sh").path
        guard run("/bin/bash", [script, dir.path, String(rounds)]) != nil,
              let text = try? String(contentsOf: dir.appendingPathComponent("requests.txt"), encoding: .utf8) else { return nil }
        return Recording(directory: dir, requests: text.split(separator: "\n").map(String.init))
    }

    /// tshark's decrypted HTTP requests (`METHOD URI`, frame order) with `-o tls.keylog_file`, or with
    /// no option at all when `keyLog` is nil (a pcapng carrying its secrets).
    static func tsharkRequests(_ file: String, keyLog: String?) -> [String]? {
        guard let tshark = which("tshark") else { return nil }
        var args = ["-r", file]
        if let keyLog { args += ["-o", "tls.keylog_file:\(keyLog)"] }
        args += ["-Y", "http.request", "-T", "fields", "-e", "http.request.method", "-e", "http.request.uri"]
        return run(tshark, args)?.split(separator: "\n").map { $0.replacingOccurrences(of: "\t", with: " ") }
    }
}

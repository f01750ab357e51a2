import Foundation
import Glibc
import MouchardAudit
import MouchardTestSupport
import Testing
@testable import MouchardCLI

/// Progress and status lines: drawn on standard error only when it is a terminal (a pseudo-terminal
/// here, the real `mouchard` executable behind it), absent through a pipe and with --quiet.
@Suite struct ProgressOutputTests {
    @Test func progressTextSaysDoneTotalRateAndTimeLeft() {
        let bytes = ProgressText.line(verb: "scan", InputProgress(name: "/tmp/x/big.pcap", done: 45_200_000, total: 120_000_000),
                                      seconds: 4)
        #expect(bytes == "scan: big.pcap 45.2 MB of 120.0 MB (37%), 11.3 MB/s, 7 s left")
        let entries = ProgressText.line(verb: "export", InputProgress(name: "s", done: 1200, total: 5000, noun: "flows"), seconds: 2)
        #expect(entries == "export: s 1,200 of 5,000 flows (24%), 600/s, 7 s left")
        #expect(ProgressText.line(verb: "import", InputProgress(name: "a.har", done: 3, total: 3, noun: "entries"), seconds: 1)
            == "import: a.har 3 of 3 entries (100%), 3/s")
        #expect(ProgressText.size(999) == "999 B" && ProgressText.size(1_500) == "1.5 kB" && ProgressText.size(2_300_000_000) == "2.3 GB")
        #expect(ProgressText.duration(58.2) == "59 s" && ProgressText.duration(130) == "2 min 10 s" && ProgressText.duration(3900) == "1 h 05 min")
        #expect(ProgressText.count(1_234_567) == "1,234,567" && ProgressText.count(12) == "12")
    }

    /// Runs the built `mouchard` with its standard error on a pseudo-terminal (or a pipe): stdout, stderr.
    /// With `stopAfter`, the command is interrupted (SIGINT) once its stderr shows `until`, or after that many seconds.
    func run(_ args: [String], terminal: Bool, in dir: URL, stopAfter: Double? = nil,
             until: String = "\u{0}") throws -> (out: String, err: String) {
        let binary = try #require(InputNamingTests.binary)
        let p = Process()
        p.executableURL = URL(fileURLWithPath: binary)
        p.arguments = args
        p.currentDirectoryURL = dir
        p.environment = ["MOUCHARD_PROGRESS_AFTER": "0", "MOUCHARD_HOME": dir.path + "/home", "PATH": "/usr/bin:/bin"]
        let out = Pipe()
        p.standardOutput = out
        var master: Int32 = -1, slave: Int32 = -1
        let errPipe = Pipe()
        if terminal {
            #expect(openpty(&master, &slave, nil, nil, nil) == 0)
            p.standardError = FileHandle(fileDescriptor: slave, closeOnDealloc: false)
        } else {
            p.standardError = errPipe
        }
        let collected = DataCollector()
        let masterFD = master
        let reader = Thread {
            if terminal {
                var buffer = [UInt8](repeating: 0, count: 4096)
                while true {
                    let n = read(masterFD, &buffer, buffer.count)
                    if n <= 0 { break }  // EIO once the child and we closed the slave
                    collected.append(Data(buffer[0..<n]))
                }
            } else {
                collected.append(errPipe.fileHandleForReading.readDataToEndOfFile())
            }
            collected.finish()
        }
        reader.start()
        try p.run()
        if terminal { close(slave) }
        if let stopAfter {
            let deadline = Date().addingTimeInterval(stopAfter)
            while Date() < deadline && p.isRunning && !collected.text.contains(until) { usleep(50_000) }
            kill(p.processIdentifier, SIGINT)
            // It must stop on that one signal; a command still running after 20 s fails the test
            // rather than hanging the suite.
            let stopBy = Date().addingTimeInterval(20)
            while p.isRunning && Date() < stopBy { usleep(50_000) }
            if p.isRunning {
                kill(p.processIdentifier, SIGKILL)
                Issue.record("mouchard \(args.joined(separator: " ")) did not stop on SIGINT")
            }
        }
        let output = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        p.waitUntilExit()
        collected.wait(seconds: 10)
        if terminal { close(master) }
        return (output, collected.text)
    }

    @Test(.enabled(if: InputNamingTests.binary != nil, "needs the built mouchard executable beside the test bundle (swift build)"))
    func scanImportAndExportShowProgressOnATerminalOnly() throws {
        let dir = try TestFiles.temporaryDirectory("progress")
        defer { try? FileManager.default.removeItem(at: dir) }
        let har = TestFiles.fixture("ios", "traffic.har").path
        let scan = try run(["scan", har], terminal: true, in: dir)
        #expect(scan.err.contains("\rscan: traffic.har ") && scan.err.contains(" entries ("), "\(scan.err.debugDescription)")
        #expect(scan.err.hasSuffix("\r\u{1B}[K"), "the line is erased at the end: \(scan.err.suffix(40).debugDescription)")
        #expect(!scan.out.contains("\u{1B}") && scan.out.contains("requests inspected"))
        let imported = try run(["import", har, "--session", "s"], terminal: true, in: dir)
        #expect(imported.err.contains("\rimport: traffic.har ") && imported.err.contains("flows stored"), "\(imported.err.debugDescription)")
        let exported = try run(["export", "s", "--har", "out.har"], terminal: true, in: dir)
        #expect(exported.err.contains("\rexport: s ") && exported.err.contains(" flows ("), "\(exported.err.debugDescription)")
        let capture = try run(["report", TestFiles.fixture("ios", "traffic.pcap").path, "--out", "r.html"], terminal: true, in: dir)
        #expect(capture.err.contains("\rreport: traffic.pcap ") && capture.err.contains(" kB of "), "\(capture.err.debugDescription)")

        let piped = try run(["scan", har], terminal: false, in: dir)
        #expect(!piped.err.contains("\r") && !piped.err.contains("\u{1B}"), "\(piped.err.debugDescription)")
        #expect(piped.out == scan.out)
        let quiet = try run(["scan", har, "--quiet"], terminal: true, in: dir)
        #expect(!quiet.err.contains("\r") && !quiet.err.contains("\u{1B}"), "\(quiet.err.debugDescription)")
    }

    @Test(.enabled(if: InputNamingTests.binary != nil, "needs the built mouchard executable beside the test bundle (swift build)"))
    func proxyShowsAStatusLineOnATerminalOnly() throws {
        let dir = try TestFiles.temporaryDirectory("status")
        defer { try? FileManager.default.removeItem(at: dir) }
        let line = "\rproxy: 0 connections, 0 flows, 0 findings, 0 B\u{1B}[K"
        let shown = try run(["proxy", "--listen", "127.0.0.1:0", "--no-store"], terminal: true, in: dir, stopAfter: 20, until: line)
        #expect(shown.err.contains(line), "\(shown.err.debugDescription)")
        #expect(shown.err.contains("\r\u{1B}[Kmouchard: stopping...\r\n"), "the line is erased before the summary")
        let piped = try run(["proxy", "--listen", "127.0.0.1:0", "--no-store"], terminal: false, in: dir, stopAfter: 2.5)
        #expect(piped.err.contains("mouchard: stopping...") && !piped.err.contains("\r"), "\(piped.err.debugDescription)")
        let quiet = try run(["proxy", "--listen", "127.0.0.1:0", "--no-store", "--quiet"], terminal: true, in: dir, stopAfter: 2.5)
        #expect(quiet.err.contains("mouchard: stopping...") && !quiet.err.contains("\rproxy:"), "\(quiet.err.debugDescription)")
    }
}

/// Bytes gathered by a reader thread.
final class DataCollector: @unchecked Sendable {
    private let lock = NSLock()
    private var data = Data()
    private let done = DispatchSemaphore(value: 0)
    func append(_ d: Data) { lock.lock(); data.append(d); lock.unlock() }
    func finish() { done.signal() }
    func wait(seconds: Double) { _ = done.wait(timeout: .now() + seconds) }
    var text: String { lock.lock(); defer { lock.unlock() }; return String(decoding: data, as: UTF8.self) }
}

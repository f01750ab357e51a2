import Foundation
import Testing
import MouchardSniffer

/// Walks every capture of tcpdump's own test suite (many malformed on purpose) through the whole
/// pipeline: each must give a result or one clear error, quickly, and never crash or hang.
@Suite struct RobustnessTests {
    @Test func tcpdumpTestCapturesNeverCrashOrHang() throws {
        let files = try FileManager.default.contentsOfDirectory(atPath: TestPaths.tcpdumpTests.path)
            .filter { $0.hasSuffix(".pcap") || $0.hasSuffix(".pcapng") || $0.hasSuffix(".cap") }.sorted()
        #expect(files.count >= 800)
        var decodedCleanly = 0
        var stoppedWithError = 0
        var packets = 0
        var flows = 0
        var slowest = (name: "", seconds: 0.0)
        for name in files {
            let path = TestPaths.tcpdumpTests.appendingPathComponent(name).path
            let start = Date()
            let result = try CaptureFileExtractor.extract(path: path)
            let seconds = Date().timeIntervalSince(start)
            if seconds > slowest.seconds { slowest = (name, seconds) }
            #expect(seconds < 5, "\(name) took \(seconds) s")
            if let e = result.readError {
                stoppedWithError += 1
                // One clear line that names the byte offset.
                #expect(!e.description.contains("\n") && e.description.contains("at byte \(e.offset)"))
            } else {
                decodedCleanly += 1
            }
            packets += result.statistics.packets
            flows += result.flows.count
        }
        print("tcpdump-tests: \(files.count) captures, \(decodedCleanly) decoded to the end, \(stoppedWithError) stopped with a clear error; \(packets) packets, \(flows) flows; slowest \(slowest.name) \(String(format: "%.2f", slowest.seconds)) s")
        #expect(decodedCleanly + stoppedWithError == files.count)
        #expect(decodedCleanly > files.count / 2)
    }
}

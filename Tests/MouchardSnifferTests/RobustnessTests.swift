import Foundation
import Testing
import MouchardSniffer
import MouchardTestSupport

/// Walks hostile captures through the whole pipeline: each must give a result or one clear error
/// naming its byte offset, quickly, never crash or hang, and keep what came before the damage. The
/// project's own malformed fixtures (Tests/Fixtures/malformed, each with its expected outcome) run
/// everywhere; tcpdump's own test suite (hundreds of captures, many malformed on purpose) runs when
/// it is beside the repository.
@Suite struct RobustnessTests {
    struct Expectation: Decodable {
        struct Failure: Decodable {
            var kind: String
            var offset: Int
        }
        var error: Failure?
        /// The request paths that must come out, in order; nil where only "no crash, no error" is promised.
        var requests: [String]?
        /// Packets broken on purpose, which the extractor must count as undecodable (IP, TCP, UDP).
        var bad_packets: Int?
        /// DNS messages broken on purpose (compression loops, answers past the end), counted as malformed.
        var malformed_dns: Int?
    }

    static let malformed = TestFiles.fixtures.appendingPathComponent("malformed")

    static let expectations: [String: Expectation] = {
        let url = malformed.appendingPathComponent("expected.json")
        do { return try JSONDecoder().decode([String: Expectation].self, from: Data(contentsOf: url)) } catch {
            fatalError("\(url.path): \(error)")
        }
    }()

    @Test func everyMalformedFixtureHasAnExpectation() throws {
        let files = try FileManager.default.contentsOfDirectory(atPath: Self.malformed.path).filter { $0 != "expected.json" }
        #expect(Set(files) == Set(Self.expectations.keys))
        #expect(files.count >= 15)
    }

    @Test(arguments: expectations.keys.sorted())
    func malformedFixtureGivesItsExpectedOutcome(_ name: String) throws {
        let expected = try #require(Self.expectations[name])
        let start = Date()
        let result = try CaptureFileExtractor.extract(path: Self.malformed.appendingPathComponent(name).path)
        #expect(Date().timeIntervalSince(start) < 5)
        if let failure = expected.error {
            let e = try #require(result.readError, "\(name) was read without an error")
            #expect("\(e.kind)" == failure.kind && e.offset == failure.offset, "\(name): \(e)")
            #expect(!e.description.contains("\n") && e.description.contains("at byte \(e.offset)"), "\(e.description)")
        } else {
            #expect(result.readError == nil, "\(name): \(String(describing: result.readError))")
        }
        if let bad = expected.bad_packets {
            let s = result.statistics
            #expect(s.undecodableLink + s.badIP + s.badTransport == bad, "\(name): \(s)")
        }
        if let dns = expected.malformed_dns { #expect(result.statistics.dnsMalformed == dns, "\(name): \(result.statistics)") }
        if let paths = expected.requests {
            #expect(result.flows.compactMap(\.request?.path) == paths, "\(name)")
        }
    }

    @Test(.requires(.tcpdumpTests)) func tcpdumpTestCapturesNeverCrashOrHang() throws {
        let corpus = OutsideCorpus.tcpdumpTests.url
        let files = try FileManager.default.contentsOfDirectory(atPath: corpus.path)
            .filter { $0.hasSuffix(".pcap") || $0.hasSuffix(".pcapng") || $0.hasSuffix(".cap") }.sorted()
        #expect(files.count >= 800)
        var decodedCleanly = 0
        var stoppedWithError = 0
        var packets = 0
        var flows = 0
        var slowest = (name: "", seconds: 0.0)
        for name in files {
            let path = corpus.appendingPathComponent(name).path
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

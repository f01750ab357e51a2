import Foundation
import MouchardFlow
import MouchardSniffer
import MouchardTestSupport
import Testing

/// Each capture of a session (Ethernet pcap, Linux cooked v1 and v2, pcapng) must give exactly the
/// HAR's cleartext requests (same method, URL and body), and its destinations must name every DNS
/// name and SNI in it: on the project's fixtures (against what their generator put in, and against
/// tshark when installed) and on the dev corpus when it is beside the repository.
@Suite struct CaptureAgainstHARTests {
    static let captureNames = ["traffic.pcap", "traffic-sll.pcap", "traffic-sll2.pcap", "traffic.pcapng"]
    static let fixtureCaptures = TestFiles.fixtureDevices.flatMap { d in captureNames.map { "\(d)/\($0)" } }
    static let devCaptures = ["ios", "android"].flatMap { d in ["traffic.pcap", "traffic-sll.pcap", "traffic.pcapng"].map { "\(d)/\($0)" } }

    /// What the fixture generator put in each capture (Tests/Fixtures/captures.json).
    struct Facts: Decodable {
        var packets: Int
        var http_requests: Int
        var dns_names: [String]
        var snis: [String]
    }

    static let facts: [String: Facts] = {
        let url = TestFiles.fixtures.appendingPathComponent("captures.json")
        do { return try JSONDecoder().decode([String: Facts].self, from: Data(contentsOf: url)) } catch {
            fatalError("\(url.path): \(error)")
        }
    }()

    /// Runs tshark and returns its non-empty output lines (each may hold comma-separated values).
    static func tshark(_ arguments: [String]) throws -> [String] {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: try #require(TestTool.tshark.path))
        p.arguments = arguments
        let pipe = Pipe()
        p.standardOutput = pipe
        p.standardError = FileHandle.nullDevice
        try p.run()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        return String(decoding: data, as: UTF8.self).split(separator: "\n").map(String.init).filter { !$0.isEmpty }
    }

    /// The capture's requests are the HAR's http:// requests, bodies byte-identical (gzip kept, chunked removed).
    static func checkCleartextRequests(capture: URL, har: URL) throws -> CaptureExtraction {
        let result = try CaptureFileExtractor.extract(path: capture.path)
        #expect(result.readError == nil)
        let expected = try HARReader.read(Data(contentsOf: har)).compactMap(\.request).filter { $0.scheme == "http" }
        let got = result.flows.compactMap(\.request)
        #expect(!expected.isEmpty)
        #expect(got.count == expected.count)
        func key(_ r: HTTPRequest) -> String { "\(r.method) \(r.url) \(r.body.count)" }
        #expect(got.map(key).sorted() == expected.map(key).sorted())
        var expectedBodies: [String: [[UInt8]]] = [:]
        for r in expected { expectedBodies["\(r.method) \(r.url)", default: []].append(r.body) }
        for r in got {
            #expect(expectedBodies["\(r.method) \(r.url)"]?.contains(r.body) == true, "body of \(r.method) \(r.url)")
            #expect(!r.bodyTruncated)
        }
        #expect(result.flows.allSatisfy { $0.error == nil })
        #expect(result.flows.filter { $0.request != nil }.allSatisfy { $0.response != nil })
        return result
    }

    /// Every DNS name and SNI is a destination; every SNI is one tls-metadata flow; TLS destinations carry an address.
    static func checkDestinations(_ result: CaptureExtraction, dnsNames: [String], snis: [String]) {
        let hosts = Set(result.destinations.map(\.host))
        #expect(!dnsNames.isEmpty && !snis.isEmpty)
        for n in Set(dnsNames + snis) { #expect(hosts.contains(n), "\(n) missing from destinations") }
        let flowSNIs = result.flows.filter { $0.transport == .tlsMetadata }.compactMap { $0.tls?.serverName }
        #expect(flowSNIs.sorted() == snis.sorted())
        for d in result.destinations where snis.contains(d.host) {
            #expect(d.transports.contains("tls") && !d.addresses.isEmpty)
        }
        #expect(!result.dns.isEmpty)
    }

    @Test(arguments: fixtureCaptures)
    func fixtureCapturesGiveTheHARsCleartextRequests(_ capture: String) throws {
        let device = String(capture.split(separator: "/")[0])
        let facts = try #require(Self.facts[capture])
        let result = try Self.checkCleartextRequests(capture: TestFiles.fixtures.appendingPathComponent(capture),
                                                     har: TestFiles.fixture(device, "traffic.har"))
        #expect(result.flows.compactMap(\.request).count == facts.http_requests)
        #expect(result.statistics.packets == facts.packets)
        // The generator put a retransmission, a late duplicate and server segments out of order in each session.
        #expect(result.statistics.retransmittedBytes > 0 && result.statistics.outOfOrderSegments > 0)
        Self.checkDestinations(result, dnsNames: facts.dns_names, snis: facts.snis)
    }

    /// An independent reader agrees: tshark's HTTP, DNS and TLS dissectors on the same files.
    @Test(.requires(.tshark), arguments: fixtureCaptures)
    func tsharkSeesWhatTheFixtureCapturesGive(_ capture: String) throws {
        let path = TestFiles.fixtures.appendingPathComponent(capture).path
        let result = try CaptureFileExtractor.extract(path: path)
        let requests = try Self.tshark(["-r", path, "-Y", "http.request", "-T", "fields", "-e", "frame.number"]).count
        #expect(result.flows.compactMap(\.request).count == requests)
        let names = try Self.tshark(["-r", path, "-Y", "dns", "-T", "fields", "-e", "dns.qry.name"])
            .flatMap { $0.split(separator: ",").map { $0.lowercased() } }
        let snis = try Self.tshark(["-r", path, "-Y", "tls.handshake.type == 1", "-T", "fields",
                                    "-e", "tls.handshake.extensions_server_name"]).map { $0.lowercased() }
        Self.checkDestinations(result, dnsNames: names, snis: snis)
        #expect(Set(names) == Set(try #require(Self.facts[capture]).dns_names))
    }

    @Test(.requires(.dev), .requires(.tshark), arguments: devCaptures)
    func devCorpusCapturesGiveTheHARsCleartextRequests(_ capture: String) throws {
        let path = OutsideCorpus.dev.file(capture).path
        let device = String(capture.split(separator: "/")[0])
        let result = try Self.checkCleartextRequests(capture: URL(fileURLWithPath: path),
                                                     har: OutsideCorpus.dev.file("\(device)/traffic.har"))
        let tsharkCount = try Self.tshark(["-r", path, "-Y", "http.request", "-T", "fields", "-e", "frame.number"]).count
        #expect(result.flows.compactMap(\.request).count == tsharkCount)
    }

    @Test(.requires(.dev), .requires(.tshark), arguments: devCaptures)
    func devCorpusDestinationsNameEveryDNSNameAndSNI(_ capture: String) throws {
        let path = OutsideCorpus.dev.file(capture).path
        let result = try CaptureFileExtractor.extract(path: path)
        let names = try Self.tshark(["-r", path, "-Y", "dns", "-T", "fields", "-e", "dns.qry.name"])
            .flatMap { $0.split(separator: ",").map { $0.lowercased() } }
        let snis = try Self.tshark(["-r", path, "-Y", "tls.handshake.type == 1", "-T", "fields",
                                    "-e", "tls.handshake.extensions_server_name"]).map { $0.lowercased() }
        Self.checkDestinations(result, dnsNames: names, snis: snis)
    }
}

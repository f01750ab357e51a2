import Foundation
import Testing
import MouchardFlow
import MouchardSniffer

/// The dev corpus: each capture (Ethernet pcap, Linux cooked pcap, pcapng) must give exactly the
/// HAR's cleartext requests (same method, URL and body), and its destinations must name every DNS
/// name and SNI that tshark sees in it.
@Suite struct CorpusCaptureTests {
    static let captures = ["ios/traffic.pcap", "ios/traffic-sll.pcap", "ios/traffic.pcapng",
                           "android/traffic.pcap", "android/traffic-sll.pcap", "android/traffic.pcapng"]

    /// Runs tshark and returns its non-empty output lines (each may hold comma-separated values).
    static func tshark(_ arguments: [String]) throws -> [String] {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/tshark")
        p.arguments = arguments
        let pipe = Pipe()
        p.standardOutput = pipe
        p.standardError = FileHandle.nullDevice
        try p.run()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        return String(decoding: data, as: UTF8.self).split(separator: "\n").map(String.init).filter { !$0.isEmpty }
    }

    @Test(arguments: captures)
    func capturesGiveTheHARsCleartextRequests(_ capture: String) throws {
        let path = TestPaths.corpus.appendingPathComponent(capture).path
        let result = try CaptureFileExtractor.extract(path: path)
        #expect(result.readError == nil)
        let device = capture.split(separator: "/")[0]
        let har = try HARReader.read(Data(contentsOf: TestPaths.corpus.appendingPathComponent("\(device)/traffic.har")))
        let expected = har.compactMap(\.request).filter { $0.scheme == "http" }
        let got = result.flows.compactMap(\.request)
        // Independent count: tshark's own HTTP dissector.
        let tsharkCount = try Self.tshark(["-r", path, "-Y", "http.request", "-T", "fields", "-e", "frame.number"]).count
        print("\(capture): \(got.count) requests (tshark \(tsharkCount), HAR http:// \(expected.count)), \(result.flows.count - got.count) tls-metadata flows, \(result.destinations.count) destinations")
        #expect(got.count == tsharkCount)
        #expect(got.count == expected.count)
        func key(_ r: HTTPRequest) -> String { "\(r.method) \(r.url) \(r.body.count)" }
        #expect(got.map(key).sorted() == expected.map(key).sorted())
        // Bodies are byte-identical (gzip kept, chunked removed).
        var expectedBodies: [String: [[UInt8]]] = [:]
        for r in expected { expectedBodies["\(r.method) \(r.url)", default: []].append(r.body) }
        for r in got {
            #expect(expectedBodies["\(r.method) \(r.url)"]?.contains(r.body) == true, "body of \(r.method) \(r.url)")
            #expect(!r.bodyTruncated)
        }
        #expect(result.flows.allSatisfy { $0.error == nil })
        #expect(result.flows.filter { $0.request != nil }.allSatisfy { $0.response != nil })
    }

    @Test(arguments: captures)
    func destinationsNameEveryDNSNameAndSNI(_ capture: String) throws {
        let path = TestPaths.corpus.appendingPathComponent(capture).path
        let result = try CaptureFileExtractor.extract(path: path)
        let hosts = Set(result.destinations.map(\.host))
        let names = try Self.tshark(["-r", path, "-Y", "dns", "-T", "fields", "-e", "dns.qry.name"])
            .flatMap { $0.split(separator: ",").map { $0.lowercased() } }
        let snis = try Self.tshark(["-r", path, "-Y", "tls.handshake.type == 1", "-T", "fields",
                                    "-e", "tls.handshake.extensions_server_name"]).map { $0.lowercased() }
        #expect(!names.isEmpty && !snis.isEmpty)
        for n in Set(names + snis) { #expect(hosts.contains(n), "\(n) missing from destinations") }
        // Every SNI seen by tshark is a tls-metadata flow.
        let flowSNIs = result.flows.filter { $0.transport == .tlsMetadata }.compactMap { $0.tls?.serverName }
        #expect(flowSNIs.sorted() == snis.sorted())
        // Destinations reached over TLS are marked so and carry an address.
        for d in result.destinations where snis.contains(d.host) {
            #expect(d.transports.contains("tls") && !d.addresses.isEmpty)
        }
        #expect(!result.dns.isEmpty)
    }
}

import Foundation
import MouchardTestSupport
import MouchardFlow
import MouchardSniffer
import Testing

/// The captures of `Tests/Fixtures/wild-defects` (made by its `make_wild_defects.py`), one per
/// kind of real-world input that once gave 0 requests without a word: each now gives its
/// requests, or says in a counted warning what it could not read.
@Suite struct WildDefectCaptureTests {
    static let fixtures = TestFiles.fixtures.appendingPathComponent("wild-defects")
    static let wild = OutsideCorpus.wild.file("pcap")

    static func extract(_ name: String) throws -> CaptureExtraction {
        try CaptureFileExtractor.extract(path: fixtures.appendingPathComponent(name).path)
    }

    static func urls(_ x: CaptureExtraction) -> [String] { x.flows.compactMap { $0.request?.url } }

    @Test func wifiWithRadiotapAndSNAP() throws {
        let x = try Self.extract("wifi-radiotap.pcap")
        #expect(Self.urls(x) == ["http://t.example/track?idfa=AEBE52E7-03EE-455A-B3C4-E57283966239"])
        #expect(x.flows.first?.response?.status == 200)
        #expect(x.statistics.nonIPByProtocol["802.11 management"] == 1)
        #expect(x.warnings.contains { $0.hasPrefix("1 frame of encrypted 802.11 data not read") })
    }

    @Test func ipv4FragmentsReassembledAndOverlapsDropped() throws {
        let x = try Self.extract("ipv4-fragments.pcap")
        #expect(Self.urls(x) == ["http://api.example/v1/events"])
        let body = String(decoding: x.flows.first?.request?.body ?? [], as: UTF8.self)
        #expect(body.contains("jane.doe@example.com"))
        #expect(x.statistics.fragments.datagrams == 1)
        #expect(x.statistics.fragments.dropped[.overlap] == 1)
        #expect(x.warnings.contains { $0.contains("overlapping fragments (RFC 5722): 1") })
    }

    @Test func ipv6FragmentsReassembled() throws {
        let x = try Self.extract("ipv6-fragments.pcap")
        #expect(Self.urls(x) == ["http://t.example/track?idfa=AEBE52E7-03EE-455A-B3C4-E57283966239"])
        #expect(x.statistics.fragments.datagrams == 1 && x.statistics.fragments.fragments == 2)
    }

    @Test func linuxCookedV2AndQinQPPPoE() throws {
        for name in ["sll2.pcap", "qinq-pppoe.pcap"] {
            let x = try Self.extract(name)
            #expect(Self.urls(x).count == 1, "\(name)")
            #expect(x.flows.first?.response?.status == 200, "\(name)")
        }
    }

    @Test func cleartextHTTP2IsDetectedAndDecoded() throws {
        let x = try Self.extract("h2c.pcap")
        #expect(x.statistics.cleartextHTTP2Connections == 2)
        #expect(x.statistics.http2Connections == 2 && x.statistics.http2Problems == 0)
        // The Upgrade request itself is HTTP/1.1 and inspected; after the 101 the connection is HTTP/2
        // (here only SETTINGS: no stream, so no more flows).
        #expect(Self.urls(x) == ["http://t.example/h2c"])
        #expect(x.flows.first?.response?.status == 101)
        #expect(x.destinations.contains { $0.transports.contains("h2c") })
    }

    @Test func unsupportedLinkTypeIsAWarningWithCounts() throws {
        let x = try Self.extract("unknown-link.pcap")
        #expect(x.flows.isEmpty)
        #expect(x.warnings.contains { $0.hasPrefix("2 frames of link type 147 not decoded") })
    }

    @Test func filesThatAreNoCaptureAreNamed() throws {
        func describe(_ name: String) throws -> String? {
            let data = try Data(contentsOf: Self.fixtures.appendingPathComponent(name))
            return CaptureFileExtractor.nonCaptureDescription(header: Array(data.prefix(64)), fileSize: data.count)
        }
        #expect(try describe("empty.pcap") == "empty file")
        #expect(try describe("lfs-pointer.pcap")?.hasPrefix("looks like a Git LFS pointer") == true)
        #expect(try describe("wifi-radiotap.pcap") == nil)
        #expect(CaptureFileExtractor.looksLikeJSON(header: Array("\u{FEFF}  {\"log\"".utf8)))
    }

    /// The wild corpus, when present: the 802.11 and fragmented captures (0 requests before) give
    /// their requests, and every capture gives the same flows and warnings when read twice.
    @Test(.requires(.wild))
    func wildCapturesNeverSilentlyEmpty() throws {
        let names = try FileManager.default.contentsOfDirectory(atPath: Self.wild.path)
            .filter { $0.hasSuffix(".pcap") || $0.hasSuffix(".pcapng") }.sorted()
        #expect(names.count >= 20)
        for name in names {
            let x = try CaptureFileExtractor.extract(path: Self.wild.appendingPathComponent(name).path)
            let requests = x.flows.filter { $0.request != nil }.count
            if name.contains("80211") || name.contains("frag") { #expect(requests > 0, "\(name): 0 requests") }
            let again = try CaptureFileExtractor.extract(path: Self.wild.appendingPathComponent(name).path)
            #expect(again.flows.map { $0.request?.url ?? $0.host } == x.flows.map { $0.request?.url ?? $0.host }, "\(name)")
            #expect(again.warnings == x.warnings, "\(name)")
        }
    }
}

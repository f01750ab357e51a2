import Foundation
import MouchardSniffer
import MouchardTestSupport
import Testing

/// Captures written by other tools and projects (`wild/pcap` of the shared folder, when it is beside
/// the repository): each gives its flows or one clear error naming its byte offset, quickly; and
/// where tshark sees HTTP requests in a file, the extractor is not silently empty.
@Suite(.requires(.wild)) struct WildCaptureTests {
    static func captures() throws -> [URL] {
        let dir = OutsideCorpus.wild.file("pcap")
        return try FileManager.default.contentsOfDirectory(atPath: dir.path).sorted()
            .filter { $0.hasSuffix(".pcap") || $0.hasSuffix(".pcapng") }.map { dir.appendingPathComponent($0) }
    }

    @Test func everyWildCaptureGivesFlowsOrOneClearError() throws {
        let files = try Self.captures()
        #expect(files.count >= 20)
        var withRequests = 0
        for url in files {
            let start = Date()
            let result = try CaptureFileExtractor.extract(path: url.path)
            #expect(Date().timeIntervalSince(start) < 10, "\(url.lastPathComponent)")
            if let e = result.readError {
                #expect(!e.description.contains("\n") && e.description.contains("at byte \(e.offset)"), "\(url.lastPathComponent): \(e)")
            }
            if result.flows.contains(where: { $0.request != nil }) { withRequests += 1 }
        }
        #expect(withRequests > files.count / 2)
    }
}

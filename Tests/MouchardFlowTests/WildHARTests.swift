import Foundation
import MouchardTestSupport
import Testing
@testable import MouchardFlow

/// HAR files written by browsers and other tools (`wild/har` and the invalid ones in `wild/neg` of the
/// shared folder, when it is beside the repository): valid files read whole and survive a round trip
/// through Mouchard's writer; invalid ones are one clear error.
@Suite(.requires(.wild)) struct WildHARTests {
    static func files(_ folder: String) throws -> [URL] {
        let dir = OutsideCorpus.wild.file(folder)
        return try FileManager.default.contentsOfDirectory(atPath: dir.path).sorted().filter { $0.hasSuffix(".har") }
            .map { dir.appendingPathComponent($0) }
    }

    @Test func wildHARFilesReadAndRoundTrip() throws {
        let files = try Self.files("har")
        #expect(files.count >= 30)
        for url in files {
            let data = try Data(contentsOf: url)
            let flows: [Flow]
            do { flows = try HARReader.readSkippingBadEntries(data).flows } catch {
                Issue.record("\(url.lastPathComponent): \(error)")
                continue
            }
            let again = try HARReader.read(HARWriter(creatorVersion: "test").document(flows))
            #expect(again.count == flows.count, "\(url.lastPathComponent)")
            for (a, b) in zip(flows, again) {
                let what = "\(url.lastPathComponent) entry \(a.id)"
                #expect(a.request?.method == b.request?.method && a.request?.url == b.request?.url, "\(what): request line")
                #expect(a.request?.headers == b.request?.headers, "\(what): request headers")
                #expect(a.request?.body == b.request?.body, "\(what): request body")
                #expect(a.response?.status == b.response?.status, "\(what): status")
                #expect(a.response?.headers == b.response?.headers, "\(what): response headers")
                #expect(a.response?.body == b.response?.body, "\(what): response body")
                #expect(a.extras == b.extras, "\(what): extras")
                // HAR times are written to the millisecond (mitmproxy writes microseconds); flow ids are
                // renumbered when bad entries were skipped. Everything else comes back as it was read.
                #expect(abs(a.timings.started.timeIntervalSince(b.timings.started)) <= 0.0005, "\(what): start time")
                var same = b
                same.id = a.id
                same.timings.started = a.timings.started
                #expect(a == same, "\(what): other fields")
            }
        }
    }

    @Test func invalidWildHARFilesAreOneClearError() throws {
        let files = try Self.files("neg")
        #expect(!files.isEmpty)
        for url in files {
            #expect(throws: HARError.self, "\(url.lastPathComponent)") { try HARReader.read(Data(contentsOf: url)) }
        }
    }
}

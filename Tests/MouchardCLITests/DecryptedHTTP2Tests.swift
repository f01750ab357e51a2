import Foundation
import MouchardFlow
import MouchardSniffer
import MouchardTestSupport
import MouchardWire
import Testing

/// HTTP/2 over TLS in a real capture (scripts/record-h2-capture.sh: nginx with http2, curl --http2
/// with SSLKEYLOGFILE, tcpdump on lo): decrypted with the key log, its streams go through the same
/// HTTP/2 decoder as cleartext h2 and give the requests tshark decrypts (`-o tls.keylog_file:`).
@Suite(.serialized, .enabled(if: DecryptionTools.unavailableReason == nil, "\(DecryptionTools.unavailableReason ?? "")"),
       .requires(.nginx))
struct DecryptedHTTP2Tests {
    @Test func decryptedStreamsEqualTshark() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("mouchard-h2tls-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: dir) }
        let script = DecryptionCommandsTests.root.appendingPathComponent("scripts/record-h2-capture.sh").path
        try #require(DecryptionCommandsTests.shell("/bin/bash", [script, dir.path]) != nil, "recording the capture failed")
        let capture = dir.appendingPathComponent("capture.pcap").path
        let keyLogPath = dir.appendingPathComponent("keys.log").path
        let keys = TLSKeyStore(keyLog: NSSKeyLog(text: try [UInt8](Data(contentsOf: URL(fileURLWithPath: keyLogPath)))))
        let x = try CaptureFileExtractor.extract(path: capture, keys: keys)
        let h2 = x.flows.filter { $0.extras["_streamId"] != nil }
        // curl opens one connection per transfer here (TLS 1.3 four times, TLS 1.2 once).
        #expect(x.statistics.http2Connections == 5 && x.statistics.http2Problems == 0, "\(x.warnings)")
        #expect(h2.allSatisfy { $0.isDecryptedFromCapture && $0.tls?.alpn == ["h2"] && $0.response?.status == 200 })
        #expect(h2.allSatisfy { $0.request?.head.version.description == "HTTP/2.0" })
        #expect(h2.allSatisfy { ($0.request?.url ?? "").hasPrefix("https://localhost:") })
        let ours = h2.compactMap { f in f.request.map { "\($0.method) \($0.pathAndQuery)" } }.sorted()
        let theirs = (DecryptionCommandsTests.shell(TestTool.tshark.path ?? "tshark", [
            "-r", capture, "-o", "tls.keylog_file:\(keyLogPath)", "-Y", "http2.headers.method",
            "-T", "fields", "-e", "http2.headers.method", "-e", "http2.headers.path",
        ]) ?? "").split(separator: "\n").map { $0.replacingOccurrences(of: "\t", with: " ") }.sorted()
        let sent = (try String(contentsOf: dir.appendingPathComponent("requests.txt"), encoding: .utf8)).split(separator: "\n").map(String.init).sorted()
        #expect(ours.count == 5)
        #expect(ours == theirs)
        #expect(ours == sent)
        let header = try #require(h2.first { $0.request?.path == "/v1/header" })
        #expect(header.request?.headers["x-idfa"] == "6D92078A-8246-4BA4-AE5B-76104861E7DC")
        // nginx answers the POST before its body and stops the upload with RST_STREAM(NO_ERROR); the
        // body curl had already sent follows in the capture and belongs to the request.
        let post = try #require(h2.first { $0.request?.path == "/v1/events" })
        #expect(post.request.map { String(decoding: $0.body, as: UTF8.self) } == "{\"device\":{\"ifa\":\"6D92078A-8246-4BA4-AE5B-76104861E7DC\"}}")
        #expect(post.error == nil && post.request?.bodyTruncated == false)
    }
}

import Foundation
import MouchardTestSupport
import Testing
import MouchardFlow
import MouchardSniffer
import MouchardWire

/// TLS decryption of real captures (curl and openssl s_client against openssl s_server on
/// loopback, recorded by tcpdump): TLS 1.3 with AES-128-GCM, AES-256-GCM and ChaCha20-Poly1305,
/// TLS 1.2 ECDHE with the same three, resumed sessions. What we decrypt must equal what tshark
/// decrypts from the same file with the same key log.
@Suite(.serialized, .enabled(if: TLSCaptureFixture.available, "\(TLSCaptureFixture.unavailableReason ?? "")"))
struct TLSDecryptionCaptureTests {
    static func keys(_ path: String) throws -> TLSKeyStore {
        TLSKeyStore(keyLog: NSSKeyLog(text: [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))))
    }

    static func requestLines(_ flows: [Flow]) -> [String] {
        flows.compactMap { f in f.request.map { "\($0.method) \($0.pathAndQuery)" } }
    }

    @Test func decryptedRequestsEqualTsharks() throws {
        let r = try #require(TLSCaptureFixture.shared, "recording the capture failed")
        let x = try CaptureFileExtractor.extract(path: r.capture, keys: try Self.keys(r.keyLog))
        let ours = Self.requestLines(x.flows)
        let tshark = try #require(TLSCaptureFixture.tsharkRequests(r.capture, keyLog: r.keyLog))
        #expect(ours.sorted() == tshark.sorted())
        #expect(ours.sorted() == r.requests.sorted())
        #expect(ours.count == 9)
        #expect(x.statistics.tlsSessionsDecrypted == 9)
        #expect(x.statistics.tlsSessionsNotDecrypted == 0)
        #expect(x.statistics.tlsRecordsFailedAuthentication == 0)
        #expect(x.undecryptedTLS.isEmpty)
        let https = x.flows.filter { $0.request != nil }
        #expect(https.allSatisfy { $0.transport == .https && $0.isDecryptedFromCapture && $0.response?.status == 200 })
        #expect(https.allSatisfy { $0.request?.url.hasPrefix("https://localhost") == true })
        let versions = Set(https.compactMap(\.tls?.version))
        #expect(versions == ["TLSv1.2", "TLSv1.3"])
        // Decrypted connections need no metadata flow of their own.
        #expect(!x.flows.contains { $0.transport == .tlsMetadata })
        let idfa = https.filter { $0.request?.headers["X-IDFA"] == "6D92078A-8246-4BA4-AE5B-76104861E7DC" }
        #expect(idfa.count == 9)
    }

    /// Source port and sequence number of the TCP segment in the Ethernet/IPv4 frame at `record`.
    static func segmentKey(_ pcap: [UInt8], record: Int) -> String {
        let tcp = record + 34
        return "\(pcap[tcp]),\(pcap[tcp + 1]):\(pcap[tcp + 4...tcp + 7].map { String($0) }.joined(separator: "."))"
    }

    @Test func pcapngSecretsBlockDecryptsWithoutAKeyLog() throws {
        let r = try #require(TLSCaptureFixture.shared, "recording the capture failed")
        let pcapng = r.directory.appendingPathComponent("with-secrets.pcapng").path
        let editcap = try #require(TLSCaptureFixture.which("editcap"))
        try #require(TLSCaptureFixture.run(editcap, ["--inject-secrets", "tls,\(r.keyLog)", r.capture, pcapng]) != nil)
        let x = try CaptureFileExtractor.extract(path: pcapng)
        #expect(Self.requestLines(x.flows).sorted() == r.requests.sorted())
        #expect(x.format == "pcapng")
    }

    @Test func connectionsWithoutKeysAreListedWithTheReason() throws {
        let r = try #require(TLSCaptureFixture.shared, "recording the capture failed")
        // Keep the secrets of TLS 1.3 connections only: every TLS 1.2 one loses its master secret.
        let text = try String(contentsOfFile: r.keyLog, encoding: .utf8)
        let kept = text.split(separator: "\n").filter { !$0.hasPrefix("CLIENT_RANDOM") }.joined(separator: "\n")
        let x = try CaptureFileExtractor.extract(path: r.capture, keys: TLSKeyStore(keyLog: NSSKeyLog(text: Array(kept.utf8))))
        let decrypted = Self.requestLines(x.flows)
        #expect(decrypted.allSatisfy { !$0.contains("/t12/") })
        #expect(x.undecryptedTLS.count == 4)
        #expect(x.undecryptedTLS.allSatisfy { $0.reason.hasPrefix("no key for client random ") && $0.serverName == "localhost" })
        // Their handshake still gives a metadata flow, with the reason.
        let metadata = x.flows.filter { $0.transport == .tlsMetadata }
        #expect(metadata.count == 4)
        #expect(metadata.allSatisfy { $0.error?.contains("not decrypted: no key") == true })
    }

    @Test func withoutKeysNothingChanges() throws {
        let r = try #require(TLSCaptureFixture.shared, "recording the capture failed")
        let x = try CaptureFileExtractor.extract(path: r.capture)
        #expect(x.flows.count == 9)
        #expect(x.flows.allSatisfy { $0.transport == .tlsMetadata && $0.error == nil })
        #expect(x.undecryptedTLS.isEmpty)
    }

    /// Damaged captures: bytes flipped inside TLS records (authentication fails, counted), the file
    /// cut short (truncated records counted), seeded mutations anywhere: never a crash, and the
    /// requests of undamaged connections still come out.
    @Test func damagedCapturesAreCountedNotFatal() throws {
        let r = try #require(TLSCaptureFixture.shared, "recording the capture failed")
        let keys = try Self.keys(r.keyLog)
        let original = [UInt8](try Data(contentsOf: URL(fileURLWithPath: r.capture)))
        let dir = r.directory
        // Flip one byte of the last application data record of each packet that carries one, among
        // segments sent once (a clean retransmission of a damaged one would stand in for it: the
        // capture is live, on a machine that may be loaded).
        var sent: [String: Int] = [:]
        var scan = 24
        while scan + 16 <= original.count {
            let caplen = Int(original[scan + 8]) | Int(original[scan + 9]) << 8 | Int(original[scan + 10]) << 16
            if caplen > 14 + 20 + 20 { sent[Self.segmentKey(original, record: scan + 16), default: 0] += 1 }
            scan += 16 + caplen
        }
        var flipped = original
        var offset = 24, damaged = 0
        while offset + 16 <= flipped.count {
            let caplen = Int(flipped[offset + 8]) | Int(flipped[offset + 9]) << 8 | Int(flipped[offset + 10]) << 16
            let start = offset + 16
            // Ethernet 14 + IPv4 20 + TCP (data offset) then the TLS bytes of the segment.
            if caplen > 14 + 20 + 20 + 5 {
                let tcp = start + 34
                let payload = tcp + Int(flipped[tcp + 12] >> 4) * 4
                if payload + 5 < start + caplen, flipped[payload] == 23, flipped[payload + 1] == 3, damaged < 3,
                   sent[Self.segmentKey(original, record: start)] == 1 {
                    flipped[start + caplen - 1] ^= 0x5A
                    damaged += 1
                }
            }
            offset = start + caplen
        }
        #expect(damaged == 3)
        let flippedPath = dir.appendingPathComponent("flipped.pcap").path
        try Data(flipped).write(to: URL(fileURLWithPath: flippedPath))
        let fx = try CaptureFileExtractor.extract(path: flippedPath, keys: keys)
        #expect(fx.statistics.tlsRecordsFailedAuthentication == 3, "\(fx.statistics) \(fx.warnings)")
        #expect(fx.warnings.contains { $0.contains("3 failed authentication") })
        #expect(Self.requestLines(fx.flows).count >= 6)

        let cutPath = dir.appendingPathComponent("cut.pcap").path
        // Cut inside the packet record that spans two thirds of the file (never on a record boundary,
        // which a live capture's packet sizes could otherwise hit): the reader must say it was cut short.
        var record = 24
        while true {
            let caplen = Int(original[record + 8]) | Int(original[record + 9]) << 8 | Int(original[record + 10]) << 16
            if record + 16 + caplen >= original.count * 2 / 3 || record + 16 + caplen >= original.count { break }
            record += 16 + caplen
        }
        let cutAt = record + 16 + (Int(original[record + 8]) | Int(original[record + 9]) << 8) / 2 + 1
        try Data(original.prefix(cutAt)).write(to: URL(fileURLWithPath: cutPath))
        let cx = try CaptureFileExtractor.extract(path: cutPath, keys: keys)
        #expect(cx.statistics.tlsRecordsTruncated + (cx.readError == nil ? 0 : 1) >= 1)

        var mutator = ByteMutator(seed: 0x7153_0001)
        for i in 0..<40 {
            var bytes = original
            for _ in 0..<(1 + i % 8) {
                let at = 24 + mutator.below(bytes.count - 24)
                bytes[at] = UInt8(truncatingIfNeeded: mutator.below(256))
            }
            let path = dir.appendingPathComponent("mutated-\(i).pcap").path
            try Data(bytes).write(to: URL(fileURLWithPath: path))
            let mx = try CaptureFileExtractor.extract(path: path, keys: keys)
            #expect(mx.statistics.tlsSessionsDecrypted <= 9, "seed 0x71530001 case \(i): a damaged capture cannot decrypt more than the original")
        }
    }
}

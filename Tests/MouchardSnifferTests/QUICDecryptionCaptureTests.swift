import Foundation
import MouchardFlow
import MouchardTestSupport
import MouchardWire
import Testing

@testable import MouchardSniffer

/// Where the aioquic package is: `MOUCHARD_PYTHON`, the project's venv, or python3 on PATH.
enum QUICRecording {
    static let python: String? = {
        var candidates: [String] = []
        if let p = ProcessInfo.processInfo.environment["MOUCHARD_PYTHON"] { candidates.append(p) }
        candidates.append(TestFiles.repositoryRoot.appendingPathComponent(".venv/bin/python3").path)
        if let p = TestTool.python3.path { candidates.append(p) }
        return candidates.first { FileManager.default.isExecutableFile(atPath: $0) && TLSCaptureFixture.run($0, ["-c", "import aioquic"]) != nil }
    }()

    static let unavailableReason: String? = {
        if TLSCaptureFixture.which("tcpdump") == nil || TLSCaptureFixture.which("openssl") == nil { return "needs tcpdump and openssl" }
        if getuid() != 0 { return TestPrivileges.rootReason }
        if python == nil {
            return "needs the aioquic Python package (scripts/python-requirements.txt; or set MOUCHARD_PYTHON to an interpreter that has it)"
        }
        return nil
    }()

    struct Recording: Sendable {
        var directory: URL
        var capture: String { directory.appendingPathComponent("capture.pcap").path }
        var keyLog: String { directory.appendingPathComponent("keys.log").path }
        var requests: [String]
    }

    static let shared: Recording? = {
        guard unavailableReason == nil, let python else { return nil }
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("mouchard-quic-\(UUID().uuidString)")
        let script = TestFiles.repositoryRoot.appendingPathComponent("scripts/record-quic-capture.sh").path
        guard TLSCaptureFixture.run("/bin/bash", [script, dir.path, python]) != nil,
              let text = try? String(contentsOf: dir.appendingPathComponent("requests.txt"), encoding: .utf8) else { return nil }
        return Recording(directory: dir, requests: text.split(separator: "\n").map(String.init))
    }()
}

/// QUIC and HTTP/3 decryption of a real capture: aioquic's client and server on loopback
/// (scripts/record-quic-capture.sh: one connection per TLS 1.3 suite, a key update halfway
/// through each, QPACK with its dynamic table), recorded by tcpdump, with the client's key log. The decrypted requests are the ones
/// the client sent, with their planted values; without keys nothing is invented; a connection
/// whose secrets are missing is listed with the reason.
@Suite(.serialized, .enabled(if: QUICRecording.unavailableReason == nil, "\(QUICRecording.unavailableReason ?? "")"))
struct QUICDecryptionCaptureTests {
    static let idfa = "6D92078A-8246-4BA4-AE5B-76104861E7DC"

    static func keys(_ text: String) -> TLSKeyStore { TLSKeyStore(keyLog: NSSKeyLog(text: Array(text.utf8))) }

    @Test func http3RequestsAreDecrypted() throws {
        let r = try #require(QUICRecording.shared, "recording the QUIC capture failed")
        let x = try CaptureFileExtractor.extract(path: r.capture, keys: Self.keys(try String(contentsOfFile: r.keyLog, encoding: .utf8)))
        let flows = x.flows.filter { $0.request != nil }
        #expect(flows.map { "\($0.request!.method) \($0.request!.pathAndQuery)" }.sorted() == r.requests.sorted())
        #expect(x.statistics.quicConnectionsDecrypted == 3)
        #expect(x.statistics.quicPacketsFailedAuthentication == 0 && x.statistics.quicPacketsMalformed == 0 && x.statistics.http3Problems == 0)
        #expect(x.undecryptedTLS.isEmpty)
        for f in flows {
            #expect(f.transport == .https && f.isDecryptedFromCapture && f.tls?.alpn == ["h3"] && f.tls?.serverName == "localhost")
            #expect(f.response?.status == 200 && f.response?.body == Array(#"{"ok":true}"#.utf8) && f.error == nil)
            #expect(f.request?.head.version == HTTPVersion(major: 3, minor: 0))
            #expect(f.request?.url.hasPrefix("https://localhost:") == true)
        }
        // The planted values: in a query, a JSON body, a header (twice: the second time from the QPACK dynamic table).
        #expect(flows.filter { $0.request?.query?.contains(Self.idfa) == true }.count == 3)
        #expect(flows.filter { $0.request.map { String(decoding: $0.body, as: UTF8.self).contains(Self.idfa) } == true }.count == 3)
        #expect(flows.filter { $0.request?.headers["x-idfa"] == Self.idfa.lowercased() }.count == 6)
    }

    /// The decrypted HTTP/3 exchanges exported as a pcapng (`export --pcapng` of an imported
    /// session: synthesised TLS connections, their secrets in the file) read back the same.
    @Test func exportedExchangesReadBackTheSame() throws {
        let r = try #require(QUICRecording.shared, "recording the QUIC capture failed")
        let x = try CaptureFileExtractor.extract(path: r.capture, keys: Self.keys(try String(contentsOfFile: r.keyLog, encoding: .utf8)))
        let out = r.directory.appendingPathComponent("exported.pcapng").path
        let summary = try PcapngExport.synthesise(to: out) { each in
            for f in x.flows where f.request != nil { try each(f) }
        }
        #expect(summary.flows == r.requests.count)
        let back = try CaptureFileExtractor.extract(path: out)
        func lines(_ flows: [Flow]) -> [String] { flows.compactMap { f in f.request.map { "\($0.method) \($0.url)" } }.sorted() }
        #expect(lines(back.flows) == lines(x.flows))
        #expect(back.flows.filter { $0.request?.headers["x-idfa"] == Self.idfa.lowercased() }.count == 6)
    }

    @Test func withoutKeysOrWithSomeMissing() throws {
        let r = try #require(QUICRecording.shared, "recording the QUIC capture failed")
        let none = try CaptureFileExtractor.extract(path: r.capture)
        #expect(none.flows.allSatisfy { $0.request == nil })
        #expect(none.statistics.quicInitials >= 3)
        // The secrets of one connection removed: its requests are gone, and it is listed with why.
        let lines = try String(contentsOfFile: r.keyLog, encoding: .utf8).split(separator: "\n")
        let firstRandom = try #require(lines.first?.split(separator: " ").dropFirst().first)
        let kept = lines.filter { !$0.contains(firstRandom) }.joined(separator: "\n")
        let x = try CaptureFileExtractor.extract(path: r.capture, keys: Self.keys(kept))
        #expect(x.flows.filter { $0.request != nil }.count == r.requests.count - 4)
        #expect(x.statistics.quicConnectionsDecrypted == 2)
        #expect(x.undecryptedTLS.count == 1 && x.undecryptedTLS.first?.reason.hasPrefix("QUIC: no key for client random") == true)
    }

    /// Damaged QUIC captures (bytes flipped in UDP payloads, seeded): never a crash, decrypted
    /// requests are ones that were sent, damage is counted.
    @Test func damagedCapturesNeverCrash() throws {
        let r = try #require(QUICRecording.shared, "recording the QUIC capture failed")
        let keys = Self.keys(try String(contentsOfFile: r.keyLog, encoding: .utf8))
        let original = [UInt8](try Data(contentsOf: URL(fileURLWithPath: r.capture)))
        let records = TLSDecryptionMutationTests.pcapRecords(original)
        var mutator = ByteMutator(seed: 0x5155_4901)
        for i in 0..<max(1, TLSDecryptionMutationTests.iterations / 10) {
            var bytes = original
            for _ in 0..<(1 + mutator.below(4)) {
                let rec = records[mutator.below(records.count)]
                // Past the link (4 or 14 bytes), IP and UDP headers.
                guard rec.count > 60 else { continue }
                bytes[rec.lowerBound + 44 + mutator.below(rec.count - 44)] ^= UInt8(1 + mutator.below(255))
            }
            let x = TLSDecryptionMutationTests.extract(bytes, keys: keys)
            #expect(x.requests.allSatisfy { r.requests.contains($0) }, "seed 0x51554901 case \(i)")
        }
    }
}

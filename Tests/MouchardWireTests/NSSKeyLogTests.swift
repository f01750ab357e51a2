import Foundation
import MouchardTestSupport
import Testing
import MouchardWire

/// The NSS key log parser: every label, comments and blank lines, CRLF, and hostile lines counted as
/// warnings with their line numbers (never a crash).
struct NSSKeyLogTests {
    static let random = String(repeating: "ab", count: 32)
    static func hex(_ n: Int, _ byte: String = "11") -> String { String(repeating: byte, count: n) }

    @Test func readsEveryLabel() {
        var text = "# SSL/TLS secrets log file\n\n"
        text += "CLIENT_RANDOM \(Self.random) \(Self.hex(48))\r\n"
        for label in ["CLIENT_EARLY_TRAFFIC_SECRET", "CLIENT_HANDSHAKE_TRAFFIC_SECRET", "SERVER_HANDSHAKE_TRAFFIC_SECRET",
                      "CLIENT_TRAFFIC_SECRET_0", "SERVER_TRAFFIC_SECRET_0", "EXPORTER_SECRET", "EARLY_EXPORTER_SECRET"] {
            text += "\(label) \(Self.random.uppercased()) \(Self.hex(32, "2f"))\n"
        }
        let log = NSSKeyLog(text: Array(text.utf8))
        #expect(log.warnings.isEmpty)
        #expect(log.secretCount == 8)
        let secrets = log.secrets(clientRandom: [UInt8](repeating: 0xAB, count: 32))
        #expect(secrets?[.clientRandom] == [UInt8](repeating: 0x11, count: 48))
        #expect(secrets?[.serverTrafficSecret0] == [UInt8](repeating: 0x2F, count: 32))
        #expect(secrets?[.earlyExporterSecret]?.count == 32)
    }

    @Test func badLinesAreWarningsWithLineNumbers() {
        let lines = [
            "CLIENT_RANDOM \(Self.random) \(Self.hex(47))",           // 1: master secret of 47 bytes
            "CLIENT_TRAFFIC_SECRET_0 \(Self.random) \(Self.hex(40))",  // 2: not a hash length
            "CLIENT_RANDOM \(Self.hex(31)) \(Self.hex(48))",          // 3: short client random
            "CLIENT_RANDOM \(Self.random) zz\(Self.hex(47))",         // 4: not hex
            "CLIENT_RANDOM \(Self.random)",                           // 5: two fields
            "RSA 0011 2233",                                          // 6: unknown label
            "SERVER_TRAFFIC_SECRET_0 \(Self.random) \(Self.hex(48))", // 7: good (SHA-384)
            "CLIENT_RANDOM \(Self.random) \(Self.hex(48))1",          // 8: odd length
            String(repeating: "A", count: 5000),                      // 9: huge
        ]
        let log = NSSKeyLog(text: Array(lines.joined(separator: "\n").utf8))
        #expect(log.secretCount == 1)
        #expect(log.warnings.map { $0.line } == [1, 2, 3, 4, 5, 6, 8, 9])
        #expect(log.warnings[0].description.contains("48"))
        #expect(log.warnings[1].description.contains("40 bytes"))
    }

    @Test func streamedBytesMayEndMidLine() {
        let line = "CLIENT_RANDOM \(Self.random) \(Self.hex(48))\n"
        var log = NSSKeyLog()
        let bytes = Array((line + line.replacingOccurrences(of: "ab", with: "cd")).utf8)
        for chunk in stride(from: 0, to: bytes.count, by: 7) { log.add(bytes[chunk..<min(bytes.count, chunk + 7)]) }
        #expect(log.secretCount == 2)
        #expect(log.warnings.isEmpty)
    }

}

/// Mutated key logs (seeded, replayable): never a crash, every accepted secret has a valid length.
/// `MOUCHARD_FUZZ_ITERATIONS=N` runs N mutations per seed instead of the CI default.
struct NSSKeyLogMutationTests {
    static let iterations = ByteMutator.iterations(default: 3000, environment: ProcessInfo.processInfo.environment)

    @Test(arguments: [0x6B65_7901, 0x6B65_7902] as [UInt64])
    func mutatedKeyLogsNeverCrash(seed: UInt64) {
        var text = ""
        for label in NSSKeyLog.Label.allCases {
            text += "\(label.rawValue) \(NSSKeyLogTests.random) \(NSSKeyLogTests.hex(label == .clientRandom ? 48 : 32))\n"
        }
        let sample = Array(text.utf8)
        var mutator = ByteMutator(seed: seed)
        for _ in 0..<Self.iterations {
            let log = NSSKeyLog(text: mutator.mutate(sample, maxMutations: 6))
            for (random, secrets) in log.byClientRandom {
                #expect(random.count == 32, "seed \(seed)")
                for (label, value) in secrets.values {
                    #expect(label == .clientRandom ? value.count == 48 : [32, 48].contains(value.count), "seed \(seed)")
                }
            }
            #expect(log.warningCount >= log.warnings.count)
        }
    }
}

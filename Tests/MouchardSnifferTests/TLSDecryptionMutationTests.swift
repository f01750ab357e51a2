import Foundation
import MouchardFlow
import MouchardTestSupport
import MouchardWire
import Testing

@testable import MouchardSniffer

/// Hostile input to TLS decryption, with made-up connections of every suite
/// (`SyntheticTLSConnection`): records that fail authentication, streams cut short, record headers
/// that are garbage, key log lines malformed or with secrets of the wrong length, and seeded
/// mutations of all of it. Never a crash; what cannot be decrypted is counted (and said, with
/// the reason); what comes out is authentic (one of the records the peer sent).
/// `MOUCHARD_FUZZ_ITERATIONS=N` runs N mutations per test instead of the small CI default.
@Suite struct TLSDecryptionMutationTests {
    static let iterations = ByteMutator.iterations(default: 300, environment: ProcessInfo.processInfo.environment)

    /// What the decryptor gave for one connection.
    struct Outcome {
        var plaintext: [[[UInt8]]] = [[], []]
        var lost: [String] = []
        var established = false
        var counters = TLSConnectionDecryptor.Counters()
        var failure: String?
    }

    /// Feeds the client's then the server's bytes in `chunk`-byte pieces, as the flights come in:
    /// ClientHello, the server's flight, then the rest of each side.
    static func decrypt(client: [UInt8], server: [UInt8], keyLog: String, chunk: Int = 997) -> Outcome {
        let keys = TLSKeyStore(keyLog: NSSKeyLog(text: Array(keyLog.utf8)))
        let decryptor = TLSConnectionDecryptor(clientDirection: 0, keys: keys)
        var outcome = Outcome()
        func take(_ events: [TLSConnectionDecryptor.Event]) {
            for e in events {
                switch e {
                case .established: outcome.established = true
                case .plaintext(let d, let bytes, _): outcome.plaintext[d].append(bytes)
                case .lost(_, let reason): outcome.lost.append(reason)
                case .skipped: break  // no reader asked for it here
                }
            }
        }
        let step = max(1, chunk)
        // The ClientHello record first (its length is in its header), then alternating pieces.
        let helloEnd = min(client.count, 5 + (client.count >= 5 ? Int(client[3]) << 8 | Int(client[4]) : 0))
        take(decryptor.feed(direction: 0, bytes: client[0..<helloEnd], time: 1))
        var offsets = [helloEnd, 0]
        let streams = [client, server]
        while offsets[0] < client.count || offsets[1] < server.count {
            for d in [1, 0] where offsets[d] < streams[d].count {
                let end = min(streams[d].count, offsets[d] + step)
                take(decryptor.feed(direction: d, bytes: streams[d][offsets[d]..<end], time: 2))
                offsets[d] = end
            }
        }
        take(decryptor.retry(time: 3))
        decryptor.finish()
        outcome.counters = decryptor.counters
        outcome.failure = decryptor.failure
        return outcome
    }

    @Test(arguments: SyntheticTLSConnection.Kind.allCases)
    func everySuiteDecrypts(kind: SyntheticTLSConnection.Kind) {
        for (seed, chunk) in [(UInt64(1), 997), (2, 1), (3, 100_000)] {
            let c = SyntheticTLSConnection(kind, seed: seed)
            let o = Self.decrypt(client: c.client, server: c.server, keyLog: c.keyLog, chunk: chunk)
            #expect(o.established && o.failure == nil && o.lost.isEmpty, "\(kind) chunk \(chunk): \(o.failure ?? "") \(o.lost)")
            #expect(o.plaintext[0] == c.clientRecords, "\(kind) chunk \(chunk)")
            #expect(o.plaintext[1] == c.serverRecords, "\(kind) chunk \(chunk)")
            #expect(o.counters.decryptedRecords == c.protectedRecords)
            #expect(o.counters.authenticationFailures == 0 && o.counters.truncatedRecords == 0 && o.counters.malformedRecords == 0)
        }
    }

    /// One byte flipped inside a protected record: that record fails authentication and is
    /// counted; the records after it still open (the sequence number moved on).
    @Test(arguments: SyntheticTLSConnection.Kind.allCases)
    func aRecordFailingAuthenticationIsCounted(kind: SyntheticTLSConnection.Kind) {
        let c = SyntheticTLSConnection(kind, seed: 11)
        var server = c.server
        let last = Self.recordStarts(server).last!
        server[last + 7] ^= 0x20
        let o = Self.decrypt(client: c.client, server: server, keyLog: c.keyLog)
        #expect(o.counters.authenticationFailures == 1)
        #expect(o.plaintext[1] == Array(c.serverRecords.dropLast()))
        #expect(o.plaintext[0] == c.clientRecords)
    }

    /// The stream ends inside a record: counted as truncated, everything before it decrypted.
    @Test func aStreamCutInsideARecordCountsATruncatedRecord() {
        let c = SyntheticTLSConnection(.tls13AES128, seed: 12)
        let last = Self.recordStarts(c.server).last!
        let o = Self.decrypt(client: c.client, server: Array(c.server[..<(last + 9)]), keyLog: c.keyLog)
        #expect(o.counters.truncatedRecords == 1)
        #expect(o.plaintext[1] == Array(c.serverRecords.dropLast()))
    }

    /// A record header that is not one (the stream lost its framing): that direction is lost, said
    /// with the reason; the other direction is still decrypted.
    @Test func aGarbageRecordHeaderLosesThatDirectionOnly() {
        let c = SyntheticTLSConnection(.tls12ChaCha, seed: 13)
        var server = c.server
        let starts = Self.recordStarts(server)
        server[starts[starts.count - 2]] = 0x99
        let o = Self.decrypt(client: c.client, server: server, keyLog: c.keyLog)
        #expect(o.counters.malformedRecords == 1)
        #expect(o.lost.count == 1 && o.lost[0].contains("malformed TLS record: content type 153"))
        #expect(o.plaintext[0] == c.clientRecords)
        #expect(o.plaintext[1] == Array(c.serverRecords.dropLast(2)))
    }

    /// Key log lines with secrets of the wrong length never reach the decryptor (the parser skips
    /// them with a warning); a TLS 1.3 secret of a valid length for another hash is refused with
    /// the reason.
    @Test func secretsOfTheWrongLengthAreRefusedWithTheReason() {
        let c = SyntheticTLSConnection(.tls13AES128, seed: 14)
        let short = c.keyLog.split(separator: "\n").map { line -> String in
            let fields = line.split(separator: " ")
            return "\(fields[0]) \(fields[1]) \(fields[2].dropLast(2))"
        }.joined(separator: "\n")
        let log = NSSKeyLog(text: Array(short.utf8))
        #expect(log.secretCount == 0 && log.warnings.count == 4)
        #expect(log.warnings.allSatisfy { $0.reason.contains("31 bytes") })
        let o = Self.decrypt(client: c.client, server: c.server, keyLog: short)
        #expect(!o.established && o.plaintext == [[], []])

        let long = c.keyLog.split(separator: "\n").map { "\($0)\(String(repeating: "ab", count: 16))" }.joined(separator: "\n")
        let refused = Self.decrypt(client: c.client, server: c.server, keyLog: long)
        #expect(refused.failure == "key log secret of 48 bytes for TLS_AES_128_GCM_SHA256 (expected 32)")
        #expect(refused.plaintext == [[], []])
    }

    /// Seeded mutations of either side's bytes, fed in random pieces: never a crash, and whatever
    /// comes out is one of the records the peer sent (AEAD: damage cannot produce other text).
    @Test(arguments: [0x544C_5301, 0x544C_5302] as [UInt64])
    func mutatedStreamsNeverCrashAndGiveOnlyAuthenticText(seed: UInt64) {
        var mutator = ByteMutator(seed: seed)
        let kinds = SyntheticTLSConnection.Kind.allCases
        for i in 0..<Self.iterations {
            let c = SyntheticTLSConnection(kinds[i % kinds.count], seed: seed &+ UInt64(i))
            var client = c.client, server = c.server
            switch mutator.below(3) {
            case 0: client = mutator.mutate(client, maxMutations: 4)
            case 1: server = mutator.mutate(server, maxMutations: 4)
            default:
                client = mutator.mutate(client, maxMutations: 2)
                server = mutator.mutate(server, maxMutations: 2)
            }
            let o = Self.decrypt(client: client, server: server, keyLog: c.keyLog, chunk: 1 + mutator.below(3000))
            let context = "seed \(seed) case \(i) (\(c.kind))"
            #expect(o.plaintext[0].allSatisfy { c.clientRecords.contains($0) }, "\(context)")
            #expect(o.plaintext[1].allSatisfy { c.serverRecords.contains($0) }, "\(context)")
            #expect(o.counters.decryptedRecords <= c.protectedRecords + 2, "\(context)")
        }
    }

    /// Seeded mutations of the key log: never a crash; text comes out only under the right keys.
    @Test(arguments: [0x544C_4B01] as [UInt64])
    func mutatedKeyLogsNeverCrash(seed: UInt64) {
        var mutator = ByteMutator(seed: seed)
        let kinds = SyntheticTLSConnection.Kind.allCases
        for i in 0..<Self.iterations {
            let c = SyntheticTLSConnection(kinds[i % kinds.count], seed: seed &+ UInt64(i))
            let log = String(decoding: mutator.mutate(Array(c.keyLog.utf8), maxMutations: 6), as: UTF8.self)
            let o = Self.decrypt(client: c.client, server: c.server, keyLog: log, chunk: 1 + mutator.below(3000))
            #expect(o.plaintext[0].allSatisfy { c.clientRecords.contains($0) }, "seed \(seed) case \(i)")
            #expect(o.plaintext[1].allSatisfy { c.serverRecords.contains($0) }, "seed \(seed) case \(i)")
        }
    }

    /// The whole path (pcap, TCP, TLS, HTTP) with mutated packets: never a crash, every request that
    /// comes out decrypted is one that was sent, and the damage is counted in the warnings.
    @Test(arguments: [0x544C_5001] as [UInt64])
    func mutatedCapturesNeverCrash(seed: UInt64) throws {
        var mutator = ByteMutator(seed: seed)
        let kinds = SyntheticTLSConnection.Kind.allCases
        var keyLog = ""
        var builder = PcapBuilder()
        var sent: Set<String> = []
        for (i, kind) in kinds.enumerated() {
            let c = SyntheticTLSConnection(kind, seed: seed &+ UInt64(i))
            keyLog += c.keyLog
            sent.formUnion(c.requests)
            var conversation = TCPConversation()
            conversation.clientPort = UInt16(50_000 + i)
            conversation.serverPort = 443
            conversation.handshake(&builder)
            conversation.send(&builder, fromClient: true, c.client, size: 1400)
            conversation.send(&builder, fromClient: false, c.server, size: 1400)
            conversation.close(&builder)
        }
        let keys = TLSKeyStore(keyLog: NSSKeyLog(text: Array(keyLog.utf8)))
        let original = Self.extract(builder.bytes, keys: keys)
        #expect(Set(original.requests) == sent && original.requests.count == sent.count)
        #expect(original.extraction.statistics.tlsSessionsDecrypted == kinds.count)

        let records = Self.pcapRecords(builder.bytes)
        for i in 0..<max(1, Self.iterations / 10) {
            var bytes = builder.bytes
            for _ in 0..<(1 + mutator.below(6)) {
                let r = records[mutator.below(records.count)]
                // Past Ethernet, IPv4 and TCP headers: the TLS bytes.
                guard r.count > 54 else { continue }
                bytes[r.lowerBound + 54 + mutator.below(r.count - 54)] ^= UInt8(1 + mutator.below(255))
            }
            let damaged = Self.extract(bytes, keys: keys)
            #expect(damaged.requests.allSatisfy { sent.contains($0) }, "seed \(seed) case \(i)")
            let st = damaged.extraction.statistics
            if st.tlsRecordsFailedAuthentication + st.tlsRecordsMalformed > 0 {
                #expect(damaged.extraction.warnings.contains { $0.hasPrefix("TLS records: ") }, "seed \(seed) case \(i)")
            }
        }
    }

    /// Records that carry only body bytes past the body cap are passed over unopened (TLS 1.3: their
    /// length read from the inner content type at their end), and the HTTP framing stays exact:
    /// the same exchanges as with every record decrypted, bodies cut at the cap.
    @Test(arguments: SyntheticTLSConnection.Kind.allCases)
    func recordsPastTheBodyCapAreNotDecrypted(kind: SyntheticTLSConnection.Kind) throws {
        let c = SyntheticTLSConnection(kind, seed: 21, requestCount: 6)
        var builder = PcapBuilder()
        var conversation = TCPConversation()
        conversation.serverPort = 443
        conversation.handshake(&builder)
        conversation.send(&builder, fromClient: true, c.client, size: 1400)
        conversation.send(&builder, fromClient: false, c.server, size: 1400)
        conversation.close(&builder)
        let keys = TLSKeyStore(keyLog: NSSKeyLog(text: Array(c.keyLog.utf8)))
        let whole = Self.extract(builder.bytes, keys: keys)
        var limits = ReassemblyLimits()
        limits.responseBodyBytes = 64
        let capped = Self.extract(builder.bytes, keys: keys, limits: limits)
        #expect(whole.requests == c.requests && capped.requests == c.requests, "\(whole.requests) \(whole.extraction.warnings) \(whole.extraction.undecryptedTLS) \(whole.extraction.flows.map { "\($0.transport) \($0.error ?? "")" })")
        #expect(whole.extraction.statistics.tlsRecordsSkipped == 0)
        let st = capped.extraction.statistics
        #expect(st.tlsRecordsSkipped > 0 && st.tlsRecordsDecrypted + st.tlsRecordsSkipped == c.protectedRecords)
        #expect(st.tlsRecordsFailedAuthentication == 0)
        let full = whole.extraction.flows.compactMap(\.response)
        let cut = capped.extraction.flows.compactMap(\.response)
        #expect(cut.count == c.requests.count && full.count == cut.count)
        for (f, k) in zip(full, cut) {
            #expect(k.status == 200 && k.body == Array(f.body.prefix(64)))
        }
        #expect(capped.extraction.flows.allSatisfy { $0.error == nil })
        // A body is marked cut exactly when it was longer than the cap.
        #expect(zip(full, cut).allSatisfy { f, k in k.bodyTruncated == (f.body.count > 64) && !f.bodyTruncated })
    }

    /// Records passed over one after another reach the reader as one `skipped` event, told before
    /// the direction's next event or at the end, carrying all of their bytes.
    @Test(arguments: SyntheticTLSConnection.Kind.allCases)
    func recordsPassedOverInARowAreToldOnce(kind: SyntheticTLSConnection.Kind) {
        let c = SyntheticTLSConnection(kind, seed: 31, requestCount: 5)
        let keys = TLSKeyStore(keyLog: NSSKeyLog(text: Array(c.keyLog.utf8)))
        let decryptor = TLSConnectionDecryptor(clientDirection: 0, keys: keys)
        decryptor.discardable = { d in d == 1 ? Int.max : 0 }  // the reader drops all the server sends
        var skipped: [Int] = []
        var clientPlaintext: [[UInt8]] = []
        func take(_ events: [TLSConnectionDecryptor.Event]) {
            for e in events {
                switch e {
                case .skipped(let d, let count, _):
                    #expect(d == 1)
                    skipped.append(count)
                case .plaintext(let d, let bytes, _):
                    #expect(d == 0)
                    clientPlaintext.append(bytes)
                default: break
                }
            }
        }
        take(decryptor.feed(direction: 0, bytes: c.client[...], time: 1))
        take(decryptor.feed(direction: 1, bytes: c.server[...], time: 2))
        #expect(skipped.isEmpty)  // not told until something else happens in that direction
        take(decryptor.finish())
        #expect(skipped == [c.serverRecords.reduce(0) { $0 + $1.count }])
        #expect(decryptor.counters.skippedRecords == c.serverRecords.filter { !$0.isEmpty }.count)
        #expect(clientPlaintext == c.clientRecords)
    }

    static func extract(_ pcap: [UInt8], keys: TLSKeyStore,
                        limits: ReassemblyLimits = ReassemblyLimits()) -> (extraction: CaptureExtraction, requests: [String]) {
        let extractor = PcapFlowExtractor(limits: limits, keys: keys)
        var parser = CaptureFileParser()
        var offset = 0
        while let step = try? parser.next(pcap[offset...], endOfFile: true) {
            switch step {
            case .packet(let p, let n):
                extractor.process(p)
                offset += n
            case .skipped(let n), .decryptionSecrets(_, _, let n):
                offset += n
            case .needMore, .end:
                let x = extractor.finish()
                return (x, x.flows.compactMap { f in f.request.map { "\($0.method) \($0.pathAndQuery)" } })
            }
        }
        let x = extractor.finish()
        return (x, x.flows.compactMap { f in f.request.map { "\($0.method) \($0.pathAndQuery)" } })
    }

    /// Where each packet record's frame lies in a pcap file.
    static func pcapRecords(_ pcap: [UInt8]) -> [Range<Int>] {
        var out: [Range<Int>] = []
        var o = 24
        while o + 16 <= pcap.count {
            let length = Int(pcap[o + 8]) | Int(pcap[o + 9]) << 8 | Int(pcap[o + 10]) << 16
            out.append((o + 16)..<(o + 16 + length))
            o += 16 + length
        }
        return out
    }

    /// Offsets of the records in one direction's bytes.
    static func recordStarts(_ stream: [UInt8]) -> [Int] {
        var out: [Int] = []
        var o = 0
        while o + 5 <= stream.count {
            out.append(o)
            o += 5 + (Int(stream[o + 3]) << 8 | Int(stream[o + 4]))
        }
        return out
    }
}

import Foundation
import MouchardTestSupport
import MouchardWire
import Testing

/// Hostile-input proof for the HTTP/1 parsers, driven by `ByteMutator` (seeded, reproducible):
/// whatever the bytes, the parsers never trap, every error is an `HTTPParseError` whose offset lies
/// within what was fed, and what was parsed before a fault is kept.
///
/// `MOUCHARD_FUZZ_ITERATIONS=N` runs N mutations per test instead of the small CI default.
@Suite struct HTTPMutationTests {
    static let iterations = ByteMutator.iterations(default: 400, environment: ProcessInfo.processInfo.environment)

    static let requestSamples: [[UInt8]] = [
        "GET /track?idfa=AEBE52E7-03EE-455A-B3C4-E57283966239 HTTP/1.1\r\nHost: t.example\r\nUser-Agent: app/1\r\n\r\n",
        "POST /v1/events HTTP/1.1\r\nHost: api.example\r\nContent-Type: application/json\r\nContent-Length: 17\r\n\r\n{\"email\":\"a@b.c\"}",
        "POST /up HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n4;x=y\r\nabcd\r\n3\r\nefg\r\n0\r\nX-Sum: 1\r\n\r\n",
        // Pipelined: three requests back to back.
        "GET /1 HTTP/1.1\r\nHost: h\r\n\r\nPOST /2 HTTP/1.1\r\nHost: h\r\nContent-Length: 3\r\n\r\nabcGET /3 HTTP/1.1\r\nHost: h\r\n\r\n",
        "CONNECT api.example:443 HTTP/1.1\r\nHost: api.example:443\r\n\r\n\u{16}\u{03}\u{01}\u{00}\u{05}hello",
    ].map { Array($0.utf8) }

    static let responseSamples: [[UInt8]] = [
        "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 5\r\n\r\nhello",
        "HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n6\r\n world\r\n0\r\n\r\n",
        "HTTP/1.1 204 No Content\r\n\r\nHTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nokHTTP/1.1 304 Not Modified\r\n\r\n",
        "HTTP/1.0 200 OK\r\nServer: x\r\n\r\nbody until the connection closes",
        "HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip, chunked\r\n\r\n1\r\n\u{1F}\r\n0\r\nT: 1\r\nU: 2\r\n\r\n",
    ].map { Array($0.utf8) }

    /// Hostile framing: huge numbers, overflowing chunk sizes, repeated and conflicting headers.
    static let hostileRequests: [[UInt8]] = [
        "POST / HTTP/1.1\r\nContent-Length: 99999999999999999999999999\r\n\r\nx",
        "POST / HTTP/1.1\r\nContent-Length: 9223372036854775807\r\n\r\nxyz",
        "POST / HTTP/1.1\r\nContent-Length: 9223372036854775808\r\n\r\n",
        "POST / HTTP/1.1\r\nContent-Length: 5, 5\r\nContent-Length: 5\r\n\r\nhello",
        "POST / HTTP/1.1\r\nContent-Length: 5\r\nContent-Length: 6\r\n\r\nhello!",
        "POST / HTTP/1.1\r\nContent-Length: -1\r\n\r\n",
        "POST / HTTP/1.1\r\nContent-Length: \r\n\r\n",
        "POST / HTTP/1.1\r\nContent-Length: ,,\r\n\r\n",
        "POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\nffffffffffffffffff\r\n",
        "POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n7fffffffffffffff\r\nabc",
        "POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n8000000000000000\r\nabc",
        "POST / HTTP/1.1\r\nTransfer-Encoding: chunked, chunked\r\n\r\n0\r\n\r\n",
        "POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\nContent-Length: 3\r\n\r\n0\r\n\r\n",
        "POST / HTTP/1.1\r\nTransfer-Encoding: \r\n\r\n",
        "GET / HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n",
        "GET / HTTP/9.9\r\n\r\n",
        "GET  HTTP/1.1\r\n\r\n",
        "\r\n\r\n\r\n",
    ].map { Array($0.utf8) }

    static let hostileResponses: [[UInt8]] = [
        "HTTP/1.1 200 OK\r\nContent-Length: 99999999999999999999999999\r\n\r\n",
        "HTTP/1.1 200 OK\r\nContent-Length: 9223372036854775807\r\n\r\nabc",
        "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n10000000000000000\r\n",
        "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n7FFFFFFFFFFFFFFF\r\nab",
        "HTTP/1.1 999 \r\n\r\n",
        "HTTP/1.1 000 Zero\r\n\r\n",
        "HTTP/1.1 20\r\n\r\n",
        "HTTP/1.1\r\n\r\n",
        "HTTP/1.1 101 Switching Protocols\r\n\r\n\u{81}\u{05}hello",
    ].map { Array($0.utf8) }

    // MARK: - Checks

    /// The properties every outcome must have, whatever the input: an error (if any) at an offset
    /// within the input, and the same events and error however the bytes were split.
    @discardableResult
    func checkOutcome<P: HTTPMessageParsing>(_ parser: P, _ input: [UInt8], _ mutator: inout ByteMutator,
                                             _ label: String, sourceLocation: SourceLocation = #_sourceLocation) -> Bool {
        let whole = run(parser, [input[...]])
        if let error = whole.error {
            #expect((0...input.count).contains(error.offset),
                    "\(label): \(error) outside the \(input.count) input bytes (seed \(mutator.seed))",
                    sourceLocation: sourceLocation)
            #expect(!error.description.isEmpty)
            // The offset says where parsing stopped: the events before the error are exactly those
            // of the bytes before the offset, nothing more is lost and nothing later leaked out.
            if (0...input.count).contains(error.offset) {
                let before = run(parser, [input[..<error.offset]], finish: false)
                #expect(before.error == nil && before.events == whole.events,
                        "\(label): \(error) (seed \(mutator.seed), input size \(input.count)): events before the offset \(before) vs \(whole)",
                        sourceLocation: sourceLocation)
            }
        }
        // One random split into up to 4 pieces must give the same events and error.
        var cuts = (0..<(1 + mutator.below(3))).map { _ in mutator.below(input.count + 1) }
        cuts = [0] + cuts.sorted() + [input.count]
        let pieces = zip(cuts, cuts.dropFirst()).map { input[$0..<$1] }
        let split = run(parser, pieces)
        #expect(split == whole, "\(label): split at \(cuts) differs (seed \(mutator.seed), input size \(input.count))",
                sourceLocation: sourceLocation)
        return whole.error != nil
    }

    /// The reader keeps every message completed before a fault, and what it had of the broken one.
    func checkReader<P: HTTPMessageParsing>(_ parser: P, _ input: [UInt8], seed: UInt64,
                                            sourceLocation: SourceLocation = #_sourceLocation) {
        let events = run(parser, [input[...]])
        var reader = HTTPMessageReader(parser: parser, bodyLimit: 64)
        var messages: [HTTPParsedMessage<P.Head>] = []
        var failed = false
        do {
            try reader.feed(input, into: &messages)
            try reader.finish(into: &messages)
        } catch {
            failed = true
            #expect(error == events.error, "seed \(seed), input size \(input.count)", sourceLocation: sourceLocation)
        }
        let ends = events.events.filter { $0 == .end }.count
        #expect(messages.count == ends, "seed \(seed), input size \(input.count): \(messages.count) messages for \(ends) ends",
                sourceLocation: sourceLocation)
        #expect(messages.allSatisfy { $0.body.count <= 64 })
        if failed, let partial = reader.partial {
            #expect(!partial.isComplete)
        }
        // After a fault, resynchronizing gives the interrupted message back and the parser goes on.
        _ = reader.resynchronize()
        do { try reader.feed(input, into: &messages) } catch {}
    }

    func mutationRun<P: HTTPMessageParsing>(_ parser: P, samples: [[UInt8]], seed: UInt64) {
        var mutator = ByteMutator(seed: seed)
        let donors = samples + Self.hostileRequests + Self.hostileResponses
        var errors = 0
        for k in 0..<Self.iterations {
            let sample = samples[mutator.below(samples.count)]
            let input = mutator.mutate(sample, maxMutations: 6, donors: donors)
            if checkOutcome(parser, input, &mutator, "iteration \(k)") { errors += 1 }
            if k % 4 == 0 { checkReader(parser, input, seed: seed) }
        }
        // Both outcomes must be exercised: faults and messages that survive the damage.
        #expect(errors > Self.iterations / 5 && errors < Self.iterations, "seed \(seed): \(errors) errors in \(Self.iterations)")
    }

    @Test(arguments: [0x5EED_0001, 0x5EED_0002] as [UInt64])
    func mutatedRequests(seed: UInt64) {
        mutationRun(HTTPRequestParser(), samples: Self.requestSamples + Self.hostileRequests, seed: seed)
        mutationRun(HTTPRequestParser(lineEndings: .acceptBareLineFeed), samples: Self.requestSamples, seed: seed ^ 0xFF)
    }

    @Test(arguments: [0x5EED_0003, 0x5EED_0004] as [UInt64])
    func mutatedResponses(seed: UInt64) {
        mutationRun(HTTPResponseParser(), samples: Self.responseSamples + Self.hostileResponses, seed: seed)
        var afterHeadAndConnect = HTTPResponseParser(lineEndings: .acceptBareLineFeed)
        afterHeadAndConnect.expectResponse(to: "HEAD")
        afterHeadAndConnect.expectResponse(to: "CONNECT")
        mutationRun(afterHeadAndConnect, samples: Self.responseSamples, seed: seed ^ 0xFF)
    }

    /// A capture that resynchronizes after every fault (as the sniffer does) goes on to the end of
    /// damaged streams, reports faults at increasing offsets inside what was fed, and finds the next
    /// good message after a resynchronization.
    @Test(arguments: [0x5EED_0005, 0x5EED_0006] as [UInt64])
    func resynchronizingAfterEveryFault(seed: UInt64) {
        var mutator = ByteMutator(seed: seed)
        let final = Array("\r\nGET /final HTTP/1.1\r\nHost: h\r\n\r\n".utf8)
        for k in 0..<Self.iterations / 2 {
            var stream: [UInt8] = []
            for _ in 0..<(1 + mutator.below(4)) {
                stream += mutator.mutate(Self.requestSamples[mutator.below(Self.requestSamples.count)], maxMutations: 3)
            }
            var parser = HTTPRequestParser()
            var events: [HTTPRequestEvent] = []
            var lastFault = -1
            var fed = 0
            var position = 0
            while position < stream.count {
                let end = min(stream.count, position + 1 + mutator.below(64))
                fed += end - position
                do {
                    try parser.feed(stream[position..<end], into: &events)
                } catch {
                    #expect(error.offset > lastFault && error.offset <= fed,
                            "seed \(seed) iteration \(k), stream size \(stream.count): \(error) after \(lastFault), \(fed) fed")
                    lastFault = error.offset
                    parser.resynchronize()
                }
                position = end
            }
            parser.resynchronize()
            events.removeAll()
            do {
                try parser.feed(final, into: &events)
            } catch {
                Issue.record("seed \(seed) iteration \(k): \(error)")
            }
            let heads = events.compactMap { if case .head(let h) = $0 { h } else { nil } }
            #expect(heads.last?.target == "/final" && events.last == .end, "seed \(seed) iteration \(k): \(events)")
            #expect(parser.bytesConsumed == stream.count + final.count)
        }
    }

    /// Absurd limits (zero, negative, Int.max) must not turn into arithmetic traps.
    @Test func extremeLimitsNeverTrap() {
        let limits = [
            HTTPParserLimits(maxStartLineLength: 0, maxHeaderBytes: 0, maxHeaderCount: 0, maxChunkSizeLineLength: 0),
            HTTPParserLimits(maxStartLineLength: -1, maxHeaderBytes: Int.min, maxHeaderCount: -5, maxChunkSizeLineLength: Int.min),
            HTTPParserLimits(maxStartLineLength: .max, maxHeaderBytes: .max, maxHeaderCount: .max, maxChunkSizeLineLength: .max),
            HTTPParserLimits(maxStartLineLength: 8, maxHeaderBytes: 12, maxHeaderCount: 1, maxChunkSizeLineLength: 1),
        ]
        var mutator = ByteMutator(seed: 0x11A1)
        for limit in limits {
            for sample in Self.requestSamples + Self.hostileRequests {
                checkOutcome(HTTPRequestParser(limits: limit), sample, &mutator, "limits \(limit)")
                checkOutcome(HTTPRequestParser(limits: limit), mutator.mutate(sample), &mutator, "limits \(limit)")
            }
            for sample in Self.responseSamples + Self.hostileResponses {
                checkOutcome(HTTPResponseParser(limits: limit), sample, &mutator, "limits \(limit)")
            }
        }
    }

    /// Cut at every length: the events of a prefix are a prefix of the whole stream's events (the
    /// last body piece possibly shorter), and the only error is `truncatedMessage` at the cut.
    @Test func truncationAtEveryLength() {
        func check<P: HTTPMessageParsing>(_ parser: P, _ sample: [UInt8]) {
            let full = run(parser, [sample[...]])
            #expect(full.error == nil, "sample must be valid: \(full)")
            for length in 0...sample.count {
                // Without finish the events are a prefix; finishing may end an until-close body.
                let cut = run(parser, [sample[..<length]], finish: false)
                #expect(cut.error == nil, "cut at \(length) of \(sample.count): \(cut)")
                #expect(isPrefix(cut.events, of: full.events), "cut at \(length) of \(sample.count): events \(cut.events)")
                if let error = run(parser, [sample[..<length]]).error {
                    #expect(error.code == .truncatedMessage && error.offset == length,
                            "cut at \(length) of \(sample.count): \(error)")
                }
            }
        }
        for sample in Self.requestSamples { check(HTTPRequestParser(), sample) }
        for sample in Self.responseSamples { check(HTTPResponseParser(), sample) }
    }

    /// Complete pipelined messages before a corrupted one are delivered; the error points into the
    /// corrupted message.
    @Test func eventsBeforeACorruptMessageAreKept() {
        let good = Array("GET /a HTTP/1.1\r\nHost: h\r\n\r\nPOST /b HTTP/1.1\r\nHost: h\r\nContent-Length: 4\r\n\r\nbody".utf8)
        let third = Array("GET /c HTTP/1.1\r\nHost: h\r\nX-Id: 1234\r\n\r\n".utf8)
        var mutator = ByteMutator(seed: 0xC0DE)
        for position in 0..<third.count {
            for bad: UInt8 in [0x00, 0x7F, 0x0A] {
                var broken = third
                broken[position] = bad
                let input = good + broken
                for pieces in [[input[...]], [input[..<good.count], input[good.count...]], input.indices.map { input[$0...$0] }] {
                    let outcome = run(HTTPRequestParser(), pieces)
                    #expect(outcome.events.filter { $0 == .end }.count >= 2, "byte \(bad) at \(position): \(outcome)")
                    #expect(outcome.bodies.prefix(2) == [[], Array("body".utf8)])
                    if let error = outcome.error {
                        #expect(error.offset >= good.count && error.offset <= input.count, "\(error)")
                    }
                }
                checkOutcome(HTTPRequestParser(), input, &mutator, "byte \(bad) at \(position)")
            }
        }
    }

    /// Thousands of repeated headers or one enormous line stop at the limit with a typed error.
    @Test func repeatedHeadersAndLongLinesHitTheLimits() {
        let many = "GET / HTTP/1.1\r\n" + String(repeating: "X-A: 1\r\n", count: 5_000) + "\r\n"
        let error = run(HTTPRequestParser(), [Array(many.utf8)[...]]).error
        #expect(error?.code == .tooManyHeaders)
        let longLine = Array(("GET /" + String(repeating: "a", count: 70_000) + " HTTP/1.1\r\n\r\n").utf8)
        #expect(run(HTTPRequestParser(), [longLine[...]]).error?.code == .startLineTooLong)
        let bigHeader = Array(("GET / HTTP/1.1\r\nX: " + String(repeating: "v", count: 300_000) + "\r\n\r\n").utf8)
        let big = run(HTTPRequestParser(), [bigHeader[...]]).error
        #expect(big?.code == .headersTooLarge)
        #expect((big?.offset ?? -1) <= bigHeader.count)
        let chunkLine = Array(("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n1;" + String(repeating: "e", count: 5_000) + "\r\n").utf8)
        #expect(run(HTTPResponseParser(), [chunkLine[...]]).error?.code == .chunkSizeLineTooLong)
    }

    @Test func randomBytesNeverTrap() {
        var mutator = ByteMutator(seed: 0xBAD)
        for k in 0..<Self.iterations {
            let input = (0..<mutator.below(300)).map { _ in UInt8(truncatingIfNeeded: mutator.generator.next()) }
            checkOutcome(HTTPRequestParser(lineEndings: .acceptBareLineFeed), input, &mutator, "random \(k)")
            checkOutcome(HTTPResponseParser(), input, &mutator, "random \(k)")
        }
    }

    /// The mutator itself is deterministic: same seed, same damage.
    @Test func mutatorReplays() {
        var a = ByteMutator(seed: 42)
        var b = ByteMutator(seed: 42)
        for sample in Self.requestSamples {
            #expect(a.mutate(sample, donors: Self.responseSamples) == b.mutate(sample, donors: Self.responseSamples))
        }
        #expect(ByteMutator.iterations(default: 7, environment: [:]) == 7)
        #expect(ByteMutator.iterations(default: 7, environment: ["MOUCHARD_FUZZ_ITERATIONS": "5000"]) == 5000)
        #expect(ByteMutator.iterations(default: 7, environment: ["MOUCHARD_FUZZ_ITERATIONS": "x"]) == 7)
    }
}

/// True when `prefix` is how `whole` begins, the last event of `prefix` being allowed to be a
/// shorter body or tunnel piece than the one at the same place in `whole`.
func isPrefix<Head>(_ prefix: [HTTPParserEvent<Head>], of whole: [HTTPParserEvent<Head>]) -> Bool {
    guard prefix.count <= whole.count else { return false }
    for (k, event) in prefix.enumerated() where event != whole[k] {
        guard k == prefix.count - 1 else { return false }
        switch (event, whole[k]) {
        case (.body(let a), .body(let b)), (.tunnel(let a), .tunnel(let b)):
            return b.starts(with: a)
        default:
            return false
        }
    }
    return true
}

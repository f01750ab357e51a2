import MouchardTestSupport
import MouchardWire
import Testing

/// Seeded random mutations of valid messages: the parser must never trap, must give the same
/// result however the bytes are split, and whatever it accepts must survive serialize → parse.
@Suite struct HTTPFuzzTests {
    static let requestSeeds = [
        "GET /a?b=c HTTP/1.1\r\nHost: h\r\nAccept: */*\r\n\r\n",
        "POST /p HTTP/1.1\r\nHost: h\r\nContent-Length: 5\r\n\r\nhello",
        "PUT /c HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n3;e=1\r\nabc\r\n0\r\nT: v\r\n\r\n",
        "GET http://h/x HTTP/1.0\r\nX: 1\r\nX: 2\r\n\r\nOPTIONS * HTTP/1.1\r\n\r\n",
        "CONNECT h:443 HTTP/1.1\r\nHost: h:443\r\n\r\n\u{16}\u{3}\u{1}",
    ].map { Array($0.utf8) }

    static let responseSeeds = [
        "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nokHTTP/1.1 204 No Content\r\n\r\n",
        "HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 201 Created\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nab\r\n0\r\n\r\n",
        "HTTP/1.0 200 OK\r\nServer: x\r\n\r\nuntil close",
        "HTTP/1.1 304 Not Modified\r\nETag: \"x\"\r\n\r\nHTTP/1.1 404 Not Found\r\nContent-Length: 0\r\n\r\n",
    ].map { Array($0.utf8) }

    static let interesting: [UInt8] = [0x0D, 0x0A, 0x20, 0x09, 0x3A, 0x30, 0x2C, 0x3B, 0x00, 0xFF, 0x41, 0x2D, 0x7F]

    func mutate(_ input: [UInt8], _ rng: inout SplitMix64) -> [UInt8] {
        var bytes = input
        for _ in 0..<Int.random(in: 1...3, using: &rng) {
            guard !bytes.isEmpty else { break }
            let at = Int.random(in: 0..<bytes.count, using: &rng)
            switch Int.random(in: 0..<5, using: &rng) {
            case 0: bytes[at] = Self.interesting.randomElement(using: &rng) ?? 0
            case 1: bytes.insert(Self.interesting.randomElement(using: &rng) ?? 0, at: at)
            case 2: bytes.remove(at: at)
            case 3: bytes[at] = UInt8.random(in: 0...255, using: &rng)
            default:
                let end = min(bytes.count, at + Int.random(in: 1...12, using: &rng))
                bytes.insert(contentsOf: bytes[at..<end], at: at)
            }
        }
        return bytes
    }

    func check<P: HTTPMessageParsing>(_ parser: P, seeds: [[UInt8]], seed: UInt64,
                                      serialize: ([HTTPParsedMessage<P.Head>]) -> [UInt8]) {
        var rng = SplitMix64(seed: seed)
        var accepted = 0
        for _ in 0..<150 {
            let input = mutate(seeds.randomElement(using: &rng) ?? [], &rng)
            let whole = run(parser, [input[...]])
            for _ in 0..<4 {
                var cuts = (0..<Int.random(in: 1...4, using: &rng)).map { _ in Int.random(in: 0...input.count, using: &rng) }
                cuts = ([0] + cuts.sorted() + [input.count])
                let pieces = zip(cuts, cuts.dropFirst()).map { input[$0..<$1] }
                let split = run(parser, pieces)
                #expect(split == whole, "seed \(seed) input \(input) cuts \(cuts)")
            }
            let single = run(parser, input.indices.map { input[$0...$0] })
            #expect(single == whole, "byte by byte, seed \(seed) input \(input)")
            guard whole.error == nil, let messages = try? HTTPMessageReader.messages(in: input, parser: parser) else { continue }
            accepted += 1
            let again = try? HTTPMessageReader.messages(in: serialize(messages), parser: parser)
            #expect(again == messages, "serialize → parse changed seed \(seed) input \(input)")
        }
        #expect(accepted > 10, "the mutations should leave some messages valid")
    }

    @Test(arguments: [1, 2, 3] as [UInt64])
    func mutatedRequests(seed: UInt64) {
        check(HTTPRequestParser(), seeds: Self.requestSeeds, seed: seed, serialize: serialized)
    }

    /// Lenient line endings: what is accepted need not round-trip byte for byte (LF becomes CRLF),
    /// but serialize → parse must give the same messages.
    @Test func mutatedRequestsWithBareLineFeeds() {
        check(HTTPRequestParser(lineEndings: .acceptBareLineFeed), seeds: Self.requestSeeds, seed: 7, serialize: serialized)
    }

    @Test(arguments: [4, 5, 6] as [UInt64])
    func mutatedResponses(seed: UInt64) {
        check(HTTPResponseParser(), seeds: Self.responseSeeds, seed: seed, serialize: serialized)
    }

    @Test func randomBytesNeverTrap() {
        var rng = SplitMix64(seed: 99)
        for _ in 0..<300 {
            let input = (0..<Int.random(in: 0...200, using: &rng)).map { _ in
                Bool.random(using: &rng) ? (Self.interesting.randomElement(using: &rng) ?? 0) : UInt8.random(in: 0...255, using: &rng)
            }
            let a = run(HTTPRequestParser(lineEndings: .acceptBareLineFeed), [input[...]])
            let b = run(HTTPResponseParser(), [input[...]])
            // Garbage either fails with a typed error or is nothing at all.
            #expect(a.error != nil || a.events.isEmpty || a.heads.count > 0)
            #expect(b.error != nil || b.events.isEmpty || b.heads.count > 0)
        }
    }
}

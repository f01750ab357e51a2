import MouchardWire
import Testing

/// Bytes of a string written with `\r\n` explicitly.
func bytes(_ s: String) -> [UInt8] { Array(s.utf8) }

/// Everything a parser said about a stream, with body and tunnel pieces merged so that results of
/// different splits compare equal.
struct ParseOutcome<Head: Sendable & Hashable>: Equatable, CustomStringConvertible {
    var events: [HTTPParserEvent<Head>] = []
    var error: HTTPParseError?

    mutating func append(_ new: [HTTPParserEvent<Head>]) {
        for e in new {
            switch (events.last, e) {
            case (.body(let a)?, .body(let b)):
                events[events.count - 1] = .body(a + b)
            case (.tunnel(let a)?, .tunnel(let b)):
                events[events.count - 1] = .tunnel(a + b)
            case (_, .body(let b)) where b.isEmpty:
                continue
            default:
                events.append(e)
            }
        }
    }

    var heads: [Head] {
        events.compactMap { if case .head(let h) = $0 { h } else { nil } }
    }

    /// Bodies of the messages, one per `end`.
    var bodies: [[UInt8]] {
        var out: [[UInt8]] = []
        var current: [UInt8] = []
        for e in events {
            switch e {
            case .body(let b): current += b
            case .end: out.append(current); current = []
            default: break
            }
        }
        return out
    }

    var description: String { "\(events) error: \(error.map(String.init(describing:)) ?? "none")" }
}

/// Feeds `pieces` to a fresh parser, then finishes if `finish`.
func run<P: HTTPMessageParsing>(_ parser: P, _ pieces: [ArraySlice<UInt8>], finish: Bool = true) -> ParseOutcome<P.Head> {
    var p = parser
    var outcome = ParseOutcome<P.Head>()
    var events: [HTTPParserEvent<P.Head>] = []
    do {
        for piece in pieces {
            events.removeAll()
            defer { outcome.append(events) }
            try p.feed(piece, into: &events)
        }
        if finish {
            events.removeAll()
            defer { outcome.append(events) }
            try p.finish(into: &events)
        }
    } catch {
        outcome.error = error
    }
    return outcome
}

/// Parses `input` in one piece, and checks that every two-piece split and byte-by-byte feeding give
/// exactly the same events and error. Returns the one-shot outcome.
@discardableResult
func parseEverySplit<P: HTTPMessageParsing>(_ parser: P, _ input: [UInt8], finish: Bool = true,
                                            sourceLocation: SourceLocation = #_sourceLocation) -> ParseOutcome<P.Head> {
    let whole = run(parser, [input[...]], finish: finish)
    for k in 0...input.count {
        let split = run(parser, [input[..<k], input[k...]], finish: finish)
        if split != whole {
            Issue.record("split at \(k) differs:\n  \(split)\nvs one-shot:\n  \(whole)", sourceLocation: sourceLocation)
            return whole
        }
    }
    let single = run(parser, input.indices.map { input[$0...$0] }, finish: finish)
    #expect(single == whole, "byte by byte differs", sourceLocation: sourceLocation)
    return whole
}

/// The response parser told to expect answers to `methods`.
func responseParser(expecting methods: [String] = [], limits: HTTPParserLimits = HTTPParserLimits()) -> HTTPResponseParser {
    var p = HTTPResponseParser(limits: limits)
    for m in methods { p.expectResponse(to: m) }
    return p
}

/// Requests written back with `HTTPSerializer`, one after the other.
func serialized(_ messages: [HTTPParsedRequest]) -> [UInt8] {
    var out: [UInt8] = []
    for m in messages { HTTPSerializer.appendMessage(m, to: &out) }
    return out
}

/// Responses written back with `HTTPSerializer`, one after the other.
func serialized(_ messages: [HTTPParsedResponse]) -> [UInt8] {
    var out: [UInt8] = []
    for m in messages { HTTPSerializer.appendMessage(m, to: &out) }
    return out
}

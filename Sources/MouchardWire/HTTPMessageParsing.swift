/// What `HTTPRequestParser` and `HTTPResponseParser` have in common, so code (such as
/// `HTTPMessageReader`) can drive either.
public protocol HTTPMessageParsing: Sendable {
    associatedtype Head: Sendable & Hashable
    /// Parses `bytes` (any split of the stream) and appends the resulting events to `events`.
    /// On error, events for everything before the fault are already appended; the parser then stays
    /// failed and every later call rethrows the same error.
    mutating func feed(_ bytes: some Collection<UInt8>, into events: inout [HTTPParserEvent<Head>]) throws(HTTPParseError)
    /// Signals end of stream; throws `truncatedMessage` if a message is incomplete.
    mutating func finish(into events: inout [HTTPParserEvent<Head>]) throws(HTTPParseError)
    /// Drops the message in progress and skips bytes until a line that parses as a start line
    /// (after a gap, or for a stream captured mid-connection); also recovers from a fault.
    mutating func resynchronize()
    /// From now on, record the stream offsets `takeWireMarks` returns: one per `head` and
    /// `informational` event (where its start line began) and one per `end` event (just past the
    /// message), in event order. Used by `HTTPMessageReader(keepsWireBytes: true)`.
    mutating func recordWireMarks()
    /// The offsets recorded since the last call.
    mutating func takeWireMarks() -> [Int]
    /// Body bytes certain to come next before anything else the parser must see: the rest of a body
    /// framed by length or of a chunk, but for its last byte (which ends it), or all that is left
    /// of a body read until the connection closes. 0 when the parser is not inside a body.
    var skippableBodyBytes: Int { get }
    /// Passes over `count` body bytes (at most `skippableBodyBytes`) without reading them: they
    /// give no `body` event. For a reader that would drop them anyway and does not have them in
    /// the clear (a capture's TLS records past the body bytes kept are then not decrypted).
    mutating func skipBody(_ count: Int)
}

extension HTTPMessageParsing {
    /// Convenience: parses `bytes` and returns their events. Events before an error are lost; use
    /// `feed(_:into:)` to keep them.
    public mutating func feed(_ bytes: some Collection<UInt8>) throws(HTTPParseError) -> [HTTPParserEvent<Head>] {
        var events: [HTTPParserEvent<Head>] = []
        try feed(bytes, into: &events)
        return events
    }

    /// Convenience: signals end of stream and returns the final events.
    public mutating func finish() throws(HTTPParseError) -> [HTTPParserEvent<Head>] {
        var events: [HTTPParserEvent<Head>] = []
        try finish(into: &events)
        return events
    }
}

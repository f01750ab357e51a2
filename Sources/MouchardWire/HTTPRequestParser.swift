/// An incremental, sans-I/O parser of the HTTP/1 requests a client sends on one connection.
///
/// Feed bytes as they arrive, split anywhere; get `HTTPRequestEvent`s (head, body pieces, trailers,
/// end) in order, so a proxy can forward a body without holding it. Pipelined requests come one
/// after the other. After a CONNECT request the connection is a tunnel: `end`, then every later byte
/// is a `tunnel` event (a proxy that refuses the CONNECT should close the connection).
/// Call `finish` at end of stream. After an error the parser stays failed and rethrows it.
///
/// Rules (RFC 9112): Transfer-Encoding with Content-Length, a final transfer coding other than
/// chunked, invalid or differing Content-Length values, several Host fields, obs-fold, whitespace
/// before the colon, invalid token characters and control bytes in values are rejected; identical
/// duplicate Content-Length values are accepted; a CONNECT request has no body whatever its headers
/// say; lines must end with CRLF unless `lineEndings` says otherwise. An HTTP/1.0 request with
/// Transfer-Encoding is parsed (chunked), but RFC 9112 §6.1 wants the connection closed after it.
public struct HTTPRequestParser: HTTPMessageParsing, Sendable {
    public typealias Head = HTTPRequestHead
    var machine: HTTPMessageParser<HTTPRequestHead>

    public init(limits: HTTPParserLimits = HTTPParserLimits(), lineEndings: HTTPLineEndingPolicy = .requireCRLF) {
        machine = HTTPMessageParser(limits: limits, lineEndings: lineEndings)
    }

    /// Drops the request in progress and buffered bytes, and skips bytes until a line that parses as
    /// a start line: for a capture that began mid-connection, or after a gap in a reassembled
    /// stream. A parser that failed can resume this way (the bytes of the failed `feed` after the
    /// fault are not parsed). Offsets keep counting from the first byte ever fed.
    public mutating func resynchronize() { machine.resynchronize() }

    public var limits: HTTPParserLimits { machine.limits }

    /// Parses `bytes` and appends the events they complete to `events`. On error, the events of
    /// everything before the fault are already in `events`.
    public mutating func feed(_ bytes: some Collection<UInt8>, into events: inout [HTTPRequestEvent]) throws(HTTPParseError) {
        try withContiguousBytes(bytes) { buffer throws(HTTPParseError) in try machine.feed(buffer, into: &events) }
    }

    /// End of stream: throws `truncatedMessage` if a request was incomplete.
    public mutating func finish(into events: inout [HTTPRequestEvent]) throws(HTTPParseError) {
        try machine.finish(into: &events)
    }

    /// Stream offset of the next byte to feed (the number of bytes fed so far).
    public var bytesConsumed: Int { machine.streamOffset }

    /// True when a request has started and is not complete.
    public var isInsideMessage: Bool { machine.isInsideMessage }

    /// Stops parsing HTTP (e.g. after the server accepted an `Upgrade`): later bytes come as `tunnel`.
    /// Returns bytes already received but not yet parsed.
    public mutating func startTunnel() -> [UInt8] { machine.startTunnel() }

    public mutating func recordWireMarks() { machine.recordsWireMarks = true }
    public mutating func takeWireMarks() -> [Int] { machine.takeWireMarks() }
    public var skippableBodyBytes: Int { machine.skippableBodyBytes }
    public mutating func skipBody(_ count: Int) { machine.skipBody(count) }
}

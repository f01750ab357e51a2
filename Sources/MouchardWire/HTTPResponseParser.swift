/// An incremental, sans-I/O parser of the HTTP/1 responses a server sends on one connection.
///
/// Whether a response has a body depends on the request: tell the parser the method of each request
/// sent on the connection, in order, with `expectResponse(to:)` (HEAD → no body, CONNECT + 2xx →
/// tunnel). A response with no request method queued is read as the answer to a GET.
/// Interim 1xx responses (100 Continue, 103 Early Hints) come as `informational` and do not consume
/// the queued method; 101 Switching Protocols is final and starts a tunnel. A response without
/// Content-Length or chunked coding runs until the connection closes: `finish()` then reports `end`.
/// Same strictness as `HTTPRequestParser`, except that a final transfer coding other than chunked is
/// allowed and means "until close" (RFC 9112 §6.3).
public struct HTTPResponseParser: HTTPMessageParsing, Sendable {
    public typealias Head = HTTPResponseHead
    var machine: HTTPMessageParser<HTTPResponseHead>

    public init(limits: HTTPParserLimits = HTTPParserLimits(), lineEndings: HTTPLineEndingPolicy = .requireCRLF) {
        machine = HTTPMessageParser(limits: limits, lineEndings: lineEndings)
    }

    /// Drops the response in progress and buffered bytes, and skips bytes until a line that parses as
    /// a start line: for a capture that began mid-connection, or after a gap in a reassembled
    /// stream. A parser that failed can resume this way (the bytes of the failed `feed` after the
    /// fault are not parsed). Offsets keep counting from the first byte ever fed.
    public mutating func resynchronize() { machine.resynchronize() }

    public var limits: HTTPParserLimits { machine.limits }

    /// Records that a request with `method` was sent: the next unanswered response answers it.
    public mutating func expectResponse(to method: String) {
        machine.context.enqueue(method)
    }

    /// Number of requests whose final response has not been parsed yet.
    public var pendingRequestCount: Int { machine.context.pendingCount }

    public mutating func feed(_ bytes: some Collection<UInt8>, into events: inout [HTTPResponseEvent]) throws(HTTPParseError) {
        try withContiguousBytes(bytes) { buffer throws(HTTPParseError) in try machine.feed(buffer, into: &events) }
    }

    /// End of stream: completes an until-close body; throws `truncatedMessage` if a response was incomplete.
    public mutating func finish(into events: inout [HTTPResponseEvent]) throws(HTTPParseError) {
        try machine.finish(into: &events)
    }

    public var bytesConsumed: Int { machine.streamOffset }
    public var isInsideMessage: Bool { machine.isInsideMessage }
    public mutating func startTunnel() -> [UInt8] { machine.startTunnel() }

    public mutating func recordWireMarks() { machine.recordsWireMarks = true }
    public mutating func takeWireMarks() -> [Int] { machine.takeWireMarks() }
    public var skippableBodyBytes: Int { machine.skippableBodyBytes }
    public mutating func skipBody(_ count: Int) { machine.skipBody(count) }
}

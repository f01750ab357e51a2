/// One complete (or, at end of stream, incomplete) HTTP/1 message gathered from parser events:
/// head, body after transfer decoding (gzip and other content codings kept), trailers.
///
/// The body is capped by the reader's `bodyLimit`: past it bytes are counted in `bodyLength` but not
/// kept, and `bodyTruncated` is true.
public struct HTTPParsedMessage<Head: Sendable & Hashable>: Sendable, Hashable {
    public var head: Head
    /// Interim 1xx heads received before this final response (empty for requests).
    public var informational: [Head]
    public var body: [UInt8]
    /// Number of body bytes the message carried (can exceed `body.count` when truncated).
    public var bodyLength: Int
    /// True when `body` holds only the first `bodyLimit` bytes, or the stream ended mid-body.
    public var bodyTruncated: Bool
    public var trailers: HTTPHeaders
    /// False only for the message the stream ended in (see `HTTPMessageReader.partial`).
    public var isComplete: Bool
    /// The message exactly as it arrived (interim heads, head, framed body, trailers), when read by
    /// an `HTTPMessageReader(keepsWireBytes: true)`; nil otherwise, and for a message whose body
    /// was cut at the reader's limit. `HTTPSerializer.appendAsReceived` writes it back.
    public var wireBytes: [UInt8]?

    public init(head: Head, informational: [Head] = [], body: [UInt8] = [], bodyLength: Int? = nil,
                bodyTruncated: Bool = false, trailers: HTTPHeaders = [], isComplete: Bool = true) {
        self.head = head
        self.informational = informational
        self.body = body
        self.bodyLength = bodyLength ?? body.count
        self.bodyTruncated = bodyTruncated
        self.trailers = trailers
        self.isComplete = isComplete
    }
}

/// A complete request read by an `HTTPMessageReader<HTTPRequestParser>`.
public typealias HTTPParsedRequest = HTTPParsedMessage<HTTPRequestHead>
/// A complete response read by an `HTTPMessageReader<HTTPResponseParser>`.
public typealias HTTPParsedResponse = HTTPParsedMessage<HTTPResponseHead>

/// Drives a parser and gathers its events into whole messages with a capped body, for consumers
/// that want messages rather than a stream (the sniffer, HAR import, tests).
///
/// Bytes after a switch to a tunnel are not kept (unless `keepsTunnelBytes`); `tunnelByteCount` counts them.
public struct HTTPMessageReader<Parser: HTTPMessageParsing>: Sendable {
    public typealias Message = HTTPParsedMessage<Parser.Head>

    /// The underlying parser (e.g. to call `expectResponse(to:)` on a response parser).
    public var parser: Parser
    /// Most body bytes kept per message.
    public let bodyLimit: Int
    /// The message in progress: its head has been parsed but not its end (nil between messages).
    /// After `feed` or `finish` throws, this is what was received of the message the fault (or the
    /// end of stream) interrupted, marked incomplete and truncated: nothing decoded is lost.
    public private(set) var partial: Message?
    /// `partial != nil`, told without copying the message out.
    public var hasPartial: Bool {
        if case .none = partial { return false }
        return true
    }
    /// Bytes seen after the connection became a tunnel.
    public private(set) var tunnelByteCount = 0
    /// Keep the bytes after a switch to a tunnel (up to `bodyLimit` until taken) for `takeTunnelBytes`:
    /// a reader of what the connection switched to (WebSocket frames after a 101) needs the first ones,
    /// which arrive with the 101 head.
    public var keepsTunnelBytes = false
    private var tunnelBytes: [UInt8] = []
    private var interim: [Parser.Head] = []
    private var events: [HTTPParserEvent<Parser.Head>] = []
    /// With `keepsWireBytes`: the bytes of the message in progress.
    private var recorder: HTTPWireRecorder?
    private var marks: [Int] = []

    /// The tunnel bytes kept since the last call (`keepsTunnelBytes`).
    public mutating func takeTunnelBytes() -> [UInt8] {
        defer { tunnelBytes = [] }
        return tunnelBytes
    }

    /// With `keepsWireBytes`, each complete message also carries its bytes exactly as they arrived
    /// (`wireBytes`); the reader then holds at most the message in progress (up to `bodyLimit`
    /// plus 1 MiB of heads and framing).
    public init(parser: Parser, bodyLimit: Int = 16 << 20, keepsWireBytes: Bool = false) {
        self.parser = parser
        self.bodyLimit = max(0, bodyLimit)
        if keepsWireBytes {
            self.parser.recordWireMarks()
            recorder = HTTPWireRecorder(limit: min(Int.max / 2, self.bodyLimit) + (1 << 20))
        }
    }

    /// Bytes held to give messages their `wireBytes` (0 without `keepsWireBytes`).
    public var retainedWireByteCount: Int { recorder?.retainedByteCount ?? 0 }

    /// Parses `bytes` and appends every message they complete to `messages`. On error, the messages
    /// completed before the fault are already appended.
    public mutating func feed(_ bytes: some Collection<UInt8>, into messages: inout [Message]) throws(HTTPParseError) {
        events.removeAll(keepingCapacity: true)
        recorder?.append(bytes)
        var failure: HTTPParseError?
        do { try parser.feed(bytes, into: &events) } catch { failure = error }
        gather(into: &messages)
        if let failure {
            markPartialIncomplete()
            throw failure
        }
    }

    /// End of stream. Completes an until-close response; throws `truncatedMessage` if a message was
    /// incomplete, leaving what arrived of it in `partial` (marked incomplete and truncated).
    public mutating func finish(into messages: inout [Message]) throws(HTTPParseError) {
        events.removeAll(keepingCapacity: true)
        var failure: HTTPParseError?
        do { try parser.finish(into: &events) } catch { failure = error }
        gather(into: &messages)
        if let failure {
            markPartialIncomplete()
            throw failure
        }
    }

    /// After a gap in the stream (or a fault): returns what was received of the interrupted message
    /// (marked incomplete and truncated), and makes the parser look for the next start line.
    public mutating func resynchronize() -> Message? {
        markPartialIncomplete()
        defer { partial = nil; interim = [] }
        parser.resynchronize()
        recorder?.resynchronized()
        return partial
    }

    /// Body bytes coming next that would not be kept: the message in progress already holds
    /// `bodyLimit` bytes of body (and no wire bytes are kept). A caller may pass over them with
    /// `skipBody` instead of feeding them; they are still counted in `bodyLength`.
    public var discardableBodyBytes: Int {
        guard recorder == nil, let m = partial, m.body.count >= bodyLimit else { return 0 }
        return parser.skippableBodyBytes
    }

    /// Passes over `count` body bytes (at most `discardableBodyBytes`): counted, not read.
    public mutating func skipBody(_ count: Int) {
        precondition(count <= discardableBodyBytes, "skipping body bytes that would be kept")
        parser.skipBody(count)
        partial?.bodyLength += count
        if count > 0 { partial?.bodyTruncated = true }
    }

    /// Convenience: every message of a whole stream (feed then finish).
    public static func messages(in bytes: some Collection<UInt8>, parser: Parser,
                                bodyLimit: Int = 16 << 20) throws(HTTPParseError) -> [Message] {
        var reader = HTTPMessageReader(parser: parser, bodyLimit: bodyLimit)
        var messages: [Message] = []
        try reader.feed(bytes, into: &messages)
        try reader.finish(into: &messages)
        return messages
    }

    private mutating func markPartialIncomplete() {
        if partial != nil {
            partial?.isComplete = false
            partial?.bodyTruncated = true
        }
    }

    private mutating func gather(into messages: inout [Message]) {
        if recorder != nil { marks = parser.takeWireMarks() }
        var nextMark = 0
        /// The wire mark of the current head or end event (one per such event, in order).
        func mark() -> Int? {
            guard nextMark < marks.count else { return nil }
            defer { nextMark += 1 }
            return marks[nextMark]
        }
        defer { recorder?.trim() }
        for event in events {
            switch event {
            case .informational(let head):
                if let at = recorder != nil ? mark() : nil, interim.isEmpty { recorder?.messageStarted(at: at) }
                interim.append(head)
            case .head(let head):
                if let at = recorder != nil ? mark() : nil, interim.isEmpty { recorder?.messageStarted(at: at) }
                partial = Message(head: head, informational: interim)
                interim = []
            case .body(let bytes):
                guard var m = partial else { continue }
                partial = nil // keep the body uniquely referenced while appending
                m.bodyLength += bytes.count
                let room = bodyLimit - m.body.count
                if bytes.count <= room {
                    m.body.append(contentsOf: bytes)
                } else {
                    m.body.append(contentsOf: bytes.prefix(room))
                    m.bodyTruncated = true
                }
                partial = m
            case .trailers(let trailers):
                partial?.trailers = trailers
            case .end:
                let wire = recorder != nil ? mark().flatMap { recorder?.messageEnded(at: $0) } : nil
                if var m = partial {
                    if !m.bodyTruncated { m.wireBytes = wire }
                    messages.append(m)
                }
                partial = nil
            case .tunnel(let bytes):
                recorder?.tunnelStarted()
                tunnelByteCount += bytes.count
                if keepsTunnelBytes { tunnelBytes.append(contentsOf: bytes.prefix(max(0, bodyLimit - tunnelBytes.count))) }
            }
        }
    }
}

/// `feed` of the two readers a capture runs, compiled here for their parser and byte types. Called
/// from another module, the generic `feed` runs unspecialized (type metadata looked up, each event
/// copied and destroyed through witnesses): some 7,000 instructions a TCP segment before any byte
/// is parsed (bench/NOTES.md).
extension HTTPMessageReader where Parser == HTTPRequestParser {
    public mutating func feedSegment(_ bytes: ArraySlice<UInt8>, into messages: inout [Message]) throws(HTTPParseError) {
        try feed(bytes, into: &messages)
    }
}

extension HTTPMessageReader where Parser == HTTPResponseParser {
    public mutating func feedSegment(_ bytes: ArraySlice<UInt8>, into messages: inout [Message]) throws(HTTPParseError) {
        try feed(bytes, into: &messages)
    }
}

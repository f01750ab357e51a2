/// Keeps the bytes of the messages an `HTTPMessageReader` is reading, so that each complete
/// message can carry them exactly as they arrived (`HTTPParsedMessage.wireBytes`): start line,
/// fields with their original spacing, body with its original framing (chunk sizes, extensions,
/// trailers). The parser's wire marks say where each message starts and ends in the stream.
///
/// Memory is bounded: bytes before the message in progress are dropped as soon as it starts, a
/// tunnel's bytes are never kept, and past `limit` bytes the message in progress loses its copy
/// (it then has no `wireBytes`) rather than the recorder growing.
struct HTTPWireRecorder: Sendable {
    let limit: Int
    private var buffer: [UInt8] = []
    /// Stream offset of `buffer[0]`.
    private var bufferStart = 0
    /// Stream offset of the next byte to come.
    private var streamEnd = 0
    /// Start of the message in progress (its first head's start line), if any.
    private var messageStart: Int?
    /// Nothing before this offset is needed again (the end of the last message).
    private var keepFrom = 0
    private var tunneling = false

    init(limit: Int) { self.limit = max(0, limit) }

    /// Bytes held now (for tests and memory accounting).
    var retainedByteCount: Int { buffer.count }

    /// Records bytes about to be fed to the parser.
    mutating func append(_ bytes: some Collection<UInt8>) {
        defer { streamEnd += bytes.count }
        guard !tunneling else { return }
        if buffer.count + bytes.count > limit {
            // Too much for one message: the one in progress will have no copy.
            buffer.removeAll()
            bufferStart = streamEnd + bytes.count
            return
        }
        buffer.append(contentsOf: bytes)
    }

    /// A message began at stream offset `offset` (the first head of it, interim heads included).
    mutating func messageStarted(at offset: Int) { messageStart = offset }

    /// The message in progress ended just before stream offset `end`: its bytes, when all of them
    /// are still here.
    mutating func messageEnded(at end: Int) -> [UInt8]? {
        defer {
            messageStart = nil
            keepFrom = end
        }
        guard let start = messageStart, start >= bufferStart, start <= end, end - bufferStart <= buffer.count else { return nil }
        return Array(buffer[(start - bufferStart)..<(end - bufferStart)])
    }

    /// The connection became a tunnel: later bytes are not HTTP and are not kept.
    mutating func tunnelStarted() {
        tunneling = true
        buffer.removeAll()
        bufferStart = streamEnd
    }

    /// The parser dropped the message in progress and looks for the next start line.
    mutating func resynchronized() {
        messageStart = nil
        keepFrom = streamEnd
        trim()
    }

    /// Drops the bytes no message can need any more.
    mutating func trim() {
        let from = messageStart ?? keepFrom
        let drop = min(max(0, from - bufferStart), buffer.count)
        guard drop > 0 else { return }
        buffer.removeFirst(drop)
        bufferStart += drop
    }
}

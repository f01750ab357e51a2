import Foundation
import MouchardCodec
import MouchardFlow
import MouchardWire

/// Both directions of one WebSocket connection, read while its bytes are relayed (proxy) or
/// replayed (capture): frames parsed, `permessage-deflate` messages inflated with each side's
/// window kept, each text or binary message kept as a `FlowMessage` (sans I/O: bytes in, messages
/// and verdicts out).
///
/// Memory is bounded: at most `maxMessageBytes` of a message are kept (the rest is relayed and
/// counted, a compressed message still inflated so the window stays right); messages wait in
/// `pending` until the owner records them, which it does when `wantsFlush` says the per-flow limits
/// are reached, and when the connection ends.
public final class WebSocketConversation {
    /// How much is kept.
    public struct Limits: Sendable {
        /// Bytes kept of one message.
        public var maxMessageBytes = FlowMessage.captureLimit
        /// Frames longer than this are refused (close 1009).
        public var maxFrameLength = WebSocketStreamParser.defaultMaxFrameLength
        /// Messages, and bytes of messages, one flow holds before the owner should record it.
        public var messagesPerFlow = 1000
        public var bytesPerFlow = 16 << 20

        public init() {}
    }

    /// What a `receive` decided about the bytes.
    public struct Verdict: Sendable, Equatable {
        /// How many of the bytes given are well-formed frames, to relay.
        public var forward: Int
        /// The frame that broke the protocol (the connection must be closed with its code).
        public var failure: WebSocketProtocolError?
    }

    public let extensions: WebSocketExtensions
    public let limits: Limits
    /// Messages read and not yet taken (`takeMessages`).
    public private(set) var pending: [FlowMessage] = []
    private var pendingBytes = 0
    /// Messages taken so far (the index of the next pending one on the connection).
    public private(set) var takenCount = 0
    /// How the connection's WebSocket part ended: `client 1000 bye`, `server 1001`, or the protocol error.
    public private(set) var closing: String?
    /// Problems that did not stop the relay (a message that does not inflate).
    public private(set) var notes: [String] = []

    private var sides: [Side]

    /// One direction: its frame parser, its inflater, and the message being read.
    private struct Side {
        var parser: WebSocketStreamParser
        let inflater: StreamInflater?
        let resetsWindow: Bool
        var opcode: WebSocketOpcode = .text
        var compressed = false
        var data: [UInt8] = []
        var truncated = false
        var reading = false
        /// Inflating this message failed: the rest of it is skipped.
        var broken = false
    }

    /// `extensions` is what the 101 agreed on (`WebSocketExtensions(header:)`); frames are only read
    /// when it `isReadable`.
    public init(extensions: WebSocketExtensions, limits: Limits = Limits()) {
        self.extensions = extensions
        self.limits = limits
        sides = [FlowMessage.Direction.client, .server].map { d in
            Side(parser: WebSocketStreamParser(sender: d == .client ? .client : .server, allowsCompression: extensions.deflate,
                                               maxFrameLength: limits.maxFrameLength),
                 inflater: extensions.deflate ? StreamInflater() : nil,
                 resetsWindow: d == .client ? extensions.clientNoContextTakeover : extensions.serverNoContextTakeover)
        }
    }

    /// Reads bytes one side sent, `now` being when they arrived.
    public func receive(_ bytes: ArraySlice<UInt8>, from direction: FlowMessage.Direction, at now: Date) -> Verdict {
        let k = direction == .client ? 0 : 1
        let before = sides[k].parser.offset
        let events = sides[k].parser.feed(bytes)
        for e in events { handle(e, side: k, direction: direction, at: now) }
        guard let error = sides[k].parser.failure else { return Verdict(forward: bytes.count, failure: nil) }
        // Only the frames before the bad one go on; a failure already reported stops everything.
        let good = Int(min(UInt64(bytes.count), error.offset >= before ? error.offset - before : 0))
        if closing == nil { closing = "\(direction) protocol error: \(error.reason) (\(error.closeCode))" }
        return Verdict(forward: good, failure: error)
    }

    /// The owner should record the messages read so far (a flow's share is full).
    public var wantsFlush: Bool { pending.count >= limits.messagesPerFlow || pendingBytes >= limits.bytesPerFlow }

    /// The messages read since the last call, with the connection index of the first.
    public func takeMessages() -> (firstIndex: Int, messages: [FlowMessage]) {
        let first = takenCount
        let out = pending
        takenCount += out.count
        pending = []
        pendingBytes = 0
        return (first, out)
    }

    /// The connection ended: a message cut in the middle is kept, marked truncated.
    public func finish(at now: Date) {
        for k in sides.indices where sides[k].reading {
            emit(side: k, direction: k == 0 ? .client : .server, at: now, truncated: true)
        }
    }

    /// Bytes a side sent after its close frame (not parsed).
    public func bytesAfterClose(_ direction: FlowMessage.Direction) -> UInt64 {
        sides[direction == .client ? 0 : 1].parser.bytesAfterClose
    }

    private func handle(_ event: WebSocketStreamParser.Event, side k: Int, direction: FlowMessage.Direction, at now: Date) {
        switch event {
        case .messageStart(let opcode, let compressed):
            sides[k].opcode = opcode
            sides[k].compressed = compressed
            sides[k].data = []
            sides[k].truncated = false
            sides[k].reading = true
            sides[k].broken = false
        case .messageData(let chunk):
            append(chunk[...], side: k, direction: direction)
        case .messageEnd:
            if sides[k].compressed {
                // RFC 7692 §7.2.2: the sender removed the sync flush's empty block; put it back.
                append(Self.syncFlushTail[...], side: k, direction: direction)
                if sides[k].resetsWindow { sides[k].inflater?.reset() }
            }
            emit(side: k, direction: direction, at: now, truncated: false)
        case .control(let opcode, let payload):
            if opcode == .close, closing == nil {
                let close = WebSocketClose(payload: payload)
                closing = "\(direction) \(close.map { "\($0.code)" + ($0.reason.isEmpty ? "" : " \($0.reason)") } ?? "close")"
            }
        }
    }

    private func append(_ chunk: ArraySlice<UInt8>, side k: Int, direction: FlowMessage.Direction) {
        let limit = limits.maxMessageBytes
        if sides[k].compressed, let inflater = sides[k].inflater {
            guard !sides[k].broken else { return }
            do {
                let step = try inflater.inflate(chunk, into: &sides[k].data, limit: limit)
                if step.dropped > 0 { sides[k].truncated = true }
            } catch {
                sides[k].broken = true
                sides[k].truncated = true
                if notes.count < Self.maxNotes { notes.append("\(direction) message \(takenCount + pending.count): \(error)") }
            }
            return
        }
        let room = limit - sides[k].data.count
        if chunk.count > room { sides[k].truncated = true }
        if room > 0 { sides[k].data.append(contentsOf: chunk.prefix(room)) }
    }

    private func emit(side k: Int, direction: FlowMessage.Direction, at now: Date, truncated: Bool) {
        let s = sides[k]
        let message = FlowMessage(direction: direction, time: now, opcode: Int(s.opcode.rawValue), data: s.data, compressed: s.compressed,
                                  truncated: s.truncated || truncated)
        sides[k].data = []
        sides[k].reading = false
        pending.append(message)
        pendingBytes += message.data.count
    }

    /// The 4 bytes that end a sync-flushed deflate block (RFC 7692 §7.2.1).
    static let syncFlushTail: [UInt8] = [0x00, 0x00, 0xFF, 0xFF]
    static let maxNotes = 16
}

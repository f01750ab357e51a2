/// The frames one side of a WebSocket connection sends (RFC 6455 §5), read incrementally: bytes in,
/// messages and control frames out, payloads unmasked.
///
/// Memory stays bounded whatever the peer claims: a data frame's payload is handed on as it arrives
/// (never held whole), only a frame header (at most 14 bytes) or a control frame (at most 125) is
/// buffered. A frame that breaks the rules stops the parser with a `WebSocketProtocolError` (`failure`) naming the
/// close code to answer with and the stream offset of the frame: a length with its top bit set
/// (2^63 and above), a reserved opcode or bit, a fragmented or oversized control frame, a client
/// frame without a mask or a server frame with one, a continuation without a message or a new
/// message inside a fragmented one, a close payload of one byte (1002); a frame longer than
/// `maxFrameLength` (1009). Compression (`permessage-deflate`) only sets the RSV1 bit of a message's
/// first frame here; inflating is the caller's.
public struct WebSocketStreamParser: Sendable {
    /// Which side sends the bytes: clients mask every frame, servers never do.
    public enum Sender: String, Sendable {
        case client, server
    }

    /// What one `feed` found, in order.
    public enum Event: Sendable, Equatable {
        /// A text or binary message starts; `compressed` when its first frame has RSV1 set.
        case messageStart(WebSocketOpcode, compressed: Bool)
        /// Payload bytes of the current message, unmasked.
        case messageData([UInt8])
        /// The current message's last frame ended.
        case messageEnd
        /// A whole control frame (close, ping, pong), its payload unmasked.
        case control(WebSocketOpcode, [UInt8])
    }

    /// Longest frame accepted (1 GiB by default); a longer one is refused with 1009.
    public static let defaultMaxFrameLength: UInt64 = 1 << 30

    public let sender: Sender
    /// `permessage-deflate` was negotiated: RSV1 is allowed on a message's first frame.
    public let allowsCompression: Bool
    public let maxFrameLength: UInt64

    /// Stream bytes consumed so far.
    public private(set) var offset: UInt64 = 0
    /// A close frame was read: what follows is not parsed (counted in `bytesAfterClose`).
    public private(set) var isClosed = false
    public private(set) var bytesAfterClose: UInt64 = 0
    /// The error that stopped the parser, if any: later bytes are not read.
    public private(set) var failure: WebSocketProtocolError?

    /// Bytes of a header not complete yet.
    private var pendingHeader: [UInt8] = []
    /// The frame whose payload is being read.
    private var frame: WebSocketFrameHeader?
    private var frameStart: UInt64 = 0
    private var payloadLeft: UInt64 = 0
    /// Position in the 4-byte mask cycle of the next payload byte.
    private var maskPhase = 0
    /// A control frame's payload so far.
    private var controlPayload: [UInt8] = []
    /// A text or binary message has started and its final frame has not come yet.
    private var inMessage = false

    public init(sender: Sender, allowsCompression: Bool = false, maxFrameLength: UInt64 = Self.defaultMaxFrameLength) {
        self.sender = sender
        self.allowsCompression = allowsCompression
        self.maxFrameLength = maxFrameLength
    }

    /// Reads `bytes`, the next bytes of the stream: what they hold up to a frame that breaks the
    /// rules, which then stops the parser (`failure`, with the events before it returned).
    public mutating func feed(_ bytes: ArraySlice<UInt8>) -> [Event] {
        guard failure == nil else { return [] }
        var events: [Event] = []
        do {
            try read(bytes, into: &events)
        } catch {
            failure = error
        }
        return events
    }

    private mutating func read(_ bytes: ArraySlice<UInt8>, into events: inout [Event]) throws(WebSocketProtocolError) {
        var i = bytes.startIndex
        while i < bytes.endIndex {
            if isClosed {
                bytesAfterClose += UInt64(bytes.endIndex - i)
                offset += UInt64(bytes.endIndex - i)
                return
            }
            if frame == nil {
                // Header: from what is pending plus the new bytes, without copying when whole here.
                let header: WebSocketFrameHeader?
                if pendingHeader.isEmpty {
                    header = WebSocketFrameHeader.read(bytes[i...])
                    if header == nil {
                        pendingHeader.append(contentsOf: bytes[i...])
                        offset += UInt64(bytes.endIndex - i)
                        return
                    }
                } else {
                    let had = pendingHeader.count
                    let take = min(WebSocketFrameHeader.maxLength - had, bytes.endIndex - i)
                    pendingHeader.append(contentsOf: bytes[i..<(i + take)])
                    header = WebSocketFrameHeader.read(pendingHeader[...])
                    guard let h = header else {
                        offset += UInt64(take)
                        i += take
                        continue
                    }
                    // Only the bytes of this header are consumed from the new ones.
                    pendingHeader = []
                    let used = h.headerLength - had
                    offset += UInt64(used)
                    i += used
                    try begin(h, start: offset - UInt64(h.headerLength), into: &events)
                    continue
                }
                guard let h = header else { continue }
                offset += UInt64(h.headerLength)
                i += h.headerLength
                try begin(h, start: offset - UInt64(h.headerLength), into: &events)
                continue
            }
            // Payload.
            let n = Int(min(payloadLeft, UInt64(bytes.endIndex - i)))
            let chunk = unmasked(bytes[i..<(i + n)])
            i += n
            offset += UInt64(n)
            payloadLeft -= UInt64(n)
            if frame!.opcode & 0x8 != 0 {
                controlPayload.append(contentsOf: chunk)
            } else if !chunk.isEmpty {
                events.append(.messageData(chunk))
            }
            if payloadLeft == 0 { try endFrame(into: &events) }
        }
    }

    /// Checks a header against the rules and starts its frame (a frame without payload ends at once).
    private mutating func begin(_ h: WebSocketFrameHeader, start: UInt64, into events: inout [Event]) throws(WebSocketProtocolError) {
        func fail(_ code: UInt16, _ reason: String) -> WebSocketProtocolError {
            let e = WebSocketProtocolError(closeCode: code, reason: reason, offset: start, sender: sender)
            failure = e
            return e
        }
        let control = h.opcode & 0x8 != 0
        guard let opcode = WebSocketOpcode(rawValue: h.opcode) else {
            throw fail(WebSocketCloseCode.protocolError, "reserved opcode 0x\(String(h.opcode, radix: 16))")
        }
        if h.payloadLength >> 63 != 0 {
            throw fail(WebSocketCloseCode.protocolError, "frame length \(h.payloadLength) has its most significant bit set")
        }
        if h.payloadLength > maxFrameLength {
            throw fail(WebSocketCloseCode.messageTooBig, "frame of \(h.payloadLength) bytes is over the limit of \(maxFrameLength)")
        }
        switch sender {
        case .client where h.mask == nil: throw fail(WebSocketCloseCode.protocolError, "client frame not masked")
        case .server where h.mask != nil: throw fail(WebSocketCloseCode.protocolError, "server frame masked")
        default: break
        }
        let firstOfMessage = opcode == .text || opcode == .binary
        let allowedReserved: UInt8 = allowsCompression && firstOfMessage ? 0x4 : 0
        if h.reserved & ~allowedReserved != 0 {
            throw fail(WebSocketCloseCode.protocolError, "reserved bits 0x\(String(h.reserved, radix: 16)) set")
        }
        if control {
            if !h.fin { throw fail(WebSocketCloseCode.protocolError, "fragmented control frame") }
            if h.payloadLength > 125 { throw fail(WebSocketCloseCode.protocolError, "control frame of \(h.payloadLength) bytes (125 at most)") }
        } else if opcode == .continuation {
            if !inMessage { throw fail(WebSocketCloseCode.protocolError, "continuation frame without a message") }
        } else {
            if inMessage { throw fail(WebSocketCloseCode.protocolError, "new message inside a fragmented one") }
            inMessage = true
            events.append(.messageStart(opcode, compressed: h.reserved & 0x4 != 0))
        }
        frame = h
        frameStart = start
        payloadLeft = h.payloadLength
        maskPhase = 0
        if payloadLeft == 0 { try endFrame(into: &events) }
    }

    private mutating func endFrame(into events: inout [Event]) throws(WebSocketProtocolError) {
        guard let h = frame else { return }
        frame = nil
        if h.opcode & 0x8 != 0 {
            let payload = controlPayload
            controlPayload = []
            if h.opcode == WebSocketOpcode.close.rawValue {
                if payload.count == 1 {
                    let e = WebSocketProtocolError(closeCode: WebSocketCloseCode.protocolError, reason: "close frame with a one-byte payload",
                                                   offset: frameStart, sender: sender)
                    failure = e
                    throw e
                }
                isClosed = true
            }
            events.append(.control(WebSocketOpcode(rawValue: h.opcode) ?? .close, payload))
            return
        }
        if h.fin {
            inMessage = false
            events.append(.messageEnd)
        }
    }

    /// `bytes` with the current frame's mask undone (as they are for unmasked frames), eight bytes
    /// at a time.
    private mutating func unmasked(_ bytes: ArraySlice<UInt8>) -> [UInt8] {
        guard let m = frame?.mask else { return Array(bytes) }
        let key = [m.0, m.1, m.2, m.3]
        let phase = maskPhase
        // The key as it falls on eight bytes starting at `phase`, in memory order.
        var word: UInt64 = 0
        for k in 0..<8 { word |= UInt64(key[(phase + k) & 3]) << (8 * UInt64(k)) }
        let out = [UInt8](unsafeUninitializedCapacity: bytes.count) { buffer, count in
            bytes.withUnsafeBufferPointer { p in
                guard let src = p.baseAddress, let dst = buffer.baseAddress else { return }
                let n = p.count
                var i = 0
                while i + 8 <= n {
                    let x = UnsafeRawPointer(src + i).loadUnaligned(as: UInt64.self)
                    UnsafeMutableRawPointer(dst + i).storeBytes(of: x ^ word.littleEndian, as: UInt64.self)
                    i += 8
                }
                while i < n {
                    dst[i] = src[i] ^ key[(phase + i) & 3]
                    i += 1
                }
            }
            count = bytes.count
        }
        maskPhase = (phase + bytes.count) & 3
        return out
    }
}

/// A frame that breaks RFC 6455: the close code to answer with, what was wrong, and where.
public struct WebSocketProtocolError: Error, Sendable, Equatable, CustomStringConvertible {
    /// 1002 (protocol error) or 1009 (too big).
    public var closeCode: UInt16
    public var reason: String
    /// Stream offset of the offending frame's first byte: every byte before it was well formed.
    public var offset: UInt64
    public var sender: WebSocketStreamParser.Sender

    public var description: String { "\(sender) frame at byte \(offset): \(reason) (close \(closeCode))" }
}

/// The close code and reason of a close frame's payload (RFC 6455 §5.5.1); nil for an empty payload.
public struct WebSocketClose: Sendable, Hashable {
    public var code: UInt16
    public var reason: String

    public init(code: UInt16, reason: String) {
        self.code = code
        self.reason = reason
    }

    public init?(payload: [UInt8]) {
        guard payload.count >= 2 else { return nil }
        code = UInt16(payload[0]) << 8 | UInt16(payload[1])
        reason = String(decoding: payload[2...], as: UTF8.self)
    }
}

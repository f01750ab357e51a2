/// The vocabulary of RFC 6455 frames: opcodes, close codes, and the frame writer the proxy uses to
/// close a connection whose peer broke the protocol.
public enum WebSocketOpcode: UInt8, Sendable, Hashable {
    case continuation = 0x0
    case text = 0x1
    case binary = 0x2
    case close = 0x8
    case ping = 0x9
    case pong = 0xA

    /// Close, ping and pong (opcodes 0x8-0xF): never fragmented, at most 125 bytes of payload.
    public var isControl: Bool { rawValue & 0x8 != 0 }
}

/// Close status codes (RFC 6455 §7.4.1) that Mouchard itself sends or reads.
public enum WebSocketCloseCode {
    public static let normal: UInt16 = 1000
    public static let goingAway: UInt16 = 1001
    /// The peer broke the framing rules (a reserved opcode or bit, a length with its top bit set,
    /// a fragmented control frame, a masking rule broken...).
    public static let protocolError: UInt16 = 1002
    /// A frame longer than the limit Mouchard accepts.
    public static let messageTooBig: UInt16 = 1009
}

/// A frame's header (RFC 6455 §5.2), as read off the wire.
public struct WebSocketFrameHeader: Sendable, Hashable {
    public var fin: Bool
    /// RSV1, RSV2, RSV3 as the three low bits (RSV1 = 4: `permessage-deflate`'s "compressed" bit).
    public var reserved: UInt8
    public var opcode: UInt8
    /// The masking key (client frames), nil when the frame is not masked (server frames).
    public var mask: (UInt8, UInt8, UInt8, UInt8)?
    public var payloadLength: UInt64
    /// Bytes of the header itself (2 to 14).
    public var headerLength: Int

    public static func == (a: Self, b: Self) -> Bool {
        a.fin == b.fin && a.reserved == b.reserved && a.opcode == b.opcode && a.payloadLength == b.payloadLength
            && a.headerLength == b.headerLength && a.mask.map { [$0.0, $0.1, $0.2, $0.3] } == b.mask.map { [$0.0, $0.1, $0.2, $0.3] }
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(fin)
        hasher.combine(reserved)
        hasher.combine(opcode)
        hasher.combine(payloadLength)
    }

    /// The largest header: 2 bytes, 8 of extended length, 4 of masking key.
    public static let maxLength = 14

    /// The header at the start of `bytes`: nil when more bytes are needed. Reads only, checks nothing
    /// beyond the shape (the rules are `WebSocketStreamParser`'s).
    public static func read(_ bytes: ArraySlice<UInt8>) -> WebSocketFrameHeader? {
        guard bytes.count >= 2 else { return nil }
        let s = bytes.startIndex
        let b0 = bytes[s], b1 = bytes[s + 1]
        let masked = b1 & 0x80 != 0
        var length = UInt64(b1 & 0x7F)
        var i = s + 2
        let extra = length == 126 ? 2 : length == 127 ? 8 : 0
        guard bytes.count >= 2 + extra + (masked ? 4 : 0) else { return nil }
        if extra > 0 {
            length = 0
            for _ in 0..<extra {
                length = length << 8 | UInt64(bytes[i])
                i += 1
            }
        }
        var mask: (UInt8, UInt8, UInt8, UInt8)?
        if masked {
            mask = (bytes[i], bytes[i + 1], bytes[i + 2], bytes[i + 3])
            i += 4
        }
        return WebSocketFrameHeader(fin: b0 & 0x80 != 0, reserved: (b0 >> 4) & 0x7, opcode: b0 & 0x0F, mask: mask,
                                    payloadLength: length, headerLength: i - s)
    }
}

/// Writes frames: the close frames the proxy sends when it ends a connection, and test traffic.
public enum WebSocketFrameWriter {
    /// One frame: masked with `mask` when given (frames a client sends), `compressed` sets RSV1.
    public static func frame(opcode: WebSocketOpcode, payload: [UInt8], fin: Bool = true, compressed: Bool = false,
                             mask: (UInt8, UInt8, UInt8, UInt8)? = nil) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(payload.count + WebSocketFrameHeader.maxLength)
        out.append((fin ? 0x80 : 0) | (compressed ? 0x40 : 0) | opcode.rawValue)
        let maskBit: UInt8 = mask == nil ? 0 : 0x80
        if payload.count < 126 {
            out.append(maskBit | UInt8(payload.count))
        } else if payload.count <= 0xFFFF {
            out.append(maskBit | 126)
            out.append(UInt8(payload.count >> 8))
            out.append(UInt8(payload.count & 0xFF))
        } else {
            out.append(maskBit | 127)
            for k in (0..<8).reversed() { out.append(UInt8(truncatingIfNeeded: UInt64(payload.count) >> (8 * UInt64(k)))) }
        }
        guard let mask else {
            out.append(contentsOf: payload)
            return out
        }
        let key = [mask.0, mask.1, mask.2, mask.3]
        out.append(contentsOf: key)
        for (k, b) in payload.enumerated() { out.append(b ^ key[k & 3]) }
        return out
    }

    /// A close frame with `code` and a short UTF-8 `reason` (cut to fit a control frame's 125 bytes).
    public static func close(code: UInt16, reason: String, mask: (UInt8, UInt8, UInt8, UInt8)? = nil) -> [UInt8] {
        let payload = [UInt8(code >> 8), UInt8(code & 0xFF)] + Array(reason.utf8.prefix(123))
        return frame(opcode: .close, payload: payload, mask: mask)
    }
}

/// A QUIC variable-length integer (RFC 9000 §16): 1, 2, 4 or 8 bytes, the two top bits of the
/// first byte giving the length; values up to 2^62 - 1.
public enum QUICVarint {
    /// Reads the integer at `offset` (relative to the slice's start) and moves past it; nil when
    /// the bytes end first.
    public static func read(_ b: ArraySlice<UInt8>, at offset: inout Int) -> UInt64? {
        guard let first = b.u8(at: offset) else { return nil }
        let length = 1 << Int(first >> 6)
        guard b.field(at: offset, length: length) != nil else { return nil }
        var value = UInt64(first & 0x3F)
        for i in 1..<length { value = value << 8 | UInt64(b[b.startIndex + offset + i]) }
        offset += length
        return value
    }

    /// `read` as an Int no larger than `limit` (a length or an offset that must fit in memory).
    public static func readLength(_ b: ArraySlice<UInt8>, at offset: inout Int, limit: Int = Int(Int32.max)) -> Int? {
        guard let v = read(b, at: &offset), v <= UInt64(limit) else { return nil }
        return Int(v)
    }
}

/// The parts of a QUIC packet header readable before header protection is removed (RFC 9000
/// §17): packet type, version, connection IDs, where the protected packet number starts and where
/// the packet ends. Several packets may share a datagram (coalesced): long-header packets carry
/// their length; a short-header (1-RTT) packet takes the rest of the datagram.
public struct QUICPacketHeader: Sendable, Hashable {
    public enum Kind: Sendable, Hashable {
        case initial, zeroRTT, handshake, retry, oneRTT, versionNegotiation
    }

    public var kind: Kind
    /// Offset of the packet's first byte in the datagram.
    public var start: Int
    /// 0 for short headers (they carry no version).
    public var version: UInt32
    public var destinationConnectionID: [UInt8]
    public var sourceConnectionID: [UInt8]
    /// Offset of the protected packet number in the datagram.
    public var packetNumberOffset: Int
    /// Offset just past this packet in the datagram.
    public var end: Int

    public static let maxConnectionIDLength = 20

    /// The packet starting at `offset` of `datagram` (offsets relative to its start), nil when its
    /// header is malformed or cut short. Short headers do not say how long their destination
    /// connection ID is: `shortHeaderConnectionIDLength` is the length the receiver chose.
    public static func parse(_ datagram: ArraySlice<UInt8>, at offset: Int, shortHeaderConnectionIDLength: Int) -> QUICPacketHeader? {
        guard let first = datagram.u8(at: offset) else { return nil }
        if first & 0x80 == 0 {
            let dcidLength = shortHeaderConnectionIDLength
            guard first & 0x40 != 0, dcidLength <= maxConnectionIDLength,
                  let dcid = datagram.field(at: offset + 1, length: dcidLength) else { return nil }
            return QUICPacketHeader(kind: .oneRTT, start: offset, version: 0, destinationConnectionID: Array(dcid), sourceConnectionID: [],
                                    packetNumberOffset: offset + 1 + dcidLength, end: datagram.count)
        }
        guard let version = datagram.be32(at: offset + 1), let dcidLength = datagram.u8(at: offset + 5),
              Int(dcidLength) <= maxConnectionIDLength, let dcid = datagram.field(at: offset + 6, length: Int(dcidLength))
        else { return nil }
        var o = offset + 6 + Int(dcidLength)
        guard let scidLength = datagram.u8(at: o), Int(scidLength) <= maxConnectionIDLength,
              let scid = datagram.field(at: o + 1, length: Int(scidLength)) else { return nil }
        o += 1 + Int(scidLength)
        if version == 0 {
            return QUICPacketHeader(kind: .versionNegotiation, start: offset, version: 0, destinationConnectionID: Array(dcid),
                                    sourceConnectionID: Array(scid), packetNumberOffset: o, end: datagram.count)
        }
        let type = (first >> 4) & 0x03
        let kind: Kind
        if version == QUICInitialPacket.version2 {
            kind = [Kind.retry, .initial, .zeroRTT, .handshake][Int(type)]
        } else {
            kind = [Kind.initial, .zeroRTT, .handshake, .retry][Int(type)]
        }
        if kind == .retry {
            return QUICPacketHeader(kind: .retry, start: offset, version: version, destinationConnectionID: Array(dcid),
                                    sourceConnectionID: Array(scid), packetNumberOffset: o, end: datagram.count)
        }
        if kind == .initial {
            guard let tokenLength = QUICVarint.readLength(datagram, at: &o, limit: datagram.count) else { return nil }
            o += tokenLength
        }
        guard let length = QUICVarint.readLength(datagram, at: &o, limit: datagram.count), o + length <= datagram.count,
              length >= 1 else { return nil }
        return QUICPacketHeader(kind: kind, start: offset, version: version, destinationConnectionID: Array(dcid),
                                sourceConnectionID: Array(scid), packetNumberOffset: o, end: o + length)
    }

    /// The full packet number from its truncated form (RFC 9000 §A.3), given the largest one
    /// received so far in its packet number space (nil: none yet).
    public static func packetNumber(truncated: UInt64, length: Int, largest: UInt64?) -> UInt64 {
        let expected = largest.map { $0 &+ 1 } ?? 0
        let window = UInt64(1) << UInt64(length * 8)
        let half = window / 2
        let candidate = (expected & ~(window - 1)) | truncated
        if candidate + half <= expected, candidate < (UInt64(1) << 62) - window { return candidate + window }
        if candidate > expected + half, candidate >= window { return candidate - window }
        return candidate
    }
}

/// The frames of a decrypted QUIC packet payload (RFC 9000 §19) that carry data: CRYPTO (the TLS
/// handshake) and STREAM; every other frame is read only to be skipped. An unknown frame type or a
/// frame cut short ends the walk (its length cannot be known): `malformed` says so.
public enum QUICFrame: Sendable, Hashable {
    case crypto(offset: UInt64, data: ArraySlice<UInt8>)
    case stream(id: UInt64, offset: UInt64, data: ArraySlice<UInt8>, fin: Bool)
    case connectionClose

    public static func frames(in payload: ArraySlice<UInt8>) -> (frames: [QUICFrame], malformed: Bool) {
        var out: [QUICFrame] = []
        var o = 0
        func skipVarints(_ n: Int) -> Bool {
            for _ in 0..<n where QUICVarint.read(payload, at: &o) == nil { return false }
            return true
        }
        while o < payload.count {
            guard let type = QUICVarint.read(payload, at: &o) else { return (out, true) }
            switch type {
            case 0x00, 0x01, 0x1E:
                continue  // PADDING, PING, HANDSHAKE_DONE
            case 0x02, 0x03:
                // ACK: largest, delay, range count, first range, ranges, (ECN counts).
                guard skipVarints(2), let count = QUICVarint.readLength(payload, at: &o, limit: 1 << 16), skipVarints(1),
                      skipVarints(count * 2 + (type == 0x03 ? 3 : 0)) else { return (out, true) }
            case 0x04:
                guard skipVarints(3) else { return (out, true) }  // RESET_STREAM
            case 0x05:
                guard skipVarints(2) else { return (out, true) }  // STOP_SENDING
            case 0x06:
                guard let offset = QUICVarint.read(payload, at: &o), let length = QUICVarint.readLength(payload, at: &o),
                      let data = payload.field(at: o, length: length) else { return (out, true) }
                o += length
                out.append(.crypto(offset: offset, data: data))
            case 0x07:
                guard let length = QUICVarint.readLength(payload, at: &o), payload.field(at: o, length: length) != nil
                else { return (out, true) }
                o += length  // NEW_TOKEN
            case 0x08...0x0F:
                guard let id = QUICVarint.read(payload, at: &o) else { return (out, true) }
                var offset: UInt64 = 0
                if type & 0x04 != 0 {
                    guard let v = QUICVarint.read(payload, at: &o) else { return (out, true) }
                    offset = v
                }
                var length = payload.count - o
                if type & 0x02 != 0 {
                    guard let n = QUICVarint.readLength(payload, at: &o) else { return (out, true) }
                    length = n
                }
                guard let data = payload.field(at: o, length: length) else { return (out, true) }
                o += length
                out.append(.stream(id: id, offset: offset, data: data, fin: type & 0x01 != 0))
            case 0x10, 0x12, 0x13, 0x14, 0x16, 0x17:
                guard skipVarints(1) else { return (out, true) }  // MAX_DATA, MAX_STREAMS, *_BLOCKED
            case 0x11, 0x15:
                guard skipVarints(2) else { return (out, true) }  // MAX_STREAM_DATA, STREAM_DATA_BLOCKED
            case 0x18:
                // NEW_CONNECTION_ID: sequence, retire prior to, length (1 byte), id, 16-byte reset token.
                guard skipVarints(2), let length = payload.u8(at: o), payload.field(at: o + 1, length: Int(length) + 16) != nil
                else { return (out, true) }
                o += 1 + Int(length) + 16
            case 0x19:
                guard skipVarints(1) else { return (out, true) }  // RETIRE_CONNECTION_ID
            case 0x1A, 0x1B:
                guard payload.field(at: o, length: 8) != nil else { return (out, true) }
                o += 8  // PATH_CHALLENGE, PATH_RESPONSE
            case 0x1C, 0x1D:
                guard skipVarints(type == 0x1C ? 2 : 1), let length = QUICVarint.readLength(payload, at: &o),
                      payload.field(at: o, length: length) != nil else { return (out, true) }
                o += length
                out.append(.connectionClose)
            case 0x30, 0x31:
                // DATAGRAM (RFC 9221): with or without a length.
                if type == 0x31 {
                    guard let length = QUICVarint.readLength(payload, at: &o), payload.field(at: o, length: length) != nil
                    else { return (out, true) }
                    o += length
                } else {
                    o = payload.count
                }
            default:
                return (out, true)
            }
        }
        return (out, false)
    }
}

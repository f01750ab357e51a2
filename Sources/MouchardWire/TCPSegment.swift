/// A TCP header (RFC 9293) and its payload.
public struct TCPSegment: Sendable {
    public var sourcePort: UInt16
    public var destinationPort: UInt16
    public var sequence: UInt32
    public var acknowledgment: UInt32
    public var flags: Flags
    public var window: UInt16
    public var payload: ArraySlice<UInt8>

    /// The control bits.
    public struct Flags: OptionSet, Sendable, Hashable {
        public var rawValue: UInt8
        public init(rawValue: UInt8) { self.rawValue = rawValue }
        public static let fin = Flags(rawValue: 0x01)
        public static let syn = Flags(rawValue: 0x02)
        public static let rst = Flags(rawValue: 0x04)
        public static let psh = Flags(rawValue: 0x08)
        public static let ack = Flags(rawValue: 0x10)
    }

    /// Nil when the header is cut or its data offset is impossible.
    public init?(_ bytes: ArraySlice<UInt8>) {
        guard let sp = bytes.be16(at: 0), let dp = bytes.be16(at: 2), let seq = bytes.be32(at: 4),
              let ack = bytes.be32(at: 8), let off = bytes.u8(at: 12), let fl = bytes.u8(at: 13),
              let win = bytes.be16(at: 14) else { return nil }
        let headerLength = Int(off >> 4) * 4
        guard headerLength >= 20, let payload = bytes.tail(from: headerLength) else { return nil }
        sourcePort = sp
        destinationPort = dp
        sequence = seq
        acknowledgment = ack
        flags = Flags(rawValue: fl)
        window = win
        self.payload = payload
    }
}

/// Recognises a QUIC Initial packet (RFC 9000 long header, v1 and v2): what tells that a UDP
/// flow is QUIC (HTTP/3) even though its payload is encrypted.
public struct QUICInitialPacket: Sendable, Hashable {
    public var version: UInt32
    public var destinationConnectionIDLength: Int

    public static let version1: UInt32 = 0x0000_0001
    public static let version2: UInt32 = 0x6B33_43CF

    /// Nil unless `datagram` starts with a well-formed Initial long header whose length fits.
    public init?(_ datagram: ArraySlice<UInt8>) {
        guard let first = datagram.u8(at: 0), first & 0x80 != 0, let version = datagram.be32(at: 1), version != 0
        else { return nil }
        let type = (first >> 4) & 0x03
        // Initial is type 0 in v1 and drafts, type 1 in v2.
        let isInitial = version == QUICInitialPacket.version2 ? type == 1 : type == 0
        guard isInitial, first & 0x40 != 0 else { return nil }
        guard let dcidLen = datagram.u8(at: 5), dcidLen <= 20 else { return nil }
        var o = 6 + Int(dcidLen)
        guard let scidLen = datagram.u8(at: o), scidLen <= 20 else { return nil }
        o += 1 + Int(scidLen)
        guard let tokenLength = QUICInitialPacket.varint(datagram, at: &o) else { return nil }
        o += Int(tokenLength)
        guard let length = QUICInitialPacket.varint(datagram, at: &o), length >= 1, o + Int(length) <= datagram.count
        else { return nil }
        self.version = version
        self.destinationConnectionIDLength = Int(dcidLen)
    }

    /// A QUIC variable-length integer (RFC 9000 §16).
    public static func varint(_ b: ArraySlice<UInt8>, at o: inout Int) -> UInt64? {
        guard let first = b.u8(at: o) else { return nil }
        let length = 1 << Int(first >> 6)
        guard b.field(at: o, length: length) != nil else { return nil }
        var v = UInt64(first & 0x3F)
        for i in 1..<length { v = v << 8 | UInt64(b.u8(at: o + i) ?? 0) }
        o += length
        guard v < (1 << 32) else { return nil }
        return v
    }
}

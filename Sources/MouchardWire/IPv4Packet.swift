/// An IPv4 header (RFC 791) and its payload, trimmed to the header's total length.
public struct IPv4Packet: Sendable {
    public var source: IPAddress
    public var destination: IPAddress
    /// The transport protocol number (6 TCP, 17 UDP...).
    public var protocolNumber: UInt8
    public var identification: UInt16
    /// Offset of this fragment's data in the original datagram, in bytes.
    public var fragmentOffset: Int
    public var moreFragments: Bool
    public var payload: ArraySlice<UInt8>

    /// True when this packet is a piece of a fragmented datagram.
    public var isFragment: Bool { moreFragments || fragmentOffset != 0 }

    /// Parses the header; nil when it is not IPv4 or is cut before its options end.
    /// A total length beyond the captured bytes is tolerated (snap length): the payload is what
    /// was captured. Ethernet padding beyond the total length is dropped.
    public init?(_ bytes: ArraySlice<UInt8>) {
        guard let vihl = bytes.u8(at: 0), vihl >> 4 == 4 else { return nil }
        let headerLength = Int(vihl & 0x0F) * 4
        guard headerLength >= 20, let total = bytes.be16(at: 2), let ident = bytes.be16(at: 4),
              let flags = bytes.be16(at: 6), let proto = bytes.u8(at: 9),
              let src = IPAddress.read(bytes, at: 12, ipv6: false), let dst = IPAddress.read(bytes, at: 16, ipv6: false),
              Int(total) >= headerLength, headerLength <= bytes.count
        else { return nil }
        let end = Swift.min(Int(total), bytes.count)
        guard let payload = bytes.field(at: headerLength, length: end - headerLength) else { return nil }
        self.source = src
        self.destination = dst
        self.protocolNumber = proto
        self.identification = ident
        self.fragmentOffset = Int(flags & 0x1FFF) * 8
        self.moreFragments = flags & 0x2000 != 0
        self.payload = payload
    }
}

/// An IPv6 header (RFC 8200) with its extension headers walked to the upper-layer protocol.
public struct IPv6Packet: Sendable {
    public var source: IPAddress
    public var destination: IPAddress
    /// The upper-layer protocol after the extension headers (6 TCP, 17 UDP, 58 ICMPv6, 59 none...).
    public var protocolNumber: UInt8
    /// Set when a Fragment header was present: offset in bytes, more-fragments flag, identification.
    public var fragment: (offset: Int, more: Bool, identification: UInt32)?
    public var payload: ArraySlice<UInt8>

    /// Extension-header chains longer than this are treated as garbage.
    static let maxExtensionHeaders = 16

    public var isFragment: Bool { fragment.map { $0.more || $0.offset != 0 } ?? false }

    /// For a fragment: the bytes after its Fragment header (the fragmentable part that offsets
    /// count from) and the Fragment header's next-header value, which reassembly needs.
    public var fragmentable: (next: UInt8, bytes: ArraySlice<UInt8>)?

    /// Parses the fixed header and walks Hop-by-Hop (0), Routing (43), Fragment (44),
    /// Destination Options (60), AH (51) and Mobility (135). Nil when not IPv6 or cut short.
    public init?(_ bytes: ArraySlice<UInt8>) {
        guard let v = bytes.u8(at: 0), v >> 4 == 6, let payloadLength = bytes.be16(at: 4),
              let next = bytes.u8(at: 6), let src = IPAddress.read(bytes, at: 8, ipv6: true),
              let dst = IPAddress.read(bytes, at: 24, ipv6: true) else { return nil }
        // Jumbograms (length 0) and snapped packets: use what was captured.
        let available = bytes.count - 40
        let length = payloadLength == 0 ? available : Swift.min(Int(payloadLength), available)
        guard length >= 0, let rest = bytes.field(at: 40, length: length),
              let walked = IPv6Packet.walk(next: next, rest) else { return nil }
        self.source = src
        self.destination = dst
        self.protocolNumber = walked.protocolNumber
        self.fragment = walked.fragment
        self.fragmentable = walked.fragmentable
        self.payload = walked.payload
    }

    /// The same packet with a reassembled datagram as its content: `next` and `bytes` are what
    /// followed the Fragment header, all fragments put together. Nil when its headers are bad.
    public func reassembled(next: UInt8, bytes: ArraySlice<UInt8>) -> IPv6Packet? {
        guard let walked = IPv6Packet.walk(next: next, bytes), walked.fragment == nil else { return nil }
        var p = self
        p.protocolNumber = walked.protocolNumber
        p.fragment = nil
        p.fragmentable = nil
        p.payload = walked.payload
        return p
    }

    /// Walks the extension headers from `next` over `rest` to the upper layer (or a fragment's data).
    static func walk(next first: UInt8, _ bytes: ArraySlice<UInt8>) -> (protocolNumber: UInt8, payload: ArraySlice<UInt8>,
        fragment: (offset: Int, more: Bool, identification: UInt32)?, fragmentable: (next: UInt8, bytes: ArraySlice<UInt8>)?)? {
        var next = first
        var rest = bytes
        var fragment: (offset: Int, more: Bool, identification: UInt32)?
        var fragmentable: (next: UInt8, bytes: ArraySlice<UInt8>)?
        var walked = 0
        loop: while true {
            switch next {
            case 0, 43, 60, 135:
                guard let nh = rest.u8(at: 0), let len = rest.u8(at: 1) else { return nil }
                let size = (Int(len) + 1) * 8
                guard let after = rest.tail(from: size) else { return nil }
                next = nh
                rest = after
            case 44:
                // A second Fragment header is garbage (RFC 8200 §4.5: one per packet).
                guard fragment == nil, let nh = rest.u8(at: 0), let off = rest.be16(at: 2), let ident = rest.be32(at: 4),
                      let after = rest.tail(from: 8) else { return nil }
                fragment = (offset: Int(off & 0xFFF8), more: off & 1 != 0, identification: ident)
                fragmentable = (next: nh, bytes: after)
                next = nh
                rest = after
                // Only the first fragment carries the following headers.
                if fragment?.offset != 0 { break loop }
            case 51:
                guard let nh = rest.u8(at: 0), let len = rest.u8(at: 1) else { return nil }
                guard let after = rest.tail(from: (Int(len) + 2) * 4) else { return nil }
                next = nh
                rest = after
            default:
                break loop
            }
            walked += 1
            if walked > IPv6Packet.maxExtensionHeaders { return nil }
        }
        return (next, rest, fragment, fragmentable)
    }
}

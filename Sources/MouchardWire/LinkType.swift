/// The link-layer header type of a capture (tcpdump's LINKTYPE_ values), which says how to
/// find the network-layer packet inside each captured frame.
public struct LinkType: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
    public var rawValue: UInt32
    public init(rawValue: UInt32) { self.rawValue = rawValue }

    /// BSD loopback: a 4-byte address family in the capturing host's byte order.
    public static let null = LinkType(rawValue: 0)
    public static let ethernet = LinkType(rawValue: 1)
    /// Raw IP (IPv4 or IPv6, told apart by the version nibble). 101 is the file value; 12/14 are
    /// what some systems use for DLT_RAW.
    public static let raw = LinkType(rawValue: 101)
    public static let rawAlt12 = LinkType(rawValue: 12)
    public static let rawAlt14 = LinkType(rawValue: 14)
    /// OpenBSD loopback: like `null` but the family is big-endian.
    public static let loop = LinkType(rawValue: 108)
    /// Linux cooked capture v1 (`tcpdump -i any`).
    public static let linuxSLL = LinkType(rawValue: 113)
    public static let ipv4 = LinkType(rawValue: 228)
    public static let ipv6 = LinkType(rawValue: 229)
    /// Linux cooked capture v2.
    public static let linuxSLL2 = LinkType(rawValue: 276)

    public var description: String {
        switch self {
        case .null: return "NULL"
        case .ethernet: return "EN10MB"
        case .raw, .rawAlt12, .rawAlt14: return "RAW"
        case .loop: return "LOOP"
        case .linuxSLL: return "LINUX_SLL"
        case .linuxSLL2: return "LINUX_SLL2"
        case .ipv4: return "IPV4"
        case .ipv6: return "IPV6"
        default: return "linktype \(rawValue)"
        }
    }
}

/// The network-layer protocol found inside a frame.
public enum NetworkProtocol: Sendable, Hashable {
    case ipv4
    case ipv6
    /// Anything else (ARP, LLDP...): the EtherType or address family, for counting.
    case other(UInt32)
}

/// A frame with its link header removed: which network protocol follows and its bytes.
public struct LinkPayload: Sendable {
    public var network: NetworkProtocol
    public var bytes: ArraySlice<UInt8>
    public init(network: NetworkProtocol, bytes: ArraySlice<UInt8>) {
        self.network = network
        self.bytes = bytes
    }
}

/// Removes the link-layer header of a captured frame according to its link type.
public enum LinkLayerDecoder {
    /// The network payload of `frame`, or nil when the link type is unknown or the header is cut.
    public static func decode(_ frame: ArraySlice<UInt8>, linkType: LinkType) -> LinkPayload? {
        switch linkType {
        case .ethernet: return EthernetFrame.payload(of: frame)
        case .linuxSLL: return LinuxCookedHeader.payloadV1(of: frame)
        case .linuxSLL2: return LinuxCookedHeader.payloadV2(of: frame)
        case .null, .loop: return LoopbackHeader.payload(of: frame, bigEndian: linkType == .loop)
        case .raw, .rawAlt12, .rawAlt14: return rawIP(frame)
        case .ipv4: return LinkPayload(network: .ipv4, bytes: frame)
        case .ipv6: return LinkPayload(network: .ipv6, bytes: frame)
        default: return nil
        }
    }

    /// Raw IP: the version nibble says which.
    static func rawIP(_ frame: ArraySlice<UInt8>) -> LinkPayload? {
        guard let first = frame.u8(at: 0) else { return nil }
        switch first >> 4 {
        case 4: return LinkPayload(network: .ipv4, bytes: frame)
        case 6: return LinkPayload(network: .ipv6, bytes: frame)
        default: return LinkPayload(network: .other(UInt32(first >> 4)), bytes: frame)
        }
    }

    /// Maps an EtherType to the network protocol.
    static func network(forEtherType type: UInt16) -> NetworkProtocol {
        switch type {
        case 0x0800: return .ipv4
        case 0x86DD: return .ipv6
        default: return .other(UInt32(type))
        }
    }
}

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
    /// IEEE 802.11 frames without a radio header.
    public static let ieee80211 = LinkType(rawValue: 105)
    /// IEEE 802.11 frames behind a radiotap header (monitor mode).
    public static let ieee80211Radiotap = LinkType(rawValue: 127)
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
        case .ieee80211: return "IEEE802_11"
        case .ieee80211Radiotap: return "IEEE802_11_RADIOTAP"
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
    /// An 802.11 frame that carries no network packet (management, encrypted...).
    case wifi(IEEE80211Frame.Kind)

    /// How a warning names it: `ARP (0x0806)`, `802.11 management`.
    public var name: String {
        switch self {
        case .ipv4: return "IPv4"
        case .ipv6: return "IPv6"
        case .other(let type):
            let digits = String(type, radix: 16, uppercase: true)
            let hex = "0x" + String(repeating: "0", count: max(0, 4 - digits.count)) + digits
            if let known = LinkLayerDecoder.etherTypeNames[type] { return "\(known) (\(hex))" }
            return "protocol \(hex)"
        case .wifi(let kind):
            switch kind {
            case .management: return "802.11 management"
            case .control: return "802.11 control"
            case .noData: return "802.11 data without body"
            case .protected: return "802.11 encrypted data"
            case .notSNAP: return "802.11 data without LLC/SNAP"
            case .badFCS: return "802.11 damaged (bad FCS)"
            }
        }
    }
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
        case .ieee80211: return IEEE80211Frame.payload(of: frame, hasFCS: false)
        case .ieee80211Radiotap: return IEEE80211Frame.payloadAfterRadiotap(frame)
        default: return nil
        }
    }

    /// True when `decode` knows the link type (so a nil result means a cut header, not an unknown type).
    public static func supports(_ linkType: LinkType) -> Bool {
        switch linkType {
        case .ethernet, .linuxSLL, .linuxSLL2, .null, .loop, .raw, .rawAlt12, .rawAlt14, .ipv4, .ipv6,
             .ieee80211, .ieee80211Radiotap: return true
        default: return false
        }
    }

    /// 802.1Q (0x8100), 802.1ad (0x88A8) and pre-standard QinQ (0x9100) VLAN tags.
    static let vlanEtherTypes: Set<UInt16> = [0x8100, 0x88A8, 0x9100]
    /// PPPoE session stage (RFC 2516): a 6-byte header, then a PPP protocol number.
    static let pppoeSession: UInt16 = 0x8864
    static let pppoeHeaderLength = 6
    /// PPP protocol numbers of IPv4 and IPv6 (RFC 1332, RFC 5072).
    static let pppIPv4: UInt16 = 0x0021
    static let pppIPv6: UInt16 = 0x0057
    /// Tags (VLAN, PPPoE) more than this deep are treated as garbage.
    static let maxNestedTags = 8

    /// Names of EtherTypes seen in phone captures, for warnings.
    static let etherTypeNames: [UInt32: String] = [
        0x0806: "ARP", 0x8035: "RARP", 0x88CC: "LLDP", 0x888E: "EAPOL (802.1X)", 0x8863: "PPPoE discovery",
        0x8864: "PPPoE session (not IP)", 0x88E5: "MACsec", 0x8847: "MPLS", 0x8848: "MPLS", 0x893A: "IEEE 1905",
        0x88B5: "local experimental", 0x9000: "loopback test", 0x22F0: "AVTP", 0x88F7: "PTP",
    ]

    /// The payload after an EtherType (Ethernet, Linux cooked, LLC/SNAP), through any stack of VLAN
    /// tags and a PPPoE session header; nil when a tag is cut short or the stack is absurdly deep.
    static func payload(etherType: UInt16, after bytes: ArraySlice<UInt8>) -> LinkPayload? {
        var type = etherType
        var rest = bytes
        for _ in 0...maxNestedTags {
            if vlanEtherTypes.contains(type) {
                guard let inner = rest.be16(at: 2), let after = rest.tail(from: 4) else { return nil }
                type = inner
                rest = after
            } else if type == pppoeSession {
                guard let ppp = rest.be16(at: pppoeHeaderLength), let after = rest.tail(from: pppoeHeaderLength + 2) else { return nil }
                switch ppp {
                case pppIPv4: return LinkPayload(network: .ipv4, bytes: after)
                case pppIPv6: return LinkPayload(network: .ipv6, bytes: after)
                default: return LinkPayload(network: .other(UInt32(pppoeSession)), bytes: after)
                }
            } else {
                if type < 0x0600 { return LinkPayload(network: .other(UInt32(type)), bytes: rest) }  // 802.3 length: LLC
                return LinkPayload(network: network(forEtherType: type), bytes: rest)
            }
        }
        return nil
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

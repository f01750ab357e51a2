/// Ethernet II frames, with any number of stacked 802.1Q / 802.1ad (QinQ) VLAN tags.
public enum EthernetFrame {
    /// Tags more than this deep are treated as garbage.
    static let maxVLANTags = 8

    /// The payload after the MAC header and VLAN tags, or nil when the header is cut.
    public static func payload(of frame: ArraySlice<UInt8>) -> LinkPayload? {
        guard var type = frame.be16(at: 12) else { return nil }
        var offset = 14
        var tags = 0
        // 0x8100 802.1Q, 0x88A8 802.1ad, 0x9100 pre-standard QinQ.
        while type == 0x8100 || type == 0x88A8 || type == 0x9100 {
            tags += 1
            guard tags <= maxVLANTags, let inner = frame.be16(at: offset + 2) else { return nil }
            type = inner
            offset += 4
        }
        guard let rest = frame.tail(from: offset) else { return nil }
        if type < 0x0600 { return LinkPayload(network: .other(UInt32(type)), bytes: rest) }  // 802.3 length: LLC
        return LinkPayload(network: LinkLayerDecoder.network(forEtherType: type), bytes: rest)
    }
}

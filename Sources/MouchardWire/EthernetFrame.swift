/// Ethernet II frames, with any number of stacked 802.1Q / 802.1ad (QinQ) VLAN tags and PPPoE.
public enum EthernetFrame {
    /// The payload after the MAC header, VLAN tags and PPPoE header, or nil when a header is cut.
    public static func payload(of frame: ArraySlice<UInt8>) -> LinkPayload? {
        guard let type = frame.be16(at: 12), let rest = frame.tail(from: 14) else { return nil }
        return LinkLayerDecoder.payload(etherType: type, after: rest)
    }
}

/// Linux "cooked" capture headers, what `tcpdump -i any` writes: SLL (16 bytes, link type 113)
/// and SLL2 (20 bytes, link type 276). Both carry the protocol as an EtherType.
public enum LinuxCookedHeader {
    /// SLL: packet type(2) ARPHRD(2) addr len(2) addr(8) protocol(2).
    public static func payloadV1(of frame: ArraySlice<UInt8>) -> LinkPayload? {
        guard let proto = frame.be16(at: 14), let rest = frame.tail(from: 16) else { return nil }
        return LinkLayerDecoder.payload(etherType: proto, after: rest)
    }

    /// SLL2: protocol(2) reserved(2) ifindex(4) ARPHRD(2) packet type(1) addr len(1) addr(8).
    public static func payloadV2(of frame: ArraySlice<UInt8>) -> LinkPayload? {
        guard let proto = frame.be16(at: 0), let rest = frame.tail(from: 20) else { return nil }
        return LinkLayerDecoder.payload(etherType: proto, after: rest)
    }
}

/// BSD loopback / null encapsulation: a 4-byte address family before the IP packet, in the
/// capturing host's byte order (`NULL`) or big-endian (`LOOP`). IPv6 has several family values
/// across BSDs (24, 28, 30).
public enum LoopbackHeader {
    public static func payload(of frame: ArraySlice<UInt8>, bigEndian: Bool) -> LinkPayload? {
        guard let le = frame.le32(at: 0), let be = frame.be32(at: 0), let rest = frame.tail(from: 4) else { return nil }
        // NULL is host order: whichever reading is small is the right one.
        let family = bigEndian ? be : (le <= 0xFFFF ? le : be)
        switch family {
        case 2: return LinkPayload(network: .ipv4, bytes: rest)
        case 24, 28, 30: return LinkPayload(network: .ipv6, bytes: rest)
        default: return LinkPayload(network: .other(family), bytes: rest)
        }
    }
}

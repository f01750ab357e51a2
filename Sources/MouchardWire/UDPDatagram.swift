/// A UDP header (RFC 768) and its payload, trimmed to the header's length.
public struct UDPDatagram: Sendable {
    public var sourcePort: UInt16
    public var destinationPort: UInt16
    public var payload: ArraySlice<UInt8>

    public init?(_ bytes: ArraySlice<UInt8>) {
        guard let sp = bytes.be16(at: 0), let dp = bytes.be16(at: 2), let len = bytes.be16(at: 4) else { return nil }
        // Length 0 happens with IPv6 jumbograms and some offloads: take what is there.
        let end = len >= 8 ? Swift.min(Int(len), bytes.count) : bytes.count
        guard let payload = bytes.field(at: 8, length: end - 8) else { return nil }
        sourcePort = sp
        destinationPort = dp
        self.payload = payload
    }
}

import MouchardWire

/// Identifies a TCP connection or UDP conversation regardless of direction: the two endpoints in
/// a canonical order, so that both directions find the same entry.
struct ConnectionKey: Hashable {
    var lowAddress: IPAddress
    var highAddress: IPAddress
    var lowPort: UInt16
    var highPort: UInt16

    /// The key and the direction of this packet: 0 when it goes from the low endpoint to the high one.
    static func make(source: IPAddress, sourcePort: UInt16, destination: IPAddress, destinationPort: UInt16)
        -> (ConnectionKey, Int)
    {
        if source < destination || (source == destination && sourcePort <= destinationPort) {
            return (ConnectionKey(lowAddress: source, highAddress: destination, lowPort: sourcePort, highPort: destinationPort), 0)
        }
        return (ConnectionKey(lowAddress: destination, highAddress: source, lowPort: destinationPort, highPort: sourcePort), 1)
    }

    /// The sending endpoint of direction `d`.
    func address(_ d: Int) -> IPAddress { d == 0 ? lowAddress : highAddress }
    func port(_ d: Int) -> UInt16 { d == 0 ? lowPort : highPort }
}

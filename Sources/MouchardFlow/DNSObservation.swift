import Foundation

/// One DNS answer seen on the wire: which name the device resolved and to what.
/// Sources that see DNS (the sniffer, the gateway) record these so that every destination
/// can be named, even when its traffic stays encrypted.
public struct DNSObservation: Sendable, Hashable {
    public var time: Date
    /// The name asked for, lower-case, without the trailing dot.
    public var name: String
    /// Record type asked for: `A`, `AAAA`, `HTTPS`, ...
    public var queryType: String
    /// Addresses the answer gave (A and AAAA), in order.
    public var addresses: [String]
    /// CNAME chain from `name` to the final name, in order.
    public var cnames: [String]
    public var client: Endpoint?
    public var server: Endpoint?

    public init(time: Date, name: String, queryType: String = "A", addresses: [String] = [], cnames: [String] = [],
                client: Endpoint? = nil, server: Endpoint? = nil) {
        self.time = time
        self.name = name
        self.queryType = queryType
        self.addresses = addresses
        self.cnames = cnames
        self.client = client
        self.server = server
    }
}

import Foundation
import MouchardFlow

/// How a `DNSObservation` maps to a row of the `dns` table (time as reference-date seconds, the
/// answers and CNAME chain as JSON arrays).
public enum DNSRow {
    /// The columns written, in `values` order (the row id is the store's).
    public static let columns = ["time", "name", "query_type", "addresses", "cnames", "client_address", "client_port",
                                 "server_address", "server_port"]

    public static func values(_ d: DNSObservation) -> [SQLValue] {
        [.real(d.time.timeIntervalSinceReferenceDate), .text(d.name), .text(d.queryType),
         .text(StoreJSON.encode(d.addresses)), .text(StoreJSON.encode(d.cnames)),
         d.client.map { .text($0.address) } ?? .null, d.client.map { .integer(Int64($0.port)) } ?? .null,
         d.server.map { .text($0.address) } ?? .null, d.server.map { .integer(Int64($0.port)) } ?? .null]
    }

    /// Reads a row holding `id` then `columns`.
    public static func decode(_ s: some StoreRow, file: String) throws(StoreError) -> DNSObservation {
        guard let addresses = StoreJSON.decode([String].self, s.text(4)), let cnames = StoreJSON.decode([String].self, s.text(5))
        else { throw StoreError(file: file, message: "DNS observation \(s.int(0)) is damaged") }
        return DNSObservation(time: Date(timeIntervalSinceReferenceDate: s.double(1)), name: s.text(2),
                              queryType: s.text(3), addresses: addresses, cnames: cnames,
                              client: s.optionalText(6).map { Endpoint(address: $0, port: s.int(7)) },
                              server: s.optionalText(8).map { Endpoint(address: $0, port: s.int(9)) })
    }
}

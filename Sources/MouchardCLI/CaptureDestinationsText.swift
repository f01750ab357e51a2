import MouchardSniffer

/// The capture destinations summary as text (`scan`, `sniff`), largest first.
enum CaptureDestinationsText {
    static func render(_ destinations: [CaptureDestination]) -> String {
        guard !destinations.isEmpty else { return "" }
        var s = "\ndestinations (host, transports, flows, bytes, addresses):\n"
        for d in destinations {
            let quic = d.quicInitials > 0 ? ", \(d.quicInitials) QUIC Initials" : ""
            s += "  \(TextSummary.pad(d.host, 40)) \(TextSummary.pad(d.transports.joined(separator: "+"), 10)) \(d.flows) flows, \(d.bytes) bytes\(quic)  \(d.addresses.joined(separator: " "))\n"
        }
        return s
    }
}

import MouchardWire

/// The warnings of a capture, one line per class of problem with its count, in a fixed order (so
/// the same capture gives the same lines every run): what could not be decoded and why.
enum CaptureWarnings {
    /// Examples listed in a class's line before "N more".
    static let examplesShown = 3

    /// Lines for the counters of `s` that mean something was not read.
    static func summary(of s: ExtractionStatistics) -> [String] {
        var lines: [String] = []
        for (type, n) in s.unsupportedLinkTypes.sorted(by: { $0.key.rawValue < $1.key.rawValue }) {
            let named = type.description.hasPrefix("linktype ") ? "link type \(type.rawValue)" : "link type \(type) (\(type.rawValue))"
            lines.append("\(frames(n)) of \(named) not decoded: Mouchard reads Ethernet (VLAN, QinQ, PPPoE), "
                + "Linux cooked v1/v2, NULL/LOOP, raw IP and 802.11 (with or without radiotap)")
        }
        let unsupported = s.unsupportedLinkTypes.values.reduce(0, +)
        if s.undecodableLink > unsupported { lines.append("\(frames(s.undecodableLink - unsupported)) with a cut link-layer header") }
        if let n = s.nonIPByProtocol["802.11 encrypted data"] {
            lines.append("\(frames(n)) of encrypted 802.11 data not read: decrypt the capture with the network's key first "
                + "(Wireshark: Export Packet Dissections with decryption keys, or airdecap-ng)")
        }
        let others = s.nonIPByProtocol.filter { $0.key != "802.11 encrypted data" }
        if !others.isEmpty {
            lines.append("\(frames(others.values.reduce(0, +))) without IP skipped: " + counts(others))
        }
        if s.badIP > 0 { lines.append("\(frames(s.badIP)) with a bad or cut IP header") }
        let f = s.fragments
        if f.fragments > 0 {
            var line = "\(count(f.fragments, "IP fragment")): \(count(f.datagrams, "datagram")) reassembled"
            if f.duplicates > 0 { line += ", \(count(f.duplicates, "duplicate")) ignored" }
            let dropped = f.dropped.reduce(0) { $0 + $1.value }
            if dropped > 0 {
                line += ", \(dropped) dropped (" + IPFragmentReassembler.DropReason.allCases.compactMap { r in
                    f.dropped[r].map { "\(r.rawValue): \($0)" }
                }.joined(separator: ", ") + ")"
            }
            if f.incomplete > 0 { line += ", \(count(f.incomplete, "datagram")) never completed" }
            lines.append(line)
        }
        if !s.otherTransports.isEmpty {
            let named = Dictionary(uniqueKeysWithValues: s.otherTransports.map { (transportName($0.key), $0.value) })
            lines.append("\(count(s.otherTransports.values.reduce(0, +), "IP packet")) of other transports not inspected: " + counts(named))
        }
        if s.droppedBytes > 0 {
            lines.append("\(s.droppedBytes) bytes were dropped by memory caps (request bodies or out-of-order buffers beyond their limits)")
        }
        return lines
    }

    /// `ARP (0x0806) 12, 802.11 management 3`: largest count first, then by name.
    static func counts(_ byName: [String: Int]) -> String {
        byName.sorted { $0.value != $1.value ? $0.value > $1.value : $0.key < $1.key }
            .map { "\($0.key) \($0.value)" }.joined(separator: ", ")
    }

    static func frames(_ n: Int) -> String { count(n, "frame") }

    static func count(_ n: Int, _ noun: String) -> String { "\(n) \(noun)\(n == 1 ? "" : "s")" }

    static func transportName(_ p: UInt8) -> String {
        switch p {
        case 1: return "ICMP"
        case 2: return "IGMP"
        case 4: return "IP-in-IP"
        case 41: return "IPv6-in-IPv4"
        case 47: return "GRE"
        case 50: return "ESP"
        case 58: return "ICMPv6"
        case 59: return "no next header"
        case 103: return "PIM"
        case 112: return "VRRP"
        case 132: return "SCTP"
        default: return "protocol \(p)"
        }
    }
}

/// Per-event notes of one class (a gap in a stream...), kept as a count and a few examples.
struct WarningClass {
    var count = 0
    var total = 0
    var examples: [String] = []

    mutating func add(_ example: String, amount: Int = 0) {
        count += 1
        total += amount
        if examples.count < CaptureWarnings.examplesShown { examples.append(example) }
    }

    /// `12 gaps in TCP streams, 4500 bytes lost: A → B at t=1; ... (9 more)`, nil when empty.
    func line(_ what: (Int, Int) -> String) -> String? {
        guard count > 0 else { return nil }
        var s = what(count, total) + ": " + examples.joined(separator: "; ")
        if count > examples.count { s += " (\(count - examples.count) more)" }
        return s
    }
}

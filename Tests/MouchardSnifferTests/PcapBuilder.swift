import Foundation

/// Builds small pcap files packet by packet for golden tests: Ethernet / IPv4 / TCP or UDP frames
/// with chosen sequence numbers, flags and payloads, so each test states exactly what was on the wire.
struct PcapBuilder {
    var bytes: [UInt8] = []
    var time: Double = 1_700_000_000
    var linkType: UInt32 = 1

    init(linkType: UInt32 = 1) {
        self.linkType = linkType
        append32(0xA1B2_C3D4); append16(2); append16(4); append32(0); append32(0); append32(262_144); append32(linkType)
    }

    private mutating func append16(_ v: UInt16) { bytes += [UInt8(v & 0xFF), UInt8(v >> 8)] }
    private mutating func append32(_ v: UInt32) { for i in 0..<4 { bytes.append(UInt8((v >> (8 * UInt32(i))) & 0xFF)) } }

    /// Appends one record holding `frame`.
    mutating func record(_ frame: [UInt8]) {
        time += 0.001
        let sec = UInt32(time.rounded(.down))
        append32(sec); append32(UInt32((time - Double(sec)) * 1e6)); append32(UInt32(frame.count)); append32(UInt32(frame.count))
        bytes += frame
    }

    static func be16(_ v: UInt16) -> [UInt8] { [UInt8(v >> 8), UInt8(v & 0xFF)] }
    static func be32(_ v: UInt32) -> [UInt8] { [UInt8(v >> 24), UInt8((v >> 16) & 0xFF), UInt8((v >> 8) & 0xFF), UInt8(v & 0xFF)] }

    /// An IPv4 packet (with a correct-looking header; checksums are not verified by the reader).
    static func ipv4(src: [UInt8], dst: [UInt8], proto: UInt8, payload: [UInt8]) -> [UInt8] {
        var h: [UInt8] = [0x45, 0] + be16(UInt16(20 + payload.count)) + [0, 1, 0x40, 0, 64, proto, 0, 0]
        h += src + dst
        return h + payload
    }

    static func ethernet(_ ip: [UInt8], etherType: UInt16 = 0x0800) -> [UInt8] {
        [2, 0, 0, 0, 0, 2, 2, 0, 0, 0, 0, 1] + be16(etherType) + ip
    }

    /// TCP flag bits.
    static let fin: UInt8 = 0x01, syn: UInt8 = 0x02, rst: UInt8 = 0x04, psh: UInt8 = 0x08, ack: UInt8 = 0x10

    static func tcp(sport: UInt16, dport: UInt16, seq: UInt32, ack: UInt32, flags: UInt8, payload: [UInt8]) -> [UInt8] {
        be16(sport) + be16(dport) + be32(seq) + be32(ack) + [0x50, flags] + be16(65535) + [0, 0, 0, 0] + payload
    }

    static func udp(sport: UInt16, dport: UInt16, payload: [UInt8]) -> [UInt8] {
        be16(sport) + be16(dport) + be16(UInt16(8 + payload.count)) + [0, 0] + payload
    }

    mutating func write(to url: URL) throws { try Data(bytes).write(to: url) }
}

/// A TCP conversation between a client and a server written into a `PcapBuilder`, tracking
/// sequence numbers so tests can say "send these bytes", "resend that segment", "skip this one".
struct TCPConversation {
    var client: [UInt8] = [10, 0, 0, 2]
    var server: [UInt8] = [93, 184, 216, 34]
    var clientPort: UInt16 = 51000
    var serverPort: UInt16 = 80
    var clientSeq: UInt32 = 1000
    var serverSeq: UInt32 = 5000

    func frame(fromClient: Bool, seq: UInt32, flags: UInt8, payload: [UInt8]) -> [UInt8] {
        let ack = fromClient ? serverSeq : clientSeq
        let t = PcapBuilder.tcp(sport: fromClient ? clientPort : serverPort, dport: fromClient ? serverPort : clientPort,
                                seq: seq, ack: ack, flags: flags, payload: payload)
        return PcapBuilder.ethernet(PcapBuilder.ipv4(src: fromClient ? client : server, dst: fromClient ? server : client,
                                                     proto: 6, payload: t))
    }

    mutating func handshake(_ b: inout PcapBuilder) {
        b.record(frame(fromClient: true, seq: clientSeq, flags: PcapBuilder.syn, payload: []))
        b.record(frame(fromClient: false, seq: serverSeq, flags: PcapBuilder.syn | PcapBuilder.ack, payload: []))
        clientSeq += 1
        serverSeq += 1
        b.record(frame(fromClient: true, seq: clientSeq, flags: PcapBuilder.ack, payload: []))
    }

    /// Cuts `data` into segments of `size` and returns them (with their sequence numbers) without
    /// writing them, advancing the sender's sequence number.
    mutating func segments(fromClient: Bool, _ data: [UInt8], size: Int) -> [[UInt8]] {
        var out: [[UInt8]] = []
        var i = 0
        while i < data.count {
            let piece = Array(data[i..<min(i + size, data.count)])
            let seq = fromClient ? clientSeq : serverSeq
            out.append(frame(fromClient: fromClient, seq: seq, flags: PcapBuilder.ack | PcapBuilder.psh, payload: piece))
            if fromClient { clientSeq &+= UInt32(piece.count) } else { serverSeq &+= UInt32(piece.count) }
            i += size
        }
        return out
    }

    /// Sends `data` in order.
    mutating func send(_ b: inout PcapBuilder, fromClient: Bool, _ data: [UInt8], size: Int = 1400) {
        for f in segments(fromClient: fromClient, data, size: size) { b.record(f) }
    }

    mutating func close(_ b: inout PcapBuilder) {
        b.record(frame(fromClient: true, seq: clientSeq, flags: PcapBuilder.fin | PcapBuilder.ack, payload: []))
        b.record(frame(fromClient: false, seq: serverSeq, flags: PcapBuilder.fin | PcapBuilder.ack, payload: []))
        clientSeq += 1
        serverSeq += 1
        b.record(frame(fromClient: true, seq: clientSeq, flags: PcapBuilder.ack, payload: []))
    }
}

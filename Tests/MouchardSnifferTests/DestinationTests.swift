import Foundation
import Testing
import MouchardFlow
import MouchardSniffer

/// Destinations: names come from DNS answers (CNAME chains), SNI and Host; QUIC Initials are counted
/// per destination; a ClientHello split over two segments on an unusual port still gives a flow.
@Suite struct DestinationTests {
    static func name(_ s: String) -> [UInt8] {
        s.split(separator: ".").flatMap { [UInt8($0.utf8.count)] + Array($0.utf8) } + [0]
    }

    static func dnsAnswer(_ qname: String, cname: String, address: [UInt8]) -> [UInt8] {
        var m: [UInt8] = [0, 7, 0x81, 0x80, 0, 1, 0, 2, 0, 0, 0, 0] + name(qname) + [0, 1, 0, 1]
        let target = name(cname)
        m += [0xC0, 12, 0, 5, 0, 1, 0, 0, 0, 30] + PcapBuilder.be16(UInt16(target.count)) + target
        m += name(cname) + [0, 1, 0, 1, 0, 0, 0, 30, 0, 4] + address
        return m
    }

    @Test func dnsNamesQUICAndSplitClientHello() throws {
        var b = PcapBuilder()
        let phone: [UInt8] = [10, 0, 0, 2], resolver: [UInt8] = [10, 0, 0, 1]
        let quicServer: [UInt8] = [198, 51, 100, 9], tlsServer: [UInt8] = [203, 0, 113, 5]
        b.record(PcapBuilder.ethernet(PcapBuilder.ipv4(src: resolver, dst: phone, proto: 17, payload: PcapBuilder.udp(
            sport: 53, dport: 5555, payload: Self.dnsAnswer("video.example.com", cname: "edge.cdn.example", address: quicServer)))))
        // Two QUIC Initials from the phone, one server reply.
        let initial: [UInt8] = [0xC3, 0, 0, 0, 1, 8] + [UInt8](repeating: 0x11, count: 8) + [0, 0, 0x40, 30] + [UInt8](repeating: 0, count: 30)
        for _ in 0..<2 {
            b.record(PcapBuilder.ethernet(PcapBuilder.ipv4(src: phone, dst: quicServer, proto: 17,
                                                           payload: PcapBuilder.udp(sport: 60000, dport: 443, payload: initial))))
        }
        b.record(PcapBuilder.ethernet(PcapBuilder.ipv4(src: quicServer, dst: phone, proto: 17,
                                                       payload: PcapBuilder.udp(sport: 443, dport: 60000, payload: [0x40, 1, 2, 3]))))
        // A ClientHello split across two segments, on port 8443.
        var c = TCPConversation()
        c.server = tlsServer
        c.serverPort = 8443
        c.handshake(&b)
        let sni = Array("tracker.example.org".utf8)
        var exts: [UInt8] = [0, 0] + PcapBuilder.be16(UInt16(sni.count + 5)) + PcapBuilder.be16(UInt16(sni.count + 3)) + [0]
            + PcapBuilder.be16(UInt16(sni.count)) + sni
        exts += [0, 16, 0, 5, 0, 3, 2] + Array("h2".utf8)
        let body: [UInt8] = [3, 3] + [UInt8](repeating: 1, count: 32) + [0, 0, 2, 0x13, 0x01, 1, 0] + PcapBuilder.be16(UInt16(exts.count)) + exts
        let hs: [UInt8] = [1, 0] + PcapBuilder.be16(UInt16(body.count)) + body
        let record: [UInt8] = [22, 3, 1] + PcapBuilder.be16(UInt16(hs.count)) + hs
        c.send(&b, fromClient: true, record, size: 40)
        c.close(&b)

        let r = try GoldenReassemblyTests.extract(b)
        #expect(GoldenReassemblyTests.render(r.flows) == "#1 tls sni=tracker.example.org alpn=h2 TLSv1.2")
        let quic = try #require(r.destinations.first { $0.host == "video.example.com" })
        #expect(quic.transports == ["quic"] && quic.quicInitials == 2 && quic.addresses == ["198.51.100.9"])
        let tls = try #require(r.destinations.first { $0.host == "tracker.example.org" })
        #expect(tls.transports == ["tls"] && tls.flows == 1 && tls.addresses == ["203.0.113.5"])
        let dns = try #require(r.dns.first)
        #expect(dns.name == "video.example.com" && dns.cnames == ["edge.cdn.example"] && dns.addresses == ["198.51.100.9"])
    }
}

import Testing
@testable import MouchardWire

/// The packet dissectors on hand-built bytes: each layer finds its payload, and cut or hostile
/// input gives nil or a typed error, never a trap.
@Suite struct PacketDissectorTests {
    static func be16(_ v: Int) -> [UInt8] { [UInt8((v >> 8) & 0xFF), UInt8(v & 0xFF)] }

    static let ipv4UDP: [UInt8] = [0x45, 0, 0, 32, 0, 1, 0x40, 0, 64, 17, 0, 0, 10, 0, 0, 2, 1, 1, 1, 1]
        + be16(5353) + be16(53) + be16(12) + [0, 0] + [0xDE, 0xAD, 0xBE, 0xEF]

    @Test func ethernetWithQinQTags() throws {
        let frame: [UInt8] = [UInt8](repeating: 0, count: 12) + [0x88, 0xA8, 0, 10, 0x81, 0x00, 0, 20, 0x08, 0x00] + Self.ipv4UDP
        let link = try #require(LinkLayerDecoder.decode(frame[...], linkType: .ethernet))
        #expect(link.network == .ipv4)
        let ip = try #require(IPv4Packet(link.bytes))
        #expect(ip.source.description == "10.0.0.2" && ip.destination.description == "1.1.1.1")
        let udp = try #require(UDPDatagram(ip.payload))
        #expect(udp.destinationPort == 53 && Array(udp.payload) == [0xDE, 0xAD, 0xBE, 0xEF])
        // Too many tags is garbage, a cut header is nil.
        let deep = [UInt8](repeating: 0, count: 12) + Array(repeating: [0x81, 0x00, 0, 1], count: 9).flatMap { $0 } + [0x08, 0x00]
        #expect(LinkLayerDecoder.decode(deep[...], linkType: .ethernet) == nil)
        #expect(LinkLayerDecoder.decode(frame[0..<13], linkType: .ethernet) == nil)
    }

    @Test func linuxCookedV1V2AndLoopback() throws {
        let sll: [UInt8] = [0, 0, 0, 1, 0, 6] + [UInt8](repeating: 0, count: 8) + [0x08, 0x00] + Self.ipv4UDP
        #expect(LinkLayerDecoder.decode(sll[...], linkType: .linuxSLL)?.network == .ipv4)
        let sll2: [UInt8] = [0x86, 0xDD, 0, 0, 0, 0, 0, 1, 0, 1, 0, 6] + [UInt8](repeating: 0, count: 8) + [0x60]
        #expect(LinkLayerDecoder.decode(sll2[...], linkType: .linuxSLL2)?.network == .ipv6)
        let null: [UInt8] = [2, 0, 0, 0] + Self.ipv4UDP  // little-endian AF_INET
        #expect(LinkLayerDecoder.decode(null[...], linkType: .null)?.network == .ipv4)
        let loop: [UInt8] = [0, 0, 0, 24] + [0x60]
        #expect(LinkLayerDecoder.decode(loop[...], linkType: .loop)?.network == .ipv6)
        #expect(LinkLayerDecoder.decode(Self.ipv4UDP[...], linkType: .raw)?.network == .ipv4)
    }

    @Test func ipv6ExtensionHeadersAndFragments() throws {
        var packet: [UInt8] = [0x60, 0, 0, 0] + Self.be16(8 + 8 + 8 + 4) + [0, 64]  // next: hop-by-hop
        packet += [0x20, 0x01, 0x0d, 0xb8] + [UInt8](repeating: 0, count: 11) + [1]
        packet += [0x20, 0x01, 0x0d, 0xb8] + [UInt8](repeating: 0, count: 11) + [2]
        packet += [60, 0, 1, 4, 0, 0, 0, 0]            // hop-by-hop → destination options
        packet += [44, 0, 1, 4, 0, 0, 0, 0]            // destination options → fragment
        packet += [17, 0, 0, 1, 0, 0, 0, 9]            // fragment offset 0, more fragments → UDP
        packet += [0x13, 0x88, 0, 53]
        let ip = try #require(IPv6Packet(packet[...]))
        #expect(ip.protocolNumber == 17 && ip.isFragment)
        #expect(ip.source.description == "2001:db8::1")
        // An extension header claiming more bytes than there are.
        var cut = packet
        cut[41] = 200
        #expect(IPv6Packet(cut[...]) == nil)
    }

    @Test func ipv4FragmentAndBadHeaders() {
        var fragment = Self.ipv4UDP
        fragment[6] = 0x20  // more fragments
        #expect(IPv4Packet(fragment[...])?.isFragment == true)
        var badIHL = Self.ipv4UDP
        badIHL[0] = 0x4F  // 60-byte header in a 32-byte packet
        #expect(IPv4Packet(badIHL[...]) == nil)
        #expect(TCPSegment([0, 80, 0, 80, 0, 0, 0, 1][...]) == nil)
    }

    static func name(_ s: String) -> [UInt8] {
        s.split(separator: ".").flatMap { [UInt8($0.utf8.count)] + Array($0.utf8) } + [0]
    }

    @Test func dnsAnswerWithCNAMEChainAndCompression() throws {
        var m: [UInt8] = [0x12, 0x34, 0x81, 0x80, 0, 1, 0, 3, 0, 0, 0, 0]
        m += Self.name("api.Example.com") + [0, 1, 0, 1]
        // api.example.com CNAME edge.cdn.net (written with a pointer for "net"? keep literal), edge CNAME e1, e1 A
        let edge = Self.name("edge.cdn.net")
        m += [0xC0, 12] + [0, 5, 0, 1, 0, 0, 0, 60] + Self.be16(edge.count) + edge
        let edgeOffset = 12 + Self.name("api.example.com").count + 4 + 12
        let e1: [UInt8] = [2] + Array("e1".utf8) + [0xC0, UInt8(edgeOffset)]
        m += [0xC0, UInt8(edgeOffset)] + [0, 5, 0, 1, 0, 0, 0, 60] + Self.be16(e1.count) + e1
        let e1Offset = m.count - e1.count
        m += [0xC0, UInt8(e1Offset)] + [0, 1, 0, 1, 0, 0, 0, 60, 0, 4, 192, 0, 2, 7]
        let dns = try DNSMessage(m[...])
        let r = try #require(dns.resolution())
        #expect(r.name == "api.example.com")
        #expect(r.cnames == ["edge.cdn.net", "e1.edge.cdn.net"])
        #expect(r.addresses.map(\.description) == ["192.0.2.7"])
    }

    @Test func dnsPointerLoopIsAnError() {
        // The question name is a pointer to itself.
        let m: [UInt8] = [0, 1, 0x81, 0x80, 0, 1, 0, 0, 0, 0, 0, 0, 0xC0, 12, 0, 1, 0, 1]
        #expect(throws: DNSMessage.ParseError.self) { try DNSMessage(m[...]) }
        // Two labels pointing at each other.
        let n: [UInt8] = [0, 1, 0x81, 0x80, 0, 1, 0, 0, 0, 0, 0, 0, 1, 0x61, 0xC0, 12, 0, 1, 0, 1]
        #expect(throws: DNSMessage.ParseError.self) { try DNSMessage(n[...]) }
        #expect(throws: DNSMessage.ParseError.self) { try DNSMessage([0, 1, 2][...]) }
    }

    static func clientHello(sni: String, alpn: [String], versions: [UInt16]) -> [UInt8] {
        let host = Array(sni.utf8)
        var exts: [UInt8] = []
        exts += [0, 0] + be16(host.count + 5) + be16(host.count + 3) + [0] + be16(host.count) + host
        let list = alpn.flatMap { [UInt8($0.utf8.count)] + Array($0.utf8) }
        exts += [0, 16] + be16(list.count + 2) + be16(list.count) + list
        let v = versions.flatMap { be16(Int($0)) }
        exts += [0, 43] + be16(v.count + 1) + [UInt8(v.count)] + v
        let body: [UInt8] = [3, 3] + [UInt8](repeating: 7, count: 32) + [0] + [0, 2, 0x13, 0x01] + [1, 0] + be16(exts.count) + exts
        return [1, 0] + be16(body.count) + body
    }

    @Test func tlsClientHelloSplitAcrossRecordsAndSegments() throws {
        let hs = Self.clientHello(sni: "Tracker.Example.com", alpn: ["h2", "http/1.1"], versions: [0x0A0A, 0x0304, 0x0303])
        // Two records, the first holding 30 bytes of the handshake.
        let stream: [UInt8] = [22, 3, 1] + Self.be16(30) + hs[0..<30] + [22, 3, 1] + Self.be16(hs.count - 30) + hs[30...]
        // Every prefix says "need more" (or already parses), never garbage.
        for n in 0..<stream.count {
            let outcome = TLSClientHello.parse(stream: stream[0..<n])
            if case .malformed = outcome { Issue.record("prefix \(n) malformed") }
            if case .notTLS = outcome { Issue.record("prefix \(n) not TLS") }
        }
        guard case .clientHello(let hello) = TLSClientHello.parse(stream: stream[...]) else {
            Issue.record("no ClientHello")
            return
        }
        #expect(hello.serverName == "tracker.example.com")
        #expect(hello.alpn == ["h2", "http/1.1"])
        #expect(hello.versionName == "TLSv1.3")
        #expect(TLSClientHello.parse(stream: Array("GET / HTTP/1.1\r\n".utf8)[...]) == .notTLS)
    }

    @Test func quicInitialDetection() {
        let dcid = [UInt8](repeating: 0xAB, count: 8)
        var p: [UInt8] = [0xC3, 0, 0, 0, 1, 8] + dcid + [0] + [0] + [0x40, 20] + [UInt8](repeating: 0, count: 20)
        #expect(QUICInitialPacket(p[...])?.version == QUICInitialPacket.version1)
        p[0] = 0xE3  // Handshake packet type in v1
        #expect(QUICInitialPacket(p[...]) == nil)
        #expect(QUICInitialPacket([0x40, 1, 2, 3][...]) == nil)  // short header
        let cut: [UInt8] = [0xC3, 0, 0, 0, 1, 8] + dcid + [0, 0, 0x44, 0x00]  // length beyond the datagram
        #expect(QUICInitialPacket(cut[...]) == nil)
    }

    @Test func ipv6AddressText() {
        #expect(IPAddress(ipv6High: 0x2001_0db8_0000_0000, low: 0x0000_0000_0000_0001).description == "2001:db8::1")
        #expect(IPAddress(ipv6High: 0, low: 1).description == "::1")
        #expect(IPAddress(ipv6High: 0x2001_0db8_0001_0000, low: 0x0000_0001_0000_0001).description == "2001:db8:1::1:0:1")
    }
}

import Foundation
import Testing
import MouchardFlow
import MouchardWire
@testable import MouchardGateway
@testable import MouchardTLS

/// Reading the SNI of a QUIC connection from the client's Initial packets (RFC 9001 §5).
struct QUICInitialTests {
    /// RFC 9001 Appendix A.1: the client keys for DCID 0x8394c8f03e515708.
    @Test func clientKeysAreThoseOfRFC9001AppendixA() {
        let keys = QUICInitialProtection.clientKeys(destinationConnectionID: QUICInitialProtection.hex("8394c8f03e515708"),
                                                    version: QUICInitialPacket.version1)
        #expect(keys.key == QUICInitialProtection.hex("1f369613dd76d5467730efcbe3b1a22d"))
        #expect(keys.iv == QUICInitialProtection.hex("fa044b2f42a3fd3b46fb255c"))
        #expect(keys.headerProtection == QUICInitialProtection.hex("9f50449e04a0e810283a1e9933adedd2"))
    }

    /// A ClientHello handshake message with SNI and ALPN (as QUIC carries it: no record layer).
    static func clientHello(serverName: String, alpn: String = "h3", padding: Int = 0) -> [UInt8] {
        let name = Array(serverName.utf8)
        let sni: [UInt8] = [0, 0] + be16(name.count + 5) + be16(name.count + 3) + [0] + be16(name.count) + name
        let proto = Array(alpn.utf8)
        let alpnExt: [UInt8] = [0, 16] + be16(proto.count + 3) + be16(proto.count + 1) + [UInt8(proto.count)] + proto
        let pad: [UInt8] = padding > 0 ? [0, 21] + be16(padding) + [UInt8](repeating: 0, count: padding) : []
        let extensions = sni + alpnExt + pad
        let body: [UInt8] = [3, 3] + [UInt8](repeating: 7, count: 32) + [0] + [0, 2, 0x13, 0x01] + [1, 0]
            + be16(extensions.count) + extensions
        return [1, UInt8(body.count >> 16), UInt8((body.count >> 8) & 0xFF), UInt8(body.count & 0xFF)] + body
    }

    static func be16(_ v: Int) -> [UInt8] { [UInt8(v >> 8), UInt8(v & 0xFF)] }

    static func cryptoFrame(offset: Int, _ data: ArraySlice<UInt8>) -> [UInt8] {
        [0x06] + [0x80 | UInt8(offset >> 24), UInt8((offset >> 16) & 0xFF), UInt8((offset >> 8) & 0xFF), UInt8(offset & 0xFF)]
            + [0x40 | UInt8(data.count >> 8), UInt8(data.count & 0xFF)] + data
    }

    @Test(arguments: [QUICInitialPacket.version1, QUICInitialPacket.version2])
    func sealedInitialsOpenAndNameTheirServer(version: UInt32) throws {
        let dcid: [UInt8] = [9, 8, 7, 6, 5, 4, 3, 2]
        let hello = Self.clientHello(serverName: "quic.example.test")
        let packet = QUICInitialProtection.sealClientInitial(destinationConnectionID: dcid, packetNumber: 2,
                                                             payload: [0x01] + Self.cryptoFrame(offset: 0, hello[...]), version: version)
        #expect(packet.count == 1200)
        #expect(QUICInitialPacket(packet[...]) != nil)
        let opened = try #require(QUICInitialProtection.openClientInitial(packet[...]))
        #expect(opened.packetNumber == 2)
        var stream = QUICCryptoStream()
        stream.add(frames: opened.payload)
        #expect(stream.clientHello?.serverName == "quic.example.test")
        #expect(stream.clientHello?.alpn == ["h3"])
        // Any changed byte fails authentication (header, packet number or payload).
        for i in [0, 3, 20, 600, 1199] {
            var bad = packet
            bad[i] ^= 0x40
            #expect(QUICInitialProtection.openClientInitial(bad[...]) == nil, "byte \(i)")
        }
        #expect(QUICInitialProtection.openClientInitial(packet[..<600]) == nil)
    }

    /// A post-quantum-sized ClientHello over two Initials, the second one first.
    @Test func aClientHelloSplitOverTwoInitialsIsReassembled() throws {
        let dcid: [UInt8] = Array(0..<8)
        let hello = Self.clientHello(serverName: "pq.example.test", padding: 1500)
        let cut = 900
        let first = QUICInitialProtection.sealClientInitial(destinationConnectionID: dcid, packetNumber: 0,
                                                            payload: Self.cryptoFrame(offset: 0, hello[..<cut]))
        let second = QUICInitialProtection.sealClientInitial(destinationConnectionID: dcid, packetNumber: 1,
                                                             payload: Self.cryptoFrame(offset: cut, hello[cut...]))
        var stream = QUICCryptoStream()
        stream.add(frames: try #require(QUICInitialProtection.openClientInitial(second[...])).payload)
        #expect(stream.clientHello == nil)
        stream.add(frames: try #require(QUICInitialProtection.openClientInitial(first[...])).payload)
        #expect(stream.clientHello?.serverName == "pq.example.test")
    }

    /// The gateway's traffic log turns a captured Initial into a QUIC flow named by its SNI.
    @Test func theTrafficLogNamesAQUICFlowBySNI() throws {
        let packet = QUICInitialProtection.sealClientInitial(destinationConnectionID: [1, 2, 3, 4, 5, 6, 7, 8], payload:
            Self.cryptoFrame(offset: 0, Self.clientHello(serverName: "video.example.test")[...]))
        let udp: [UInt8] = Self.be16(50000) + Self.be16(443) + Self.be16(8 + packet.count) + [0, 0] + packet
        let total = 20 + udp.count
        let ip: [UInt8] = [0x45, 0] + Self.be16(total) + [0, 1, 0x40, 0, 64, 17, 0, 0, 10, 77, 1, 2, 10, 77, 2, 2] + udp
        let log = GatewayTrafficLog(redirectedPorts: [80, 443])
        var flows: [Flow] = []
        log.onFlow = { flows.append($0) }
        log.process(CapturedPacket(timestamp: 1_800_000_000, linkType: .raw, data: ip[...], originalLength: ip.count))
        log.finish()
        #expect(flows.count == 1)
        #expect(flows.first?.tls?.serverName == "video.example.test")
        #expect(flows.first?.host == "video.example.test")
        #expect(flows.first?.extras["_transport"] == "\"quic\"")
        #expect(flows.first?.server == Endpoint(address: "10.77.2.2", port: 443))
    }
}

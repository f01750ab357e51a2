import Foundation
import MouchardFlow
import MouchardWire
import Testing

@testable import MouchardSniffer

/// Packets synthesised for recorded exchanges (`export --pcapng` of a proxy session): exchanges
/// that shared one connection (keep-alive, HTTP/3 streams) become separate TCP connections, and
/// reading the packets back with the synthesiser's key log gives every request again.
struct ExchangePacketSynthesizerTests {
    static func flow(_ id: Int, path: String) -> Flow {
        let head = HTTPRequestHead(method: "GET", target: path, version: HTTPVersion(major: 3, minor: 0),
                                   headers: [("User-Agent", "test")])
        let request = HTTPRequest(head: head, scheme: "https", fallbackAuthority: "api.example.test")
        let response = HTTPResponse(head: HTTPResponseHead(status: 200), body: Array("ok".utf8))
        return Flow(id: id, source: .pcap, transport: .https, request: request, response: response,
                    timings: FlowTimings(started: Date(timeIntervalSince1970: 1_700_000_000 + Double(id))),
                    client: Endpoint(address: "10.0.0.2", port: 51000), server: Endpoint(address: "10.0.0.9", port: 443))
    }

    @Test func exchangesOfOneConnectionGetConnectionsOfTheirOwn() throws {
        var synthesizer = ExchangePacketSynthesizer()
        let paths = ["/a?x=1", "/b", "/c"]
        var packets: [ExchangePacketSynthesizer.Packet] = []
        var clientPorts: [UInt16] = []
        for (i, path) in paths.enumerated() {
            let p = synthesizer.packets(for: Self.flow(i + 1, path: path))
            // The SYN: Ethernet (14) and IPv4 (20) headers, then the TCP source port.
            let syn = try #require(p.first?.frame)
            clientPorts.append(UInt16(syn[34]) << 8 | UInt16(syn[35]))
            packets += p
        }
        #expect(clientPorts.first == 51000 && Set(clientPorts).count == 3)
        let keys = TLSKeyStore(keyLog: NSSKeyLog(text: Array(synthesizer.keyLog.utf8)))
        let extractor = PcapFlowExtractor(keys: keys)
        for p in packets {
            extractor.process(CapturedPacket(timestamp: p.timestamp, linkType: .ethernet, data: p.frame[...], originalLength: p.frame.count))
        }
        let x = extractor.finish()
        #expect(x.flows.compactMap { $0.request?.pathAndQuery } == paths)
        #expect(x.flows.allSatisfy { $0.response?.body == Array("ok".utf8) && $0.isDecryptedFromCapture })
    }
}

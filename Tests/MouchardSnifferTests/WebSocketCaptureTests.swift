import Foundation
import MouchardCodec
import MouchardFlow
import MouchardSniffer
import MouchardTestSupport
import MouchardWire
import Testing

/// WebSocket inside cleartext HTTP/1.1 connections of a capture: the upgrade's flow carries the
/// messages of both directions, `permessage-deflate` inflated.
@Suite struct WebSocketCaptureTests {
    static let upgrade = GoldenReassemblyTests.request("GET", "/live", host: "chat.example", headers: [
        "Upgrade: websocket", "Connection: Upgrade", "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==", "Sec-WebSocket-Version: 13",
        "Sec-WebSocket-Extensions: permessage-deflate",
    ])
    static let switched = Array(("HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
        + "Sec-WebSocket-Accept: s3pPLMBiTxaQ9kYGzzhZRbK+xOo=\r\nSec-WebSocket-Extensions: permessage-deflate\r\n\r\n").utf8)
    static let mask: (UInt8, UInt8, UInt8, UInt8) = (9, 8, 7, 6)

    @Test func messagesOfBothDirectionsAreRead() throws {
        var b = PcapBuilder()
        var c = TCPConversation()
        c.handshake(&b)
        c.send(&b, fromClient: true, Self.upgrade)
        let up = StreamDeflater(), down = StreamDeflater()
        // The server's first frame comes in the same segment as the 101.
        let hello = WebSocketFrameWriter.frame(opcode: .text, payload: down.compressMessage(Array("{\"welcome\":true}".utf8)), compressed: true)
        c.send(&b, fromClient: false, Self.switched + hello)
        let location = Array("{\"lat\":48.856614,\"lon\":2.352222}".utf8)
        for _ in 0..<3 {
            // Client frames cut in small segments, so frames span segments.
            c.send(&b, fromClient: true, WebSocketFrameWriter.frame(opcode: .text, payload: up.compressMessage(location), compressed: true,
                                                                    mask: Self.mask), size: 7)
        }
        c.send(&b, fromClient: true, WebSocketFrameWriter.frame(opcode: .binary, payload: [0x0A, 0x02, 0x68, 0x69], mask: Self.mask))
        c.send(&b, fromClient: true, WebSocketFrameWriter.close(code: 1000, reason: "bye", mask: Self.mask))
        c.send(&b, fromClient: false, WebSocketFrameWriter.close(code: 1000, reason: ""))
        c.close(&b)
        let r = try GoldenReassemblyTests.extract(b)
        let flow = try #require(r.flows.first)
        #expect(r.flows.count == 1)
        #expect(flow.response?.status == 101)
        #expect(flow.messages.map(\.direction) == [.server, .client, .client, .client, .client])
        #expect(flow.messages.map(\.data) == [Array("{\"welcome\":true}".utf8), location, location, location, [0x0A, 0x02, 0x68, 0x69]])
        #expect(flow.messages.map(\.compressed) == [true, true, true, true, false])
        #expect(flow.extras[Flow.webSocketCloseField] == "\"client 1000 bye\"")
        #expect(flow.error == nil)
    }

    @Test func aGapStopsTheReadingAndKeepsWhatWasRead() throws {
        var b = PcapBuilder()
        var c = TCPConversation()
        c.handshake(&b)
        c.send(&b, fromClient: true, Self.upgrade)
        c.send(&b, fromClient: false, Self.switched)
        c.send(&b, fromClient: true, WebSocketFrameWriter.frame(opcode: .text, payload: Array("first".utf8), mask: Self.mask))
        // A lost segment: the next frame's bytes never arrive.
        _ = c.segments(fromClient: true, WebSocketFrameWriter.frame(opcode: .text, payload: Array("lost".utf8), mask: Self.mask), size: 100)
        c.send(&b, fromClient: true, WebSocketFrameWriter.frame(opcode: .text, payload: Array("after".utf8), mask: Self.mask))
        c.close(&b)
        let r = try GoldenReassemblyTests.extract(b)
        let flow = try #require(r.flows.first)
        #expect(flow.messages.map(\.data) == [Array("first".utf8)])
        #expect(flow.error?.contains("not read further") == true)
    }
}

import MouchardHTTP2
import MouchardWire
@testable import MouchardProxy
import Testing

/// A phone (h2 client), the machine, and an origin (h2 server), wired through memory.
final class HTTP2MachineRig {
    let phone: HTTP2Connection
    let origin: HTTP2Connection
    let machine: HTTP2ProxyMachine
    var phoneEvents: [HTTP2Event] = []
    var originEvents: [HTTP2Event] = []
    var exchanges: [CapturedExchange] = []
    var webSockets: [WebSocketRelay] = []
    var clientClosed = false
    private var toPhone: [UInt8] = []
    private var toOrigin: [UInt8] = []

    init(clientLimits: HTTP2Limits = .standard) throws {
        phone = try HTTP2Connection(role: .client)
        origin = try HTTP2Connection(role: .server)
        machine = try HTTP2ProxyMachine(target: UpstreamTarget(host: "a.example", port: 443, tls: true), fallbackAuthority: "a.example:443",
                                        bodyCaptureLimit: 1 << 20, clientLimits: clientLimits)
        take(machine.start())
    }

    private func take(_ actions: [HTTP2ProxyMachine.Action]) {
        for a in actions {
            switch a {
            case .sendClient(let b): toPhone += b
            case .sendUpstream(let b): toOrigin += b
            case .completed(let e): exchanges.append(e)
            case .closeClient: clientClosed = true
            case .closeUpstream, .connectUpstream: break
            case .webSocketMessages(let relay, _): webSockets.append(relay)
            }
        }
    }

    /// Raw bytes from the phone (for attacks the nghttp2 client would not send).
    func phoneSendsRaw(_ bytes: [UInt8]) { take(machine.handle(.clientBytes(bytes))) }

    /// Moves bytes everywhere until all is quiet (bounded).
    func run() {
        for _ in 0..<64 {
            let fromPhone = phone.pendingOutput()
            let fromOrigin = origin.pendingOutput()
            if !fromPhone.isEmpty { take(machine.handle(.clientBytes(fromPhone))) }
            if !fromOrigin.isEmpty { take(machine.handle(.upstreamBytes(fromOrigin))) }
            let down = toPhone, up = toOrigin
            toPhone = []
            toOrigin = []
            phoneEvents += phone.receive(down)
            originEvents += origin.receive(up)
            if fromPhone.isEmpty && fromOrigin.isEmpty && down.isEmpty && up.isEmpty { return }
        }
    }

    /// What reached the phone, unfiltered, for inspecting frames of a closed connection.
    func bytesToPhone() -> [UInt8] {
        let b = toPhone
        toPhone = []
        return b
    }
}

@Suite("HTTP2ProxyMachine")
struct HTTP2ProxyMachineTests {
    static let get = [HTTP2Field(":method", "GET"), HTTP2Field(":scheme", "https"), HTTP2Field(":authority", "a.example"),
                      HTTP2Field(":path", "/v1/ad?idfa=6D92078A-8246-4BA4-AE5B-76104861E7DC")]

    @Test("two streams cross both connections; each is one exchange with HTTP/2.0, its stream id, bodies and trailers")
    func twoStreams() throws {
        let rig = try HTTP2MachineRig()
        let a = try #require(rig.phone.submitRequest(Self.get, hasBody: false))
        let post = [HTTP2Field(":method", "POST")] + Self.get.dropFirst()
        let b = try #require(rig.phone.submitRequest(post, hasBody: true))
        rig.phone.sendBody(stream: b, Array("{\"lat\":48.85}".utf8))
        rig.phone.endBody(stream: b)
        rig.run()
        let requests = rig.originEvents.compactMap { e -> (Int32, [HTTP2Field])? in
            if case .headers(let id, .request, let f, _) = e { (id, f) } else { nil }
        }
        #expect(requests.map(\.1.count) == [4, 4])
        for (id, _) in requests {
            rig.origin.submitResponse(stream: id, [HTTP2Field(":status", "200")], hasBody: true)
            rig.origin.sendBody(stream: id, Array("ok \(id)".utf8))
            rig.origin.endBody(stream: id, trailers: [HTTP2Field("grpc-status", "0")])
        }
        rig.run()
        #expect(rig.exchanges.count == 2)
        let byStream = Dictionary(uniqueKeysWithValues: rig.exchanges.map { ($0.streamID ?? 0, $0) })
        let first = try #require(byStream[a])
        #expect(first.requestHead.version.description == "HTTP/2.0")
        #expect(first.requestHead.target == "/v1/ad?idfa=6D92078A-8246-4BA4-AE5B-76104861E7DC")
        #expect(first.fallbackAuthority == "a.example")
        #expect(first.responseHead?.status == 200)
        #expect(first.responseHead?.headers["grpc-status"] == "0")
        #expect(first.error == nil)
        let second = try #require(byStream[b])
        #expect(String(decoding: second.requestBody.bytes, as: UTF8.self) == "{\"lat\":48.85}")
        #expect(second.responseBody.bytes.starts(with: Array("ok ".utf8)))
        #expect(rig.phoneEvents.contains { if case .headers(b, .trailers, _, true) = $0 { true } else { false } })
        #expect(!rig.clientClosed)
    }

    @Test("a reset from the phone reaches the origin with its code; a reset from the origin reaches the phone")
    func resets() throws {
        let rig = try HTTP2MachineRig()
        let a = try #require(rig.phone.submitRequest(Self.get, hasBody: false))
        rig.run()
        rig.phone.reset(stream: a, code: HTTP2ErrorCode.cancel)
        rig.run()
        #expect(rig.originEvents.contains(.streamClosed(stream: 1, errorCode: HTTP2ErrorCode.cancel)))
        #expect(rig.exchanges.first?.error == "stream reset (CANCEL)")

        let b = try #require(rig.phone.submitRequest(Self.get, hasBody: false))
        rig.run()
        rig.origin.reset(stream: 3, code: HTTP2ErrorCode.refusedStream)
        rig.run()
        #expect(rig.phoneEvents.contains(.streamClosed(stream: b, errorCode: HTTP2ErrorCode.refusedStream)))
        #expect(rig.exchanges.count == 2)
        #expect(rig.exchanges.last?.error == "upstream reset the stream (REFUSED_STREAM)")
    }

    @Test("WebSocket over HTTP/2: extended CONNECT allowed once the origin allows it, messages read both ways, an unmasked client frame closes both sides with 1002")
    func webSocketStream() throws {
        let rig = try HTTP2MachineRig()
        rig.run()
        #expect(!rig.phone.peerAllowsExtendedConnect)
        rig.origin.allowExtendedConnect()
        rig.run()
        #expect(rig.phone.peerAllowsExtendedConnect)
        let connect = [HTTP2Field(":method", "CONNECT"), HTTP2Field(":protocol", "websocket"), HTTP2Field(":scheme", "https"),
                       HTTP2Field(":authority", "a.example"), HTTP2Field(":path", "/live")]
        let id = try #require(rig.phone.submitRequest(connect, hasBody: true))
        rig.run()
        #expect(rig.originEvents.contains { if case .headers(1, .request, let f, false) = $0 { f.value(of: ":protocol") == "websocket" } else { false } })
        rig.origin.submitResponse(stream: 1, [HTTP2Field(":status", "200")], hasBody: true)
        rig.run()
        rig.phone.sendBody(stream: id, WebSocketFrameWriter.frame(opcode: .text, payload: Array("{\"lat\":48.85}".utf8), mask: (1, 2, 3, 4)))
        rig.run()
        rig.origin.sendBody(stream: 1, WebSocketFrameWriter.frame(opcode: .text, payload: Array("ok".utf8)))
        rig.run()
        // A client frame without a mask breaks RFC 6455 §5.1: not passed on, both sides closed with 1002.
        rig.phone.sendBody(stream: id, WebSocketFrameWriter.frame(opcode: .text, payload: Array("bad".utf8)))
        rig.run()
        var toPhone: [UInt8] = []
        for case .data(id, let b) in rig.phoneEvents { toPhone += b }
        let close = WebSocketFrameWriter.close(code: 1002, reason: "protocol error")
        #expect(Array(toPhone.suffix(close.count)) == close)
        var toOrigin: [UInt8] = []
        for case .data(1, let b) in rig.originEvents { toOrigin += b }
        #expect(!String(decoding: toOrigin, as: UTF8.self).contains("bad"))
        #expect(Array(toOrigin.suffix(close.count + 4).prefix(2)) == [0x88, 0x80 | UInt8(close.count - 2)])  // masked, as a client's
        rig.phone.endBody(stream: id)
        rig.run()
        #expect(rig.exchanges.isEmpty && rig.webSockets.count == 1)
        let ws = try #require(rig.webSockets.first)
        let messages = ws.conversation.takeMessages().messages
        #expect(messages.map(\.direction) == [.client, .server])
        #expect(ws.failure?.closeCode == 1002)
        #expect(ws.exchange.requestBody.bytes.isEmpty && ws.exchange.responseHead?.status == 200)
    }

    @Test("the origin closing mid-stream: waiting streams get a 502, the phone a GOAWAY")
    func originGone() throws {
        let rig = try HTTP2MachineRig()
        _ = try #require(rig.phone.submitRequest(Self.get, hasBody: false))
        rig.run()
        let actions = rig.machine.handle(.upstreamEnded)
        var down: [UInt8] = []
        for case .sendClient(let b) in actions { down += b }
        let events = rig.phone.receive(down)
        #expect(events.contains { if case .headers(1, .response, let f, false) = $0 { f.value(of: ":status") == "502" } else { false } })
        #expect(events.contains { if case .goaway = $0 { true } else { false } })
    }
}

import MouchardHTTP2
import Testing

/// Two `HTTP2Connection`s, a client and a server, talking through memory.
struct HTTP2Pair {
    let client: HTTP2Connection
    let server: HTTP2Connection
    var clientEvents: [HTTP2Event] = []
    var serverEvents: [HTTP2Event] = []

    init(serverLimits: HTTP2Limits = .standard) throws {
        client = try HTTP2Connection(role: .client)
        server = try HTTP2Connection(role: .server, limits: serverLimits)
    }

    /// Moves bytes both ways until neither side has anything to say (bounded). With `consume`, each
    /// side consumes the DATA it reads at once (an application that keeps up).
    mutating func exchange(consume: Bool = true) {
        for _ in 0..<64 {
            let up = client.pendingOutput()
            let down = server.pendingOutput()
            if up.isEmpty && down.isEmpty { return }
            let toServer = server.receive(up), toClient = client.receive(down)
            if consume {
                for case .data(let id, let bytes) in toServer { server.consume(stream: id, bytes: bytes.count) }
                for case .data(let id, let bytes) in toClient { client.consume(stream: id, bytes: bytes.count) }
            }
            serverEvents += toServer
            clientEvents += toClient
        }
    }

    /// Body bytes the server read so far.
    var serverReceived: Int { serverEvents.reduce(0) { if case .data(_, let b) = $1 { $0 + b.count } else { $0 } } }
}

@Suite("HTTP2Connection")
struct HTTP2ConnectionTests {
    @Test("a request with a body and a response with trailers cross, fields and bytes intact")
    func requestAndResponse() throws {
        var pair = try HTTP2Pair()
        let request = [HTTP2Field(":method", "POST"), HTTP2Field(":scheme", "https"), HTTP2Field(":authority", "a.example"),
                       HTTP2Field(":path", "/grpc.Svc/M"), HTTP2Field("te", "trailers")]
        let id = try #require(pair.client.submitRequest(request, hasBody: true))
        #expect(id == 1)
        pair.client.sendBody(stream: id, Array("hello".utf8))
        pair.exchange()
        pair.client.sendBody(stream: id, Array(" world".utf8))
        pair.client.endBody(stream: id)
        pair.exchange()
        #expect(pair.serverEvents.contains(.headers(stream: 1, kind: .request, fields: request, endStream: false)))
        let body: [UInt8] = pair.serverEvents.flatMap { e -> [UInt8] in if case .data(1, let b) = e { b } else { [] } }
        #expect(String(decoding: body, as: UTF8.self) == "hello world")
        #expect(pair.serverEvents.contains(.endStream(stream: 1)))

        pair.server.submitResponse(stream: 1, [HTTP2Field(":status", "200")], hasBody: true)
        pair.server.sendBody(stream: 1, [0, 0, 0, 0, 0])
        pair.server.endBody(stream: 1, trailers: [HTTP2Field("grpc-status", "0")])
        pair.exchange()
        #expect(pair.clientEvents.contains(.headers(stream: 1, kind: .response, fields: [HTTP2Field(":status", "200")], endStream: false)))
        #expect(pair.clientEvents.contains(.headers(stream: 1, kind: .trailers, fields: [HTTP2Field("grpc-status", "0")], endStream: true)))
        #expect(pair.clientEvents.contains(.streamClosed(stream: 1, errorCode: 0)))
        #expect(pair.server.bufferedBodyBytes == 0)
    }

    @Test("a body larger than the peer's window waits, then leaves as WINDOW_UPDATEs come")
    func flowControl() throws {
        var pair = try HTTP2Pair()
        let id = try #require(pair.client.submitRequest([HTTP2Field(":method", "POST"), HTTP2Field(":scheme", "https"),
                                                         HTTP2Field(":authority", "a"), HTTP2Field(":path", "/")], hasBody: true))
        let big = [UInt8](repeating: 7, count: 3 << 20)
        pair.client.sendBody(stream: id, big)
        pair.client.endBody(stream: id)
        for _ in 0..<64 where !pair.serverEvents.contains(.endStream(stream: id)) { pair.exchange() }
        #expect(pair.serverReceived == big.count)
        #expect(pair.client.bufferedBodyBytes == 0)
    }

    @Test("DATA not consumed is not credited: the peer stops at the stream window, and goes on once consumed")
    func windowsOpenOnlyWhenConsumed() throws {
        var pair = try HTTP2Pair()
        let id = try #require(pair.client.submitRequest([HTTP2Field(":method", "POST"), HTTP2Field(":scheme", "https"),
                                                         HTTP2Field(":authority", "a"), HTTP2Field(":path", "/")], hasBody: true))
        let window = Int(HTTP2Limits.standard.streamWindow)
        pair.client.sendBody(stream: id, [UInt8](repeating: 1, count: 3 * window))
        pair.client.endBody(stream: id)
        for _ in 0..<8 { pair.exchange(consume: false) }
        #expect(pair.serverReceived == window)
        #expect(pair.server.unconsumedBytes == window)
        #expect(pair.client.bufferedBodyBytes == 2 * window)
        // Consuming more than was received credits only what was received.
        pair.server.consume(stream: id, bytes: 10 * window)
        #expect(pair.server.unconsumedBytes == 0)
        for _ in 0..<64 where !pair.serverEvents.contains(.endStream(stream: id)) { pair.exchange() }
        #expect(pair.serverReceived == 3 * window)
        #expect(pair.server.unconsumedBytes == 0 && pair.client.bufferedBodyBytes == 0)
    }

    @Test("a header list over the limit resets the stream, not the connection")
    func headerListLimit() throws {
        var pair = try HTTP2Pair(serverLimits: HTTP2Limits(maxHeaderListSize: 4096))
        let fields = [HTTP2Field(":method", "GET"), HTTP2Field(":scheme", "https"), HTTP2Field(":authority", "a"),
                      HTTP2Field(":path", "/"), HTTP2Field("cookie", String(repeating: "x", count: 8000))]
        let id = try #require(pair.client.submitRequest(fields, hasBody: false))
        pair.exchange()
        #expect(pair.serverEvents.contains { if case .headersRefused(id, _) = $0 { true } else { false } })
        #expect(pair.clientEvents.contains { if case .streamClosed(id, let code) = $0 { code != 0 } else { false } })
        #expect(pair.server.failure == nil)
        let ok = try #require(pair.client.submitRequest(Array(fields.prefix(4)), hasBody: false))
        pair.exchange()
        #expect(pair.serverEvents.contains { if case .headers(ok, .request, _, true) = $0 { true } else { false } })
    }
}

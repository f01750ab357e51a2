import MouchardHTTP2
@testable import MouchardProxy
import Testing

/// A phone (h2 client), the translation machine, and an HTTP/1.1 origin played by the test (it
/// reads what reached it and writes answers by hand), wired through memory.
final class TranslationRig {
    let phone: HTTP2Connection
    let machine: HTTP2TranslationMachine
    var phoneEvents: [HTTP2Event] = []
    var exchanges: [CapturedExchange] = []
    /// What the origin connections received, one string per connection.
    var originConnections: [String] = [""]
    var connectionsAsked = 0
    var upstreamClosed = 0
    var clientClosed = false
    private var toPhone: [UInt8] = []

    init(upstreamReady: Bool = true) throws {
        phone = try HTTP2Connection(role: .client)
        machine = try HTTP2TranslationMachine(target: UpstreamTarget(host: "a.example", port: 443, tls: true), fallbackAuthority: "a.example",
                                              bodyCaptureLimit: 1 << 20, upstreamReady: upstreamReady)
        take(machine.start())
    }

    func take(_ actions: [HTTP2ProxyMachine.Action]) {
        for a in actions {
            switch a {
            case .sendClient(let b): toPhone += b
            case .sendUpstream(let b): originConnections[originConnections.count - 1] += String(decoding: b, as: UTF8.self)
            case .completed(let e): exchanges.append(e)
            case .closeClient: clientClosed = true
            case .closeUpstream: upstreamClosed += 1
            case .connectUpstream:
                connectionsAsked += 1
                originConnections.append("")
            case .webSocketMessages: break
            }
        }
    }

    /// The origin answers with raw HTTP/1.1 bytes.
    func originSends(_ text: String) { take(machine.handle(.upstreamBytes(Array(text.utf8)))) }

    func input(_ input: HTTP2ProxyMachine.Input) { take(machine.handle(input)) }

    /// Moves bytes between the phone and the machine until all is quiet (bounded).
    func run() {
        for _ in 0..<64 {
            let fromPhone = phone.pendingOutput()
            if !fromPhone.isEmpty { take(machine.handle(.clientBytes(fromPhone))) }
            let down = toPhone
            toPhone = []
            phoneEvents += phone.receive(down)
            if fromPhone.isEmpty && down.isEmpty { return }
        }
    }

    func responseFields(_ stream: Int32) -> [HTTP2Field]? {
        for case .headers(stream, .response, let f, _) in phoneEvents { return f }
        return nil
    }

    func body(_ stream: Int32) -> String {
        var out: [UInt8] = []
        for case .data(stream, let b) in phoneEvents { out += b }
        return String(decoding: out, as: UTF8.self)
    }
}

@Suite("HTTP2TranslationMachine")
struct HTTP2TranslationMachineTests {
    static func request(_ method: String, _ path: String) -> [HTTP2Field] {
        [HTTP2Field(":method", method), HTTP2Field(":scheme", "https"), HTTP2Field(":authority", "a.example"), HTTP2Field(":path", path)]
    }

    @Test("multiplexed streams become HTTP/1.1 requests one at a time on a kept-alive connection; answers come back as h2")
    func streamsInTurn() throws {
        let rig = try TranslationRig()
        let a = try #require(rig.phone.submitRequest(Self.request("GET", "/a?idfa=1") + [HTTP2Field("x-idfa", "1")], hasBody: false))
        let b = try #require(rig.phone.submitRequest(Self.request("POST", "/b") + [HTTP2Field("content-type", "application/json")], hasBody: true))
        rig.phone.sendBody(stream: b, Array("{\"lat\":48.85}".utf8))
        rig.phone.endBody(stream: b)
        rig.run()
        // Only the first request went out: HTTP/1.1 carries one at a time.
        #expect(rig.originConnections == ["GET /a?idfa=1 HTTP/1.1\r\nHost: a.example\r\nx-idfa: 1\r\n\r\n"])
        rig.originSends("HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nConnection: keep-alive\r\nKeep-Alive: timeout=5\r\nContent-Length: 4\r\n\r\nok a")
        rig.run()
        #expect(rig.originConnections[0].hasSuffix("POST /b HTTP/1.1\r\nHost: a.example\r\ncontent-type: application/json\r\ncontent-length: 13\r\n\r\n{\"lat\":48.85}"))
        rig.originSends("HTTP/1.1 201 Created\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nok \r\n1\r\nb\r\n0\r\nx-check: 7\r\n\r\n")
        rig.run()

        // The phone got HTTP/2 answers: status, names in lower case, no HTTP/1 connection fields.
        let first = try #require(rig.responseFields(a))
        #expect(first.map(\.nameText) == [":status", "content-type", "content-length"])
        #expect(first.value(of: ":status") == "200" && rig.body(a) == "ok a")
        #expect(rig.responseFields(b)?.value(of: ":status") == "201" && rig.body(b) == "ok b")
        #expect(rig.phoneEvents.contains { if case .headers(b, .trailers, let f, true) = $0 { f.value(of: "x-check") == "7" } else { false } })
        #expect(rig.connectionsAsked == 0 && rig.upstreamClosed == 0)

        // Each stream is one exchange: HTTP/2.0 on the phone's side, its stream id, bodies.
        #expect(rig.exchanges.count == 2)
        let byStream = Dictionary(uniqueKeysWithValues: rig.exchanges.map { ($0.streamID ?? 0, $0) })
        #expect(byStream[a]?.requestHead.version.description == "HTTP/2.0" && byStream[a]?.responseHead?.version.description == "HTTP/2.0")
        #expect(byStream[a]?.requestHead.headers["x-idfa"] == "1" && byStream[a]?.error == nil)
        #expect(String(decoding: byStream[b]?.requestBody.bytes ?? [], as: UTF8.self) == "{\"lat\":48.85}")
        #expect(byStream[b]?.responseHead?.headers["x-check"] == "7")
        #expect(!rig.clientClosed)
    }

    @Test("a body still coming is sent chunked as it arrives")
    func streamingUpload() throws {
        let rig = try TranslationRig()
        let a = try #require(rig.phone.submitRequest(Self.request("PUT", "/up"), hasBody: true))
        rig.phone.sendBody(stream: a, Array("part1".utf8))
        rig.run()
        #expect(rig.originConnections[0] == "PUT /up HTTP/1.1\r\nHost: a.example\r\ntransfer-encoding: chunked\r\n\r\n5\r\npart1\r\n")
        rig.phone.sendBody(stream: a, Array("-2".utf8))
        rig.phone.endBody(stream: a)
        rig.run()
        #expect(rig.originConnections[0].hasSuffix("\r\n2\r\n-2\r\n0\r\n\r\n"))
        rig.originSends("HTTP/1.1 204 No Content\r\n\r\n")
        rig.run()
        #expect(rig.responseFields(a)?.value(of: ":status") == "204")
        #expect(rig.exchanges.count == 1 && rig.exchanges[0].requestBody.bytes == Array("part1-2".utf8))
    }

    @Test("Connection: close and a close-delimited body: the next stream asks for a new origin connection")
    func newConnections() throws {
        let rig = try TranslationRig()
        let a = try #require(rig.phone.submitRequest(Self.request("GET", "/1"), hasBody: false))
        let b = try #require(rig.phone.submitRequest(Self.request("GET", "/2"), hasBody: false))
        let c = try #require(rig.phone.submitRequest(Self.request("GET", "/3"), hasBody: false))
        rig.run()
        rig.originSends("HTTP/1.1 200 OK\r\nConnection: close\r\nContent-Length: 2\r\n\r\nno")
        rig.run()
        #expect(rig.upstreamClosed == 1 && rig.connectionsAsked == 1)
        #expect(rig.originConnections[1].isEmpty)  // nothing before the connection is ready
        rig.input(.upstreamConnected)
        rig.run()
        #expect(rig.originConnections[1].hasPrefix("GET /2 HTTP/1.1\r\n"))
        rig.originSends("HTTP/1.1 200 OK\r\n\r\nuntil the close")
        rig.input(.upstreamEnded)
        rig.run()
        #expect(rig.body(b) == "until the close")
        #expect(rig.connectionsAsked == 2)
        rig.input(.upstreamConnected)
        rig.originSends("HTTP/1.1 200 OK\r\nContent-Length: 1\r\n\r\n3")
        rig.run()
        #expect(rig.originConnections[2].hasPrefix("GET /3 HTTP/1.1\r\n"))
        #expect([a, b, c].map { rig.responseFields($0)?.value(of: ":status") } == ["200", "200", "200"])
        #expect(rig.exchanges.count == 3 && rig.exchanges.allSatisfy { $0.error == nil })
    }

    @Test("a reused connection closed before answering: the request goes again, once, on a new connection")
    func keepAliveRace() throws {
        let rig = try TranslationRig()
        let a = try #require(rig.phone.submitRequest(Self.request("GET", "/1"), hasBody: false))
        rig.run()
        rig.originSends("HTTP/1.1 200 OK\r\nContent-Length: 1\r\n\r\n1")
        let b = try #require(rig.phone.submitRequest(Self.request("GET", "/2"), hasBody: false))
        rig.run()
        rig.input(.upstreamEnded)  // the origin's keep-alive timeout, as the second request left
        #expect(rig.connectionsAsked == 1)
        rig.input(.upstreamConnected)
        #expect(rig.originConnections[1].hasPrefix("GET /2 HTTP/1.1\r\n"))
        rig.input(.upstreamEnded)  // and again: no second retry
        rig.run()
        #expect(rig.responseFields(a)?.value(of: ":status") == "200")
        #expect(rig.responseFields(b)?.value(of: ":status") == "502")
        #expect(rig.exchanges.last?.error == "upstream closed the connection before the response ended")
    }

    @Test("an origin that cannot be reached: the waiting streams get a 502 and the phone a GOAWAY")
    func unreachable() throws {
        let rig = try TranslationRig(upstreamReady: false)
        let a = try #require(rig.phone.submitRequest(Self.request("GET", "/1"), hasBody: false))
        let b = try #require(rig.phone.submitRequest(Self.request("GET", "/2"), hasBody: false))
        rig.run()
        #expect(rig.connectionsAsked == 1)
        rig.input(.upstreamFailed("connection refused"))
        rig.run()
        #expect(rig.responseFields(a)?.value(of: ":status") == "502" && rig.responseFields(b)?.value(of: ":status") == "502")
        #expect(rig.body(a) == "upstream: connection refused\n")
        #expect(rig.phoneEvents.contains { if case .goaway = $0 { true } else { false } })
        #expect(rig.exchanges.count == 2 && rig.clientClosed)
    }

    @Test("a malformed answer: 502 for its stream, the connection dropped, the next stream on a new one")
    func malformedAnswer() throws {
        let rig = try TranslationRig()
        let a = try #require(rig.phone.submitRequest(Self.request("GET", "/1"), hasBody: false))
        let b = try #require(rig.phone.submitRequest(Self.request("GET", "/2"), hasBody: false))
        rig.run()
        rig.originSends("SSH-2.0-OpenSSH\r\n\r\n")
        rig.run()
        #expect(rig.responseFields(a)?.value(of: ":status") == "502")
        #expect(rig.upstreamClosed == 1 && rig.connectionsAsked == 1)
        rig.input(.upstreamConnected)
        rig.originSends("HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n")
        rig.run()
        #expect(rig.responseFields(b)?.value(of: ":status") == "200")
    }

    @Test("the phone resetting the stream on the wire drops that origin connection")
    func phoneResets() throws {
        let rig = try TranslationRig()
        let a = try #require(rig.phone.submitRequest(Self.request("GET", "/slow"), hasBody: false))
        rig.run()
        rig.phone.reset(stream: a, code: HTTP2ErrorCode.cancel)
        rig.run()
        #expect(rig.upstreamClosed == 1)
        #expect(rig.exchanges.first?.error == "stream reset (CANCEL)")
        rig.originSends("HTTP/1.1 200 OK\r\nContent-Length: 4\r\n\r\nlate")  // a stray answer is ignored
        #expect(rig.exchanges.count == 1 && !rig.clientClosed)
    }
}

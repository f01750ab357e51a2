import Testing
import MouchardWire
@testable import MouchardProxy

/// Playbook tests of the sans-I/O forward proxy: bytes in → expected actions out, no sockets.
@Suite struct ForwardProxyMachineTests {
    static func bytes(_ s: String) -> [UInt8] { Array(s.utf8) }

    /// Runs inputs through a machine and flattens its actions into a readable script.
    struct Playbook {
        var machine: ForwardProxyMachine
        var log: [String] = []
        var exchanges: [CapturedExchange] = []
        var upstreamBytes: [UInt8] = []
        var clientBytes: [UInt8] = []

        init(_ configuration: ForwardProxyMachine.Configuration = .init()) {
            machine = ForwardProxyMachine(configuration: configuration)
        }

        mutating func feed(_ input: ForwardProxyMachine.Input) {
            for action in machine.handle(input) {
                switch action {
                case .connectUpstream(let t): log.append("connect \(t)")
                case .sendUpstream(let b): upstreamBytes += b
                case .sendClient(let b): clientBytes += b
                case .releaseUpstream: log.append("release")
                case .closeUpstream: log.append("close upstream")
                case .closeClient: log.append("close client")
                case .openTunnel(let t, let leftover): log.append("tunnel \(t.authority) +\(leftover.count)")
                case .completed(let e):
                    exchanges.append(e)
                    log.append("completed")
                case .switchProtocols(let c, let u): log.append("switch +\(c.count) +\(u.count)")
                }
            }
        }

        mutating func client(_ s: String) { feed(.clientBytes(bytes(s))) }
        mutating func upstream(_ s: String) { feed(.upstreamBytes(bytes(s))) }

        /// Takes what was sent upstream so far, as text.
        mutating func takeUpstream() -> String {
            defer { upstreamBytes = [] }
            return String(decoding: upstreamBytes, as: UTF8.self)
        }

        mutating func takeClient() -> String {
            defer { clientBytes = [] }
            return String(decoding: clientBytes, as: UTF8.self)
        }
    }

    @Test func absoluteFormRequestIsRewrittenAndHopByHopHeadersRemoved() {
        var p = Playbook()
        p.client("GET http://example.com:8080/a?b=1 HTTP/1.1\r\nHost: wrong\r\nProxy-Connection: keep-alive\r\n" +
                 "Connection: X-Secret, keep-alive\r\nX-Secret: s\r\nKeep-Alive: 5\r\nTE: trailers\r\n" +
                 "Proxy-Authorization: Basic eA==\r\nUser-Agent: t\r\n\r\n")
        #expect(p.log == ["connect http://example.com:8080"])
        let sent = p.takeUpstream()
        #expect(sent.hasPrefix("GET /a?b=1 HTTP/1.1\r\n"))
        #expect(sent.contains("Host: example.com:8080\r\n"))
        #expect(sent.contains("User-Agent: t\r\n"))
        #expect(sent.contains("Via: 1.1 mouchard\r\n"))
        for gone in ["Proxy-Connection", "Connection", "X-Secret", "Keep-Alive", "TE:", "Proxy-Authorization", "wrong"] {
            #expect(!sent.contains(gone), "\(gone) must not be forwarded")
        }
        p.upstream("HTTP/1.1 200 OK\r\nContent-Length: 5\r\nConnection: keep-alive\r\nKeep-Alive: timeout=5\r\n\r\nhello")
        let answer = p.takeClient()
        #expect(answer.hasPrefix("HTTP/1.1 200 OK\r\n"))
        #expect(answer.hasSuffix("\r\n\r\nhello"))
        #expect(!answer.contains("Keep-Alive"))
        #expect(p.log == ["connect http://example.com:8080", "completed", "release"])
        #expect(p.exchanges.first?.responseBody.bytes == Self.bytes("hello"))
        #expect(p.exchanges.first?.requestHead.target == "http://example.com:8080/a?b=1")
    }

    @Test func keepAliveServesTheNextRequestAndPipelinedRequestsWait() {
        var p = Playbook()
        p.client("GET http://a.test/1 HTTP/1.1\r\nHost: a.test\r\n\r\nGET http://b.test/2 HTTP/1.1\r\nHost: b.test\r\n\r\n")
        #expect(p.log == ["connect http://a.test:80"])
        #expect(p.machine.wantsClientPaused)
        #expect(p.takeUpstream().hasPrefix("GET /1 "))
        p.upstream("HTTP/1.1 204 No Content\r\n\r\n")
        #expect(p.log == ["connect http://a.test:80", "completed", "release", "connect http://b.test:80"])
        #expect(p.takeUpstream().hasPrefix("GET /2 "))
        p.upstream("HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok")
        #expect(p.exchanges.count == 2)
        #expect(p.log.last == "release")
        #expect(!p.machine.isClosed)
    }

    @Test func maxForwardsAndAsteriskFormFollowTheRFC() {
        var zero = Playbook()
        zero.client("TRACE http://a.test/x HTTP/1.1\r\nHost: a.test\r\nMax-Forwards: 0\r\nCookie: secret\r\nX-Probe: 1\r\n\r\n")
        let echo = zero.takeClient()
        #expect(zero.takeUpstream().isEmpty)
        #expect(echo.hasPrefix("HTTP/1.1 200 OK\r\nContent-Type: message/http\r\n"))
        #expect(echo.contains("\r\n\r\nTRACE http://a.test/x HTTP/1.1\r\n") && echo.contains("X-Probe: 1\r\n"))
        #expect(!echo.contains("secret"))
        var decremented = Playbook()
        decremented.client("OPTIONS http://a.test:8080 HTTP/1.1\r\nHost: a.test:8080\r\nMax-Forwards: 7\r\n\r\n")
        let sent = decremented.takeUpstream()
        #expect(sent.hasPrefix("OPTIONS * HTTP/1.1\r\n"))
        #expect(sent.contains("Max-Forwards: 6\r\n"))
    }

    @Test func http10ClientsAreNotKeptAndViaNamesTheReceivedVersion() {
        var p = Playbook()
        p.client("GET http://a.test/ HTTP/1.0\r\nConnection: keep-alive\r\nContent-Length: 0\r\nContent-Length: 0\r\n\r\n")
        let sent = p.takeUpstream()
        #expect(sent.contains("Via: 1.0 mouchard\r\n"))
        #expect(sent.components(separatedBy: "Content-Length").count == 2)
        p.upstream("HTTP/1.0 200 OK\r\nContent-Length: 2\r\nContent-Length: 2\r\n\r\nok")
        let answer = p.takeClient()
        #expect(answer.contains("Via: 1.0 mouchard\r\nConnection: close\r\n"))
        #expect(answer.components(separatedBy: "Content-Length").count == 2)
        #expect(p.machine.isClosed)
    }

    @Test func chunkedBodiesAreRechunkedAndCaptured() {
        var p = Playbook()
        p.client("POST http://a.test/up HTTP/1.1\r\nHost: a.test\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n")
        p.client("6\r\n world\r\n0\r\nX-Trailer: 1\r\n\r\n")
        let sent = p.takeUpstream()
        #expect(sent.contains("Transfer-Encoding: chunked\r\n"))
        #expect(sent.hasSuffix("\r\n\r\n5\r\nhello\r\n6\r\n world\r\n0\r\nX-Trailer: 1\r\n\r\n"))
        p.upstream("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n0\r\nX-Digest: d\r\nConnection: x\r\n\r\n")
        let answer = p.takeClient()
        #expect(answer.contains("Transfer-Encoding: chunked\r\n"))
        // Trailers are forwarded (RFC 9112 §7.1.2), less hop-by-hop fields.
        #expect(answer.hasSuffix("3\r\nabc\r\n0\r\nX-Digest: d\r\n\r\n"))
        #expect(p.exchanges.first?.requestBody.bytes == Self.bytes("hello world"))
        #expect(p.exchanges.first?.responseBody.bytes == Self.bytes("abc"))
    }

    @Test func closeDelimitedResponseBecomesChunkedForHTTP11Clients() {
        var p = Playbook()
        p.client("GET http://a.test/ HTTP/1.1\r\nHost: a.test\r\n\r\n")
        p.upstream("HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\n\r\nstream")
        p.feed(.upstreamEnded)
        let answer = p.takeClient()
        #expect(answer.contains("Transfer-Encoding: chunked\r\n"))
        #expect(answer.hasSuffix("6\r\nstream\r\n0\r\n\r\n"))
        #expect(p.log == ["connect http://a.test:80", "completed", "close upstream"])
        #expect(!p.machine.isClosed)
    }

    @Test func bodyCaptureStopsAtTheLimitAndMarksTruncation() {
        var p = Playbook(.init(bodyCaptureLimit: 4))
        p.client("POST http://a.test/ HTTP/1.1\r\nHost: a.test\r\nContent-Length: 10\r\n\r\n0123456789")
        #expect(p.takeUpstream().hasSuffix("\r\n\r\n0123456789"))
        p.upstream("HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n")
        let e = p.exchanges.first
        #expect(e?.requestBody.bytes == Self.bytes("0123"))
        #expect(e?.requestBody.truncated == true)
        #expect(e?.requestBody.totalBytes == 10)
    }

    @Test func connectOpensATunnelWithTheBytesAfterTheHead() {
        var p = Playbook()
        p.client("CONNECT api.test:443 HTTP/1.1\r\nHost: api.test:443\r\n\r\n\u{16}\u{03}\u{01}")
        #expect(p.log == ["tunnel api.test:443 +3"])
    }

    @Test func requestsToTheProxyItselfAreLoops() {
        let config = ForwardProxyMachine.Configuration(isSelf: { host, port in host == "127.0.0.1" && port == 8080 })
        var direct = Playbook(config)
        direct.client("GET / HTTP/1.1\r\nHost: 127.0.0.1:8080\r\n\r\n")
        #expect(direct.takeClient().hasPrefix("HTTP/1.1 508 Loop Detected\r\n"))
        #expect(direct.log == ["close client"])

        var absolute = Playbook(config)
        absolute.client("GET http://127.0.0.1:8080/x HTTP/1.1\r\nHost: 127.0.0.1:8080\r\n\r\n")
        #expect(absolute.takeClient().hasPrefix("HTTP/1.1 508 "))

        var via = Playbook()
        via.client("GET http://a.test/ HTTP/1.1\r\nHost: a.test\r\nVia: 1.1 mouchard\r\n\r\n")
        #expect(via.takeClient().hasPrefix("HTTP/1.1 508 "))
    }

    @Test func upstreamFailuresBecome502Or504NamingTheCause() {
        var refused = Playbook()
        refused.client("GET http://a.test/ HTTP/1.1\r\nHost: a.test\r\n\r\n")
        refused.feed(.upstreamFailed(.refused("a.test:80")))
        let text = refused.takeClient()
        #expect(text.hasPrefix("HTTP/1.1 502 Bad Gateway\r\n"))
        #expect(text.contains("connection refused"))
        #expect(refused.exchanges.first?.error?.contains("connection refused") == true)
        #expect(refused.log.suffix(2) == ["close upstream", "close client"])

        var slow = Playbook()
        slow.client("GET http://a.test/ HTTP/1.1\r\nHost: a.test\r\n\r\n")
        slow.feed(.upstreamFailed(.timedOut("no response within 60 s")))
        #expect(slow.takeClient().hasPrefix("HTTP/1.1 504 Gateway Timeout\r\n"))

        var early = Playbook()
        early.client("GET http://a.test/ HTTP/1.1\r\nHost: a.test\r\n\r\n")
        early.feed(.upstreamEnded)
        #expect(early.takeClient().hasPrefix("HTTP/1.1 502 "))
    }

    @Test func invalidRequestsGet400AndTheConnectionCloses() {
        var p = Playbook()
        p.client("GET http://a.test/ HTTP/1.1\r\nHost: a.test\r\nContent-Length: 1\r\nTransfer-Encoding: chunked\r\n\r\n")
        #expect(p.takeClient().hasPrefix("HTTP/1.1 400 Bad Request\r\n"))
        #expect(p.log == ["close client"])
        #expect(p.machine.isClosed)
    }

    @Test func connectionCloseFromTheClientClosesAfterTheResponse() {
        var p = Playbook()
        p.client("GET http://a.test/ HTTP/1.1\r\nHost: a.test\r\nConnection: close\r\n\r\n")
        p.upstream("HTTP/1.1 200 OK\r\nContent-Length: 1\r\n\r\nx")
        #expect(p.takeClient().contains("Connection: close\r\n"))
        #expect(p.log.suffix(2) == ["release", "close client"])
    }

    @Test func expectContinueIsAnsweredByTheProxy() {
        var p = Playbook()
        p.client("PUT http://a.test/f HTTP/1.1\r\nHost: a.test\r\nContent-Length: 2\r\nExpect: 100-continue\r\n\r\n")
        #expect(p.takeClient() == "HTTP/1.1 100 Continue\r\n\r\n")
        #expect(!p.takeUpstream().contains("Expect"))
        p.client("hi")
        p.upstream("HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 201 Created\r\nContent-Length: 0\r\n\r\n")
        #expect(p.takeClient().hasPrefix("HTTP/1.1 201 Created\r\n"))
    }

    @Test func interimResponsesOtherThanContinueReachTheClient() {
        var p = Playbook()
        p.client("GET http://a.test/page HTTP/1.1\r\nHost: a.test\r\n\r\n")
        _ = p.takeUpstream()
        p.upstream("HTTP/1.1 103 Early Hints\r\nLink: </s.css>; rel=preload\r\nConnection: keep-alive\r\n\r\n"
                   + "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok")
        let sent = p.takeClient()
        #expect(sent.hasPrefix("HTTP/1.1 103 Early Hints\r\nLink: </s.css>; rel=preload\r\n\r\nHTTP/1.1 200 OK\r\n"))
        // An HTTP/1.0 client gets no interim response.
        var old = Playbook()
        old.client("GET http://a.test/page HTTP/1.0\r\nHost: a.test\r\n\r\n")
        old.upstream("HTTP/1.1 103 Early Hints\r\nLink: </s.css>\r\n\r\nHTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok")
        #expect(old.takeClient().hasPrefix("HTTP/1.1 200 OK\r\n"))
    }

    @Test func headResponsesHaveNoBody() {
        var p = Playbook()
        p.client("HEAD http://a.test/ HTTP/1.1\r\nHost: a.test\r\n\r\n")
        p.upstream("HTTP/1.1 200 OK\r\nContent-Length: 1000\r\n\r\n")
        #expect(p.log == ["connect http://a.test:80", "completed", "release"])
        #expect(p.takeClient().contains("Content-Length: 1000\r\n"))
    }

    @Test func requestsInAnInterceptedTunnelGoToTheTunnelTarget() {
        let target = UpstreamTarget(host: "api.test", port: 443, tls: true)
        var p = Playbook(.init(scheme: "https", tunnelTarget: target))
        p.client("GET /v1?idfa=1 HTTP/1.1\r\nHost: api.test\r\n\r\n")
        #expect(p.log == ["connect https://api.test:443"])
        #expect(p.takeUpstream().hasPrefix("GET /v1?idfa=1 HTTP/1.1\r\nHost: api.test\r\n"))
        p.upstream("HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n")
        #expect(p.exchanges.first?.scheme == "https")
    }

    @Test func webSocketUpgradeIsForwardedAndBecomesATunnel() {
        var p = Playbook()
        p.client("GET http://ws.test/chat HTTP/1.1\r\nHost: ws.test\r\nConnection: keep-alive, Upgrade\r\n" +
                 "Upgrade: websocket\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n")
        let sent = p.takeUpstream()
        #expect(sent.contains("Connection: Upgrade\r\n"))
        #expect(sent.contains("Upgrade: websocket\r\n"))
        #expect(sent.contains("Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n"))
        p.upstream("HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n" +
                   "Sec-WebSocket-Accept: s3pPLMBiTxaQ9kYGzzhZRbK+xOo=\r\n\r\n\u{01}\u{02}hi")
        let answer = p.takeClient()
        #expect(answer.hasPrefix("HTTP/1.1 101 Switching Protocols\r\n"))
        #expect(answer.contains("Upgrade: websocket\r\n"))
        #expect(p.log == ["connect http://ws.test:80", "completed", "switch +0 +4"])
        #expect(p.exchanges.first?.responseHead?.status == 101)
        #expect(p.machine.wantsClientPaused)  // the machine is out of the way: the driver copies bytes
    }

    @Test func upgradeWithoutConnectionTokenIsNotForwarded() {
        var p = Playbook()
        p.client("GET http://ws.test/ HTTP/1.1\r\nHost: ws.test\r\nUpgrade: websocket\r\n\r\n")
        #expect(!p.takeUpstream().contains("Upgrade"))
    }

    @Test func onboardingRequestsAreAnsweredLocallyAndNotRecorded() {
        let page = LocalResponse(status: 200, reason: "OK", contentType: "text/html", body: Self.bytes("<h1>CA</h1>"))
        var p = Playbook(.init(localResponder: { head in head.target.hasPrefix("http://mouchard.ca/") ? page : nil }))
        p.client("GET http://mouchard.ca/ HTTP/1.1\r\nHost: mouchard.ca\r\n\r\n")
        #expect(p.takeClient().hasSuffix("<h1>CA</h1>"))
        #expect(p.exchanges.isEmpty)
        #expect(p.log.isEmpty)
        p.client("GET http://a.test/ HTTP/1.1\r\nHost: a.test\r\n\r\n")
        #expect(p.log == ["connect http://a.test:80"])
    }
}

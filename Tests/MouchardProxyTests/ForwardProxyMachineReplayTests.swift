import Testing
import MouchardFlow
import MouchardWire
@testable import MouchardProxy

/// The machine with a response source: the request is buffered whole, then served, forwarded or closed.
extension ForwardProxyMachineTests {
    /// Answers `/hit` with a recorded chunked-looking response, forwards `/forward`, closes on anything else.
    struct ScriptedSource: ResponseSource {
        func answer(_ request: HTTPRequest) -> ResponseDecision {
            switch request.path {
            case "/hit":
                let head = HTTPResponseHead(status: 200, reason: "OK", headers: [
                    ("Content-Type", "text/plain"), ("Transfer-Encoding", "chunked"), ("Connection", "keep-alive"), ("X-Seen", String(request.body.count)),
                ])
                return .respond(HTTPResponse(head: head, body: Array("recorded".utf8)), note: "served flow 7")
            case "/forward": return .forward(note: "missed, forwarded")
            default: return .close(note: "missed")
            }
        }
    }

    static func replaying(origin: Bool) -> ForwardProxyMachine.Configuration {
        .init(isSelf: { host, port in host == "127.0.0.1" && port == 8081 },
              replay: ReplayServing(source: ScriptedSource(), acceptsOriginRequests: origin, requestBodyLimit: 16))
    }

    @Test func servesARecordedResponseReframedAfterTheWholeBody() {
        var p = Playbook(Self.replaying(origin: false))
        p.client("POST http://api.example.com/hit HTTP/1.1\r\nHost: api.example.com\r\nContent-Length: 5\r\n\r\nab")
        #expect(p.log.isEmpty)  // nothing upstream, nothing answered before the body is complete
        p.client("cde")
        #expect(p.log == ["completed"])
        #expect(p.upstreamBytes.isEmpty)
        #expect(p.takeClient() == "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nX-Seen: 5\r\nContent-Length: 8\r\n\r\nrecorded")
        #expect(p.exchanges.first?.replay == "served flow 7")
        #expect(p.exchanges.first?.requestBody.bytes == Array("abcde".utf8))
        #expect(p.exchanges.first?.responseBody.bytes == Array("recorded".utf8))
        // Keep-alive: the next request on the connection is served too.
        p.client("GET http://api.example.com/hit HTTP/1.1\r\nHost: api.example.com\r\n\r\n")
        #expect(p.exchanges.count == 2)
        #expect(p.takeClient().hasPrefix("HTTP/1.1 200 OK"))
    }

    @Test func aMissForwardedGoesUpstreamWithTheBufferedBody() {
        var p = Playbook(Self.replaying(origin: false))
        p.client("POST http://api.example.com/forward HTTP/1.1\r\nHost: api.example.com\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n0\r\n\r\n")
        #expect(p.log == ["connect http://api.example.com:80"])
        let sent = p.takeUpstream()
        #expect(sent.hasPrefix("POST /forward HTTP/1.1\r\n"))
        #expect(sent.contains("Content-Length: 3\r\n") && !sent.lowercased().contains("transfer-encoding"))
        #expect(sent.hasSuffix("\r\n\r\nabc"))
        p.upstream("HTTP/1.1 201 Created\r\nContent-Length: 2\r\n\r\nok")
        #expect(p.takeClient().hasSuffix("ok"))
        #expect(p.exchanges.first?.replay == "missed, forwarded")
        #expect(p.exchanges.first?.responseHead?.status == 201)
    }

    @Test func aMissClosedIsRecordedAndClosesTheClient() {
        var p = Playbook(Self.replaying(origin: false))
        p.client("GET http://api.example.com/other HTTP/1.1\r\nHost: api.example.com\r\n\r\n")
        #expect(p.log == ["completed", "close client"])
        #expect(p.clientBytes.isEmpty)
        #expect(p.exchanges.first?.error?.contains("no recorded response") == true)
    }

    @Test func originFormIsAnsweredOnlyWhenActingAsAnOrigin() {
        var origin = Playbook(Self.replaying(origin: true))
        origin.client("GET /hit HTTP/1.1\r\nHost: 127.0.0.1:8081\r\n\r\n")
        #expect(origin.takeClient().hasPrefix("HTTP/1.1 200 OK"))
        // Forwarding a miss to the mock's own address would loop.
        origin.client("GET /forward HTTP/1.1\r\nHost: 127.0.0.1:8081\r\n\r\n")
        #expect(origin.takeClient().hasPrefix("HTTP/1.1 508"))
        var proxy = Playbook(Self.replaying(origin: false))
        proxy.client("GET /hit HTTP/1.1\r\nHost: api.example.com\r\n\r\n")
        #expect(proxy.takeClient().hasPrefix("HTTP/1.1 508"))
    }

    @Test func aBodyOverTheLimitIs413() {
        var p = Playbook(Self.replaying(origin: false))
        p.client("POST http://api.example.com/hit HTTP/1.1\r\nHost: api.example.com\r\nContent-Length: 20\r\n\r\n" + String(repeating: "x", count: 20))
        #expect(p.takeClient().hasPrefix("HTTP/1.1 413"))
        #expect(p.log == ["completed", "close client"])
        #expect(p.exchanges.first?.error?.contains("larger than the replay limit") == true)
    }
}

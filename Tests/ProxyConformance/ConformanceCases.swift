import Foundation

/// The forward-proxy cases (RFC 9110 and RFC 9112), each with its own scripted origin.
public enum ConformanceCases {
    public static let all: [ConformanceCase] = viaCases + maxForwardsCases + targetCases + persistenceCases
        + contentLengthCases + tunnelCases + messageCases

    // MARK: Via (RFC 9110 §7.6.3)

    static let viaCases: [ConformanceCase] = [
        ConformanceCase(name: "via-request", reference: "RFC 9110 §7.6.3",
                        requirement: "a forwarded request keeps the earlier Via elements and gets one more from the proxy") { ctx in
            let (origin, seen, _) = try exchange(ctx, "GET", "/via", headers: "Via: 1.0 first-hop\r\n")
            defer { origin.stop() }
            let via = seen.elements("Via")
            try require(via.count == 2 && via[0] == "1.0 first-hop" && via[1].hasPrefix("1.1 "), "the origin saw Via \(via)")
        },
        ConformanceCase(name: "via-response", reference: "RFC 9110 §7.6.3",
                        requirement: "a forwarded response keeps the origin's Via elements and gets one more from the proxy") { ctx in
            let (origin, _, response) = try exchange(ctx, "GET", "/via", answer: Origins.ok(extra: "Via: 1.1 origin-cdn\r\n"))
            defer { origin.stop() }
            let via = response.elements("Via")
            try require(via.count == 2 && via[0] == "1.1 origin-cdn" && via[1].hasPrefix("1.1 "), "the client saw Via \(via)")
        },
        ConformanceCase(name: "via-received-protocol", reference: "RFC 9110 §7.6.3",
                        requirement: "the Via element names the version each message was received with (HTTP/1.0 both ways)") { ctx in
            let (origin, seen, response) = try exchange(ctx, "GET", "/via10", version: "HTTP/1.0",
                                                        answer: "HTTP/1.0 200 OK\r\nContent-Length: 2\r\n\r\nok")
            defer { origin.stop() }
            try require(seen.elements("Via").last?.hasPrefix("1.0 ") == true, "the origin saw Via \(seen.elements("Via"))")
            try require(response.elements("Via").last?.hasPrefix("1.0 ") == true, "the client saw Via \(response.elements("Via"))")
        },
    ]

    // MARK: Max-Forwards (RFC 9110 §7.6.2)

    static let maxForwardsCases: [ConformanceCase] = [
        ConformanceCase(name: "max-forwards-options-zero", reference: "RFC 9110 §7.6.2",
                        requirement: "OPTIONS with Max-Forwards: 0 is answered by the proxy, not forwarded") { ctx in
            try answeredByTheProxy(ctx, method: "OPTIONS") { r in
                try require((200..<300).contains(r.status ?? 0), "status \(r.status.map(String.init) ?? "none"), want 2xx")
            }
        },
        ConformanceCase(name: "max-forwards-trace-zero", reference: "RFC 9110 §7.6.2, §9.3.8",
                        requirement: "TRACE with Max-Forwards: 0 is answered by the proxy with the request as message/http") { ctx in
            try answeredByTheProxy(ctx, method: "TRACE") { r in
                try require(r.status == 200, "status \(r.status.map(String.init) ?? "none"), want 200")
                try require(r.values("Content-Type").first?.lowercased().hasPrefix("message/http") == true,
                            "Content-Type \(r.values("Content-Type"))")
                try require(r.bodyText.hasPrefix("TRACE ") && r.bodyText.contains("X-Probe: 42"),
                            "the body does not echo the request: \(r.bodyText.prefix(120))")
            }
        },
        ConformanceCase(name: "max-forwards-decremented", reference: "RFC 9110 §7.6.2",
                        requirement: "OPTIONS and TRACE with Max-Forwards above 0 are forwarded with it decremented") { ctx in
            for (method, sent, expected) in [("OPTIONS", "3", "2"), ("TRACE", "1", "0")] {
                let (origin, seen, _) = try exchange(ctx, method, "/mf", headers: "Max-Forwards: \(sent)\r\n")
                origin.stop()
                try require(seen.values("Max-Forwards") == [expected],
                            "\(method) with Max-Forwards \(sent): the origin saw \(seen.values("Max-Forwards"))")
            }
        },
    ]

    // MARK: Request targets (RFC 9112 §3.2)

    static let targetCases: [ConformanceCase] = [
        ConformanceCase(name: "options-asterisk-form", reference: "RFC 9112 §3.2.4",
                        requirement: "OPTIONS for an absolute URI with an empty path is forwarded as OPTIONS *") { ctx in
            let (origin, seen, _) = try exchange(ctx, "OPTIONS", "")
            defer { origin.stop() }
            try require(seen.target == "*", "the origin saw the request-target \(seen.target ?? "none")")
        },
        ConformanceCase(name: "absolute-form-host", reference: "RFC 9112 §3.2.2",
                        requirement: "the Host of an absolute-form request is replaced by the target URI's authority") { ctx in
            let (origin, seen, _) = try exchange(ctx, "GET", "/host", host: "wrong.invalid")
            defer { origin.stop() }
            try require(seen.values("Host") == [origin.authority], "the origin saw Host \(seen.values("Host"))")
        },
        ConformanceCase(name: "hop-by-hop-removed", reference: "RFC 9110 §7.6.1",
                        requirement: "fields named by Connection, Keep-Alive and Proxy-Connection are not forwarded either way") { ctx in
            let (origin, seen, response) = try exchange(
                ctx, "GET", "/hop",
                headers: "Connection: X-Hop\r\nX-Hop: secret\r\nKeep-Alive: timeout=5\r\nProxy-Connection: keep-alive\r\nX-End: kept\r\n",
                answer: Origins.ok(extra: "Connection: X-Resp-Hop\r\nX-Resp-Hop: 1\r\nX-End: kept\r\n"))
            defer { origin.stop() }
            for name in ["X-Hop", "Keep-Alive", "Proxy-Connection"] {
                try require(seen.values(name).isEmpty, "the origin saw \(name): \(seen.values(name))")
            }
            try require(seen.values("X-End") == ["kept"], "an end-to-end request field was lost")
            try require(response.values("X-Resp-Hop").isEmpty, "the client saw X-Resp-Hop")
            try require(response.values("X-End") == ["kept"], "an end-to-end response field was lost")
        },
        ConformanceCase(name: "own-version-forwarded", reference: "RFC 9110 §2.5",
                        requirement: "the proxy sends its own HTTP version (1.1) in messages it forwards") { ctx in
            let (origin, seen, response) = try exchange(ctx, "GET", "/v", version: "HTTP/1.0")
            defer { origin.stop() }
            try require(seen.version == "HTTP/1.1", "the origin saw \(seen.version ?? "none")")
            try require(response.version == "HTTP/1.1", "the client saw \(response.version ?? "none")")
        },
    ]

    // MARK: Persistence (RFC 9112 §9.3, §6.1)

    static let persistenceCases: [ConformanceCase] = [
        ConformanceCase(name: "http10-client-not-persistent", reference: "RFC 9112 §9.3",
                        requirement: "a proxy does not keep a connection with an HTTP/1.0 client, even with Connection: keep-alive") { ctx in
            let origin = try ScriptedOrigin(Origins.answering { _ in Origins.ok() })
            defer { origin.stop() }
            let client = try ctx.client()
            defer { client.close() }
            try client.send("GET http://\(origin.authority)/p HTTP/1.0\r\nHost: \(origin.authority)\r\nConnection: keep-alive\r\n\r\n")
            let r = try client.readFinalResponse(to: "GET", timeout: ctx.patience)
            try require(r.status == 200 && r.bodyText == "ok", "status \(r.status.map(String.init) ?? "none"), body \(r.bodyText)")
            try require(!r.elements("Connection").map { $0.lowercased() }.contains("keep-alive"), "the response offers keep-alive")
            try require(client.closesWithin(2), "the connection stayed open after the response")
        },
        ConformanceCase(name: "http10-client-no-chunked", reference: "RFC 9112 §6.1",
                        requirement: "an HTTP/1.0 client never gets Transfer-Encoding; a chunked body reaches it decoded") { ctx in
            let (origin, _, r) = try exchange(
                ctx, "GET", "/c", version: "HTTP/1.0",
                answer: "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n6\r\nhello \r\n5\r\nworld\r\n0\r\n\r\n")
            defer { origin.stop() }
            try require(r.values("Transfer-Encoding").isEmpty, "the client saw Transfer-Encoding \(r.values("Transfer-Encoding"))")
            try require(r.bodyText == "hello world", "the client got \(r.bodyText)")
        },
        ConformanceCase(name: "pipelined-in-order", reference: "RFC 9112 §9.3.2",
                        requirement: "responses to pipelined requests come in the order of the requests") { ctx in
            let origin = try ScriptedOrigin(Origins.answering { r in
                if r.target?.hasSuffix("/slow") == true { Thread.sleep(forTimeInterval: 0.5) }
                return Origins.ok(r.target ?? "")
            })
            defer { origin.stop() }
            let client = try ctx.client()
            defer { client.close() }
            let paths = ["/slow", "/fast", "/third"]
            try client.send(paths.map { "GET http://\(origin.authority)\($0) HTTP/1.1\r\nHost: \(origin.authority)\r\n\r\n" }.joined())
            var bodies: [String] = []
            for _ in paths {
                let r = try client.readFinalResponse(to: "GET", timeout: ctx.patience)
                bodies.append(r.bodyText)
            }
            try require(bodies == paths, "responses came as \(bodies)")
        },
    ]

    // MARK: Content-Length (RFC 9110 §8.6, RFC 9112 §6.3)

    static let contentLengthCases: [ConformanceCase] = [
        identicalRequestLengths("content-length-repeated-fields", "Content-Length: 5\r\nContent-Length: 5\r\n"),
        identicalRequestLengths("content-length-repeated-list", "Content-Length: 5, 5\r\n"),
        ConformanceCase(name: "content-length-conflict-request", reference: "RFC 9112 §6.3",
                        requirement: "a request with differing Content-Length values gets 400, is not forwarded, and the connection closes") { ctx in
            let origin = try ScriptedOrigin(Origins.answering { _ in Origins.ok() })
            defer { origin.stop() }
            let client = try ctx.client()
            defer { client.close() }
            try client.send("POST http://\(origin.authority)/cl HTTP/1.1\r\nHost: \(origin.authority)\r\n" +
                            "Content-Length: 5\r\nContent-Length: 6\r\n\r\nhello!")
            let r = try client.readFinalResponse(to: "POST", timeout: ctx.patience)
            try require(r.status == 400, "status \(r.status.map(String.init) ?? "none"), want 400")
            try require(client.closesWithin(2), "the connection stayed open")
            try require(origin.requests.isEmpty, "the origin received the request")
        },
        ConformanceCase(name: "content-length-repeated-response", reference: "RFC 9110 §8.6",
                        requirement: "a response with repeated identical Content-Length reaches the client with one, or is refused with 502") { ctx in
            let (origin, _, r) = try exchange(ctx, "GET", "/cl", answer: "HTTP/1.1 200 OK\r\nContent-Length: 2\r\nContent-Length: 2\r\n\r\nok")
            defer { origin.stop() }
            if r.status == 502 { return }
            try require(r.status == 200 && r.bodyText == "ok", "status \(r.status.map(String.init) ?? "none"), body \(r.bodyText)")
            try require(r.values("Content-Length").count <= 1 && r.elements("Content-Length").count <= 1,
                        "the client saw Content-Length \(r.values("Content-Length"))")
        },
        ConformanceCase(name: "content-length-conflict-response", reference: "RFC 9112 §6.3",
                        requirement: "a response with differing Content-Length values is discarded and the client gets 502") { ctx in
            let (origin, _, r) = try exchange(ctx, "GET", "/cl", answer: "HTTP/1.1 200 OK\r\nContent-Length: 2\r\nContent-Length: 3\r\n\r\nok!")
            defer { origin.stop() }
            try require(r.status == 502, "status \(r.status.map(String.init) ?? "none"), want 502")
        },
    ]

    // MARK: CONNECT and timeouts (RFC 9110 §9.3.6, §15.6.5)

    static let tunnelCases: [ConformanceCase] = [
        ConformanceCase(name: "connect-server-first", reference: "RFC 9110 §9.3.6",
                        requirement: "after CONNECT, a server that speaks first (an SMTP banner) is heard without the client sending anything") { ctx in
            let origin = try ScriptedOrigin { c in
                c.send("220 conformance.test ESMTP ready\r\n")
                _ = c.raw.read(timeout: 10) { WireMessage.find([13, 10], in: $0, from: 0) != nil }
                c.send("221 bye\r\n")
            }
            defer { origin.stop() }
            let client = try openTunnel(ctx, to: origin)
            defer { client.close() }
            try require(client.read(timeout: ctx.patience) { String(decoding: $0, as: UTF8.self).contains("220 conformance.test") },
                        "no banner through the tunnel within \(ctx.patience) s (got \(client.buffer.count) bytes)")
            try client.send("QUIT\r\n")
            try require(client.read(timeout: ctx.patience) { String(decoding: $0, as: UTF8.self).contains("221 bye") },
                        "no answer to the client's line through the tunnel")
        },
        ConformanceCase(name: "connect-client-first-opaque", reference: "RFC 9110 §9.3.6",
                        requirement: "after CONNECT, bytes that are not TLS are relayed both ways untouched") { ctx in
            let origin = try ScriptedOrigin { c in
                guard c.raw.read(timeout: 10, until: { WireMessage.find([13, 10], in: $0, from: 0) != nil }) else { return }
                c.send("echo: " + String(decoding: c.raw.take(c.raw.buffer.count), as: UTF8.self))
            }
            defer { origin.stop() }
            let client = try openTunnel(ctx, to: origin)
            defer { client.close() }
            try client.send("PING opaque \u{1}\u{2}\r\n")
            try require(client.read(timeout: ctx.patience) { String(decoding: $0, as: UTF8.self).contains("echo: PING opaque \u{1}\u{2}\r\n") },
                        "the echo did not come back (got \(WireMessage.printable(client.buffer.prefix(80))))")
        },
        ConformanceCase(name: "upstream-timeout-504", reference: "RFC 9110 §15.6.5",
                        requirement: "an origin that accepts the request and never answers gets the client a 504 after the proxy's timeout") { ctx in
            let origin = try ScriptedOrigin { c in
                _ = c.readRequest()
                c.stall(ctx.upstreamTimeout + 10)
            }
            defer { origin.stop() }
            let client = try ctx.client()
            defer { client.close() }
            try client.send("GET http://\(origin.authority)/never HTTP/1.1\r\nHost: \(origin.authority)\r\n\r\n")
            let r = try client.readFinalResponse(to: "GET", timeout: ctx.upstreamTimeout + 5)
            try require(r.status == 504, "status \(r.status.map(String.init) ?? "none"), want 504")
        },
    ]

    // MARK: Messages (RFC 9110 §6.5, §15.2; RFC 9112 §7.1.2)

    static let messageCases: [ConformanceCase] = [
        ConformanceCase(name: "trailers-response", reference: "RFC 9112 §7.1.2, RFC 9110 §6.5",
                        requirement: "trailer fields of a chunked response reach a client that sent TE: trailers") { ctx in
            let (origin, _, r) = try exchange(
                ctx, "GET", "/t", headers: "TE: trailers\r\n",
                answer: "HTTP/1.1 200 OK\r\nTrailer: X-Digest\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n0\r\nX-Digest: sha-256=abc\r\n\r\n")
            defer { origin.stop() }
            try require(r.bodyText == "hello", "body \(r.bodyText)")
            try require(r.trailerValues("X-Digest") == ["sha-256=abc"], "the client saw trailers \(r.trailers.map { "\($0.name): \($0.value)" })")
        },
        ConformanceCase(name: "trailers-request", reference: "RFC 9112 §7.1.2, RFC 9110 §6.5",
                        requirement: "trailer fields of a chunked request reach the origin") { ctx in
            let (origin, seen, _) = try exchange(
                ctx, "POST", "/t", headers: "Transfer-Encoding: chunked\r\nTrailer: X-Sig\r\n",
                body: "5\r\nhello\r\n0\r\nX-Sig: 1\r\n\r\n")
            defer { origin.stop() }
            try require(seen.bodyText == "hello", "the origin got body \(seen.bodyText)")
            try require(seen.trailerValues("X-Sig") == ["1"], "the origin saw trailers \(seen.trailers.map { "\($0.name): \($0.value)" })")
        },
        ConformanceCase(name: "interim-1xx-forwarded", reference: "RFC 9110 §15.2",
                        requirement: "a 1xx response the client did not cause the proxy to make (103 Early Hints) is forwarded") { ctx in
            let origin = try ScriptedOrigin(Origins.answering { _ in
                "HTTP/1.1 103 Early Hints\r\nLink: </s.css>; rel=preload\r\n\r\n" + Origins.ok()
            })
            defer { origin.stop() }
            let client = try ctx.client()
            defer { client.close() }
            try client.send("GET http://\(origin.authority)/hints HTTP/1.1\r\nHost: \(origin.authority)\r\n\r\n")
            let first = try client.readMessage(responseTo: "GET", timeout: ctx.patience)
            try require(first.status == 103 && first.values("Link").count == 1,
                        "the first response is \(first.status.map(String.init) ?? "none") with Link \(first.values("Link"))")
            let final = try client.readFinalResponse(to: "GET", timeout: ctx.patience)
            try require(final.status == 200, "the final status is \(final.status.map(String.init) ?? "none")")
        },
    ]

    // MARK: Helpers

    /// One request through the proxy to a fresh origin answering `answer`: the origin, the
    /// request as the origin saw it, the response as the client saw it.
    static func exchange(_ ctx: ConformanceContext, _ method: String, _ path: String, version: String = "HTTP/1.1",
                         host: String? = nil, headers: String = "", body: String = "",
                         answer: String = Origins.ok()) throws -> (ScriptedOrigin, WireMessage, WireMessage) {
        let origin = try ScriptedOrigin(Origins.answering { _ in answer })
        do {
            let client = try ctx.client()
            defer { client.close() }
            try client.send("\(method) http://\(origin.authority)\(path) \(version)\r\nHost: \(host ?? origin.authority)\r\n" +
                            "\(headers)\r\n\(body)")
            let response = try client.readFinalResponse(to: method, timeout: ctx.patience)
            guard let seen = origin.requests.first else {
                throw ConformanceError("the origin received no request (the client got \(response.startLine): \(response.bodyText.prefix(200)))")
            }
            return (origin, seen, response)
        } catch {
            origin.stop()
            throw error
        }
    }

    /// A TRACE or OPTIONS with Max-Forwards: 0: answered by the proxy (checked by `check`), the origin never asked.
    static func answeredByTheProxy(_ ctx: ConformanceContext, method: String, check: (WireMessage) throws -> Void) throws {
        let origin = try ScriptedOrigin(Origins.answering { _ in Origins.ok() })
        defer { origin.stop() }
        let client = try ctx.client()
        defer { client.close() }
        try client.send("\(method) http://\(origin.authority)/mf HTTP/1.1\r\nHost: \(origin.authority)\r\n" +
                        "Max-Forwards: 0\r\nX-Probe: 42\r\n\r\n")
        try check(try client.readFinalResponse(to: method, timeout: ctx.patience))
        Thread.sleep(forTimeInterval: 0.2)
        try require(origin.connections == 0, "the request was forwarded to the origin")
    }

    /// Repeated identical Content-Length values: collapsed to one for the origin, or refused with 400.
    static func identicalRequestLengths(_ name: String, _ fields: String) -> ConformanceCase {
        ConformanceCase(name: name, reference: "RFC 9110 §8.6, RFC 9112 §6.3",
                        requirement: "a request with repeated identical Content-Length reaches the origin with one, or is refused with 400") { ctx in
            let origin = try ScriptedOrigin(Origins.answering { _ in Origins.ok() })
            defer { origin.stop() }
            let client = try ctx.client()
            defer { client.close() }
            try client.send("POST http://\(origin.authority)/cl HTTP/1.1\r\nHost: \(origin.authority)\r\n\(fields)\r\nhello")
            let r = try client.readFinalResponse(to: "POST", timeout: ctx.patience)
            if r.status == 400 {
                try require(origin.requests.isEmpty, "refused with 400 but forwarded too")
                return
            }
            guard let seen = origin.requests.first else { throw ConformanceError("status \(r.status.map(String.init) ?? "none") and nothing forwarded") }
            try require(seen.values("Content-Length") == ["5"], "the origin saw Content-Length \(seen.values("Content-Length"))")
            try require(seen.bodyText == "hello", "the origin got body \(seen.bodyText)")
        }
    }

    /// A CONNECT to `origin` through the proxy, answered 2xx: the client connection, now a tunnel.
    static func openTunnel(_ ctx: ConformanceContext, to origin: ScriptedOrigin) throws -> RawConnection {
        let client = try ctx.client()
        try client.send("CONNECT \(origin.authority) HTTP/1.1\r\nHost: \(origin.authority)\r\n\r\n")
        let r = try client.readFinalResponse(to: "CONNECT", timeout: ctx.patience)
        guard (200..<300).contains(r.status ?? 0) else {
            client.close()
            throw ConformanceError("CONNECT answered \(r.startLine)")
        }
        return client
    }
}

/// Origin answers the cases use.
enum Origins {
    /// A script answering every request of a connection with `response(request)`.
    static func answering(_ response: @escaping @Sendable (WireMessage) -> String) -> @Sendable (ScriptedOrigin.Connection) throws -> Void {
        { connection in
            while let request = connection.readRequest() { connection.send(response(request)) }
        }
    }

    /// `200 OK` with `body` and the `extra` header lines.
    static func ok(_ body: String = "ok", extra: String = "") -> String {
        "HTTP/1.1 200 OK\r\n\(extra)Content-Length: \(body.utf8.count)\r\n\r\n\(body)"
    }
}

extension ScriptedOrigin {
    /// `127.0.0.1:PORT`.
    public var authority: String { "127.0.0.1:\(port)" }
}

import MouchardFlow
import MouchardWire

/// A request held back until its `ResponseSource` answers: the head to send upstream if it says
/// `forward`, and the body, buffered whole (it takes part in matching).
struct ReplayPendingRequest {
    var upstreamHead: HTTPRequestHead
    var target: UpstreamTarget
    /// An origin-form request to the listening port (the proxy answering as an origin).
    var addressedToOrigin: Bool
    var body: [UInt8] = []
}

/// Serving from a response source: the request is buffered, the source decides, and the machine
/// writes the recorded response itself (re-framed), forwards the request upstream, or closes.
extension ForwardProxyMachine {
    /// `host:port` from the Host header of an origin-form request, when answering as an origin.
    static func originTarget(_ head: HTTPRequestHead, replay: ReplayServing?) -> (UpstreamTarget, String)? {
        guard let replay, replay.acceptsOriginRequests, let host = head.headers["Host"], !host.isEmpty,
              head.target.hasPrefix("/") || head.target == "*" else { return nil }
        let name = URLParts.hostOnly(authority: host)
        let port = URLParts.port(authority: host) ?? 80
        guard !name.isEmpty, (1...65535).contains(port) else { return nil }
        return (UpstreamTarget(host: name, port: port, tls: false), host)
    }

    /// Adds a body piece to the pending request; false (after answering 413) when it grows past the limit.
    mutating func bufferForReplay(_ chunk: [UInt8], _ actions: inout [Action]) -> Bool {
        guard var pending = replayPending, let replay = configuration.replay else { return true }
        exchange?.requestBody.append(chunk)
        if pending.body.count + chunk.count > replay.requestBodyLimit {
            replayPending = nil
            exchange?.error = "request body larger than the replay limit (\(replay.requestBodyLimit) bytes)"
            exchange?.finishedMonotonic = now
            if let e = exchange { actions.append(.completed(e)) }
            exchange = nil
            responses = nil
            let message = "request body larger than \(replay.requestBodyLimit) bytes: not matched against the recordings"
            respondLocally(.error(status: 413, message: message), close: true, &actions)
            return false
        }
        pending.body.append(contentsOf: chunk)
        replayPending = pending
        return true
    }

    /// The request is complete: asks the source and carries out its decision.
    mutating func answerFromReplay(_ actions: inout [Action]) {
        guard let pending = replayPending, let replay = configuration.replay, var e = exchange else { return }
        replayPending = nil
        requestDone = true
        e.requestSentMonotonic = now
        let request = HTTPRequest(head: e.requestHead, scheme: configuration.scheme,
                                  fallbackAuthority: configuration.tunnelTarget?.authority, body: pending.body)
        switch replay.source.answer(request) {
        case .respond(let response, let note):
            e.replay = note
            e.upstream = nil
            exchange = e
            serveRecorded(response, &actions)
        case .forward(let note):
            e.replay = note
            exchange = e
            if pending.addressedToOrigin && configuration.isSelf(pending.target.host, pending.target.port) {
                exchange?.error = "no recorded response, and the request targets this server itself"
                exchange?.finishedMonotonic = now
                if let done = exchange { actions.append(.completed(done)) }
                exchange = nil
                responses = nil
                respondLocally(.error(status: 508, message: "no recorded response, and forwarding would loop"),
                               close: true, &actions)
                return
            }
            // The whole body is here: it goes out with a Content-Length, whatever its framing was.
            var head = pending.upstreamHead
            head.headers.remove(name: "Transfer-Encoding")
            head.headers.remove(name: "Content-Length")
            if !pending.body.isEmpty || Self.methodCarriesBody(head.method) {
                head.headers.add(name: "Content-Length", value: String(pending.body.count))
            }
            requestFramingOut = .length
            phase = .response
            actions.append(.connectUpstream(pending.target))
            actions.append(.sendUpstream(head.serialized + pending.body))
        case .close(let note):
            e.replay = note
            e.error = "no recorded response: connection closed (\(note))"
            e.finishedMonotonic = now
            actions.append(.completed(e))
            exchange = nil
            responses = nil
            phase = .closed
            actions.append(.closeClient)
        }
    }

    /// Writes a recorded response to the client: hop-by-hop fields dropped, `Content-Length`
    /// recomputed for the body (kept as recorded when the response has no body: HEAD, 204, 304).
    private mutating func serveRecorded(_ response: HTTPResponse, _ actions: inout [Action]) {
        let method = exchange?.requestHead.method ?? "GET"
        let clientVersion = exchange?.requestHead.version ?? .http11
        let bodyless = method == "HEAD" || response.status == 204 || response.status == 304 || response.status < 200
        var out = response.head
        HopByHopHeaders.strip(&out.headers)
        out.version = .http11
        if !bodyless {
            out.headers.remove(name: "Content-Length")
            out.headers.add(name: "Content-Length", value: String(response.body.count))
        }
        if !clientKeepAlive {
            out.headers.add(name: "Connection", value: "close")
        } else if clientVersion == .http10 {
            out.headers.add(name: "Connection", value: "keep-alive")
        }
        var bytes = out.serialized
        if !bodyless { bytes.append(contentsOf: response.body) }
        exchange?.responseHead = out
        exchange?.responseStartedMonotonic = now
        if !bodyless { exchange?.responseBody.append(response.body) }
        exchange?.finishedMonotonic = now
        actions.append(.sendClient(bytes))
        responseHeadSent = true
        responseDone = true
        if let e = exchange { actions.append(.completed(e)) }
        exchange = nil
        responses = nil
        if !clientKeepAlive {
            phase = .closed
            actions.append(.closeClient)
        } else {
            phase = .idle
        }
    }

    /// Methods whose requests announce a length even when empty (RFC 9110 §8.6).
    static func methodCarriesBody(_ method: String) -> Bool {
        method == "POST" || method == "PUT" || method == "PATCH"
    }
}

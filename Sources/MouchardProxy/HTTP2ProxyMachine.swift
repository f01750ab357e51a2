import Foundation
import MouchardFlow
import MouchardHTTP2
import MouchardMessages
import MouchardWire

/// The HTTP/2 proxy as a sans-I/O machine, beside the HTTP/1 `ForwardProxyMachine` with the same
/// shape (inputs in, actions out): one `HTTP2Connection` facing the client (server role) and one
/// facing the origin (client role) of an intercepted TLS connection where both sides chose `h2`.
///
/// Every client stream opens one upstream stream (nghttp2 numbers upstream streams itself, in
/// order, and queues requests beyond the origin's SETTINGS_MAX_CONCURRENT_STREAMS): heads are
/// passed on as received (pseudo-headers included; nghttp2 has already refused connection-specific
/// fields), bodies and trailers follow, resets go to the other side with their code, and each
/// stream ends as one `CapturedExchange` (HTTP/2.0, its client stream id).
///
/// Back-pressure is HTTP/2 flow control, not the sockets: DATA read from one side is consumed
/// (credited back to its sender with WINDOW_UPDATE) only once it has left for the other side
/// (framed into that connection's output) or been dropped, so what waits here for one side is at
/// most the other side's connection window (`HTTP2Limits.connectionWindow`), and both connections
/// are read at all times: their WINDOW_UPDATE and other control frames are never stuck behind a
/// paused socket (two slow peers uploading and downloading at once stalled so).
///
/// WebSocket over HTTP/2 (RFC 8441): once the origin allows extended CONNECT (its
/// SETTINGS_ENABLE_CONNECT_PROTOCOL), the client is allowed it too; a `CONNECT` stream with
/// `:protocol: websocket` that the origin accepts (2xx) has its DATA read as WebSocket frames both
/// ways, like the HTTP/1.1 path after a 101: only well-formed frames go on, a frame that breaks RFC
/// 6455 ends both sides with a close frame, and the messages are recorded with the stream's flow.
final class HTTP2ProxyMachine: HTTP2SessionMachine {
    enum Input {
        case clientBytes([UInt8])
        /// A new origin connection is ready (asked for by `connectUpstream`).
        case upstreamConnected
        case upstreamBytes([UInt8])
        case clientEnded
        case upstreamEnded
        case upstreamFailed(String)
        /// A socket write buffer went back under its low-water mark (see `clientBacklogged`).
        case writeBufferDrained
    }

    enum Action {
        case sendClient([UInt8])
        case sendUpstream([UInt8])
        case completed(CapturedExchange)
        case closeClient
        case closeUpstream
        /// Open a new origin connection to the target (`HTTP2TranslationMachine`; this machine's
        /// one h2 connection is never replaced).
        case connectUpstream
        /// A WebSocket stream's messages (instead of `completed` for that stream): all of them
        /// when `final`, else those read so far (a long connection fills more than one flow).
        case webSocketMessages(WebSocketRelay, final: Bool)
    }

    /// One client stream and its upstream twin.
    struct ProxiedStream {
        var exchange: CapturedExchange
        var upstreamID: Int32?
        var requestEnded = false
        var responseStarted = false
        var responseEnded = false
        /// An extended CONNECT for a WebSocket (RFC 8441).
        var asksWebSocket = false
        /// Its frames, read both ways once the origin accepted.
        var webSocket: WebSocketConversation?
        var webSocketFailure: WebSocketProtocolError?
    }

    let downstream: HTTP2Connection
    let upstream: HTTP2Connection
    let target: UpstreamTarget
    let fallbackAuthority: String?
    let bodyCaptureLimit: Int
    let webSocketLimits: WebSocketConversation.Limits
    /// Monotonic milliseconds, set by the session before each input.
    var now: UInt64 = 0
    var clientBacklogged = false
    var upstreamBacklogged = false
    /// Bytes that left for the origin (or the client) and are not credited to their sender yet,
    /// because that socket's write buffer is over its high-water mark.
    private var heldForClient: [BodyRelease] = []
    private var heldForOrigin: [BodyRelease] = []
    private var streams: [Int32: ProxiedStream] = [:]
    /// The client was told it may open extended CONNECT streams (the origin allowed them).
    private var extendedConnectAllowed = false
    private var clientStream: [Int32: Int32] = [:]
    /// The origin is gone: no new streams; the client connection closes when its streams are done.
    private var draining = false
    private(set) var isClosed = false
    /// Header blocks our limits refused (with the reason of the last), for the session's statistics.
    private(set) var refusedHeaderBlocks = 0
    static let http2 = HTTPVersion(major: 2, minor: 0)

    init(target: UpstreamTarget, fallbackAuthority: String?, bodyCaptureLimit: Int,
         webSocketMaxFrameLength: UInt64 = WebSocketStreamParser.defaultMaxFrameLength,
         clientLimits: HTTP2Limits = .standard, upstreamLimits: HTTP2Limits = .standard) throws(HTTP2Error) {
        downstream = try HTTP2Connection(role: .server, limits: clientLimits)
        upstream = try HTTP2Connection(role: .client, limits: upstreamLimits)
        self.target = target
        self.fallbackAuthority = fallbackAuthority
        self.bodyCaptureLimit = bodyCaptureLimit
        var limits = WebSocketConversation.Limits()
        limits.maxFrameLength = webSocketMaxFrameLength
        webSocketLimits = limits
    }

    /// Flow control holds both peers back: no socket is paused for the machine.
    var wantsClientPaused: Bool { false }
    var wantsUpstreamPaused: Bool { false }
    /// The most body bytes ever held for one side (at most the other side's connection window).
    var peakBufferedBodyBytes: Int { max(upstream.peakBufferedBodyBytes, downstream.peakBufferedBodyBytes) }
    var isBusy: Bool { !streams.isEmpty }

    /// The prefaces and SETTINGS of both sides, to send as soon as the machine exists.
    func start() -> [Action] { flush() }

    func handle(_ input: Input) -> [Action] {
        guard !isClosed else { return [] }
        var actions: [Action] = []
        switch input {
        case .clientBytes(let bytes):
            for event in downstream.receive(bytes) { clientEvent(event, &actions) }
        case .upstreamBytes(let bytes):
            for event in upstream.receive(bytes) { upstreamEvent(event, &actions) }
        case .clientEnded:
            closeAll(error: "client closed the connection", &actions)
            return actions
        case .upstreamConnected, .writeBufferDrained:
            break  // the h2 origin connection is the one the machine started with; credits go in `flush`
        case .upstreamEnded:
            originGone("upstream closed the connection", &actions)
        case .upstreamFailed(let why):
            originGone("upstream: \(why)", &actions)
        }
        actions += flush()
        return actions
    }

    // MARK: - Client side

    private func clientEvent(_ event: HTTP2Event, _ actions: inout [Action]) {
        switch event {
        case .headers(let id, .request, let fields, let endStream):
            openStream(id, fields: fields, endStream: endStream)
        case .headers(let id, _, let fields, _):
            // Request trailers end the request body.
            guard var s = streams[id] else { return }
            s.requestEnded = true
            s.exchange.requestSentMonotonic = now
            streams[id] = s
            if let u = s.upstreamID { upstream.endBody(stream: u, trailers: fields.filter { !$0.isPseudo }) }
        case .data(let id, let bytes):
            guard var s = streams.removeValue(forKey: id) else {
                downstream.consumeAll(stream: id)
                return
            }
            let forward = s.webSocket == nil ? bytes : readWebSocket(bytes, from: .client, &s, id, &actions)
            if s.webSocket == nil { s.exchange.requestBody.append(bytes) }
            streams[id] = s
            // Consumed once they leave upstream (`creditReleased`); bytes with nowhere to go, now.
            let handed = s.upstreamID.map { upstream.sendBody(stream: $0, forward) } ?? false
            if !handed { downstream.consumeAll(stream: id) }
            if let failure = s.webSocketFailure, !s.responseEnded { closeWebSocket(id, failure) }
        case .endStream(let id):
            guard var s = streams[id] else { return }
            s.requestEnded = true
            s.exchange.requestSentMonotonic = now
            streams[id] = s
            if let u = s.upstreamID { upstream.endBody(stream: u) }
        case .streamClosed(let id, let code):
            guard let s = streams.removeValue(forKey: id) else { return }
            var e = s.exchange
            if let u = s.upstreamID, clientStream.removeValue(forKey: u) != nil {
                // The client gave up on the stream (or it ended early): so does the origin.
                upstream.reset(stream: u, code: code == HTTP2ErrorCode.noError ? HTTP2ErrorCode.cancel : code)
            }
            if code != HTTP2ErrorCode.noError && !s.responseEnded && e.error == nil {
                e.error = "stream reset (\(HTTP2ErrorCode.name(code)))"
            }
            complete(s, e, &actions)
        case .headersRefused:
            refusedHeaderBlocks += 1
        case .goaway:
            break  // the client opens no more streams; the open ones run on
        }
    }

    private func openStream(_ id: Int32, fields: [HTTP2Field], endStream: Bool) {
        let e = Self.exchange(stream: id, fields: fields, authority: fields.value(of: ":authority") ?? fallbackAuthority, target: target,
                              bodyLimit: bodyCaptureLimit, now: now)
        var s = ProxiedStream(exchange: e)
        s.asksWebSocket = fields.value(of: ":method") == "CONNECT" && fields.value(of: ":protocol")?.lowercased() == "websocket"
        if endStream {
            s.requestEnded = true
            s.exchange.requestSentMonotonic = now
        }
        if !draining, let u = upstream.submitRequest(fields, hasBody: !endStream, source: id) {
            s.upstreamID = u
            clientStream[u] = id
        } else {
            s.exchange.error = "upstream connection closing: stream refused"
            downstream.reset(stream: id, code: HTTP2ErrorCode.refusedStream)
        }
        streams[id] = s
    }

    // MARK: - Origin side

    private func upstreamEvent(_ event: HTTP2Event, _ actions: inout [Action]) {
        switch event {
        case .headers(let u, .response, let fields, let endStream):
            guard let id = clientStream[u], var s = streams[id] else { return }
            let status = Int(fields.value(of: ":status") ?? "") ?? 0
            s.exchange.responseHead = HTTPResponseHead(version: Self.http2, status: status, headers: Self.regular(fields))
            s.exchange.responseStartedMonotonic = now
            s.responseStarted = true
            if s.asksWebSocket, (200..<300).contains(status) {
                // The origin accepted the WebSocket: its frames are read from now on (when Mouchard
                // knows its extensions: none, or permessage-deflate).
                let extensions = WebSocketExtensions(header: s.exchange.responseHead?.headers["sec-websocket-extensions"])
                if extensions.isReadable { s.webSocket = WebSocketConversation(extensions: extensions, limits: webSocketLimits) }
            }
            if endStream {
                s.responseEnded = true
                s.exchange.finishedMonotonic = now
            }
            streams[id] = s
            downstream.submitResponse(stream: id, fields, hasBody: !endStream, source: u)
        case .headers(let u, .trailers, let fields, _):
            guard let id = clientStream[u], var s = streams[id] else { return }
            // Trailers (gRPC's grpc-status) are kept with the response's fields.
            let regular = fields.filter { !$0.isPseudo }
            for f in regular { s.exchange.responseHead?.headers.fields.append(HTTPField(name: f.nameText, valueBytes: f.value)) }
            s.responseEnded = true
            s.exchange.finishedMonotonic = now
            streams[id] = s
            downstream.endBody(stream: id, trailers: regular)
        case .headers:
            break  // interim (1xx) responses are not passed on
        case .data(let u, let bytes):
            guard let id = clientStream[u], var s = streams.removeValue(forKey: id) else {
                upstream.consumeAll(stream: u)
                return
            }
            let forward = s.webSocket == nil ? bytes : readWebSocket(bytes, from: .server, &s, id, &actions)
            if s.webSocket == nil { s.exchange.responseBody.append(bytes) }
            streams[id] = s
            if !downstream.sendBody(stream: id, forward) { upstream.consumeAll(stream: u) }
            if let failure = s.webSocketFailure, !s.responseEnded { closeWebSocket(id, failure) }
        case .endStream(let u):
            guard let id = clientStream[u], var s = streams[id] else { return }
            s.responseEnded = true
            s.exchange.finishedMonotonic = now
            streams[id] = s
            downstream.endBody(stream: id)
        case .streamClosed(let u, let code):
            guard let id = clientStream.removeValue(forKey: u), var s = streams[id] else { return }
            s.upstreamID = nil
            if !s.responseEnded {
                s.exchange.error = "upstream reset the stream (\(HTTP2ErrorCode.name(code)))"
                downstream.reset(stream: id, code: code == HTTP2ErrorCode.noError ? HTTP2ErrorCode.internalError : code)
            }
            // An origin that answered before the upload ended has closed its side: the rest of the
            // client's body is read and dropped (a reset now could overtake the queued response).
            streams[id] = s
        case .headersRefused(let u, let reason):
            refusedHeaderBlocks += 1
            if let id = clientStream[u] { streams[id]?.exchange.error = "response refused: \(reason)" }
        case .goaway(_, let code):
            // Streams past the origin's last one come back closed (REFUSED_STREAM) and are reset
            // towards the client, which may retry them; the client is told to go elsewhere too.
            draining = true
            downstream.goAway(code: code == HTTP2ErrorCode.noError ? code : HTTP2ErrorCode.noError)
        }
    }

    /// The origin connection is over: streams still waiting get 502 or a reset; the client is told.
    private func originGone(_ why: String, _ actions: inout [Action]) {
        draining = true
        for (id, var s) in streams {
            if let u = s.upstreamID { clientStream[u] = nil }
            s.upstreamID = nil
            downstream.consumeAll(stream: id)  // what it sent will never leave
            if !s.responseEnded {
                s.exchange.error = why
                if s.responseStarted {
                    downstream.reset(stream: id, code: HTTP2ErrorCode.internalError)
                } else {
                    let text = Array("\(why)\n".utf8)
                    downstream.submitResponse(stream: id, [HTTP2Field(":status", "502"), HTTP2Field("content-type", "text/plain")],
                                              hasBody: true)
                    downstream.sendBody(stream: id, text)
                    downstream.endBody(stream: id)
                }
            }
            streams[id] = s
        }
        downstream.goAway()
        actions.append(.closeUpstream)
    }

    private func closeAll(error: String, _ actions: inout [Action]) {
        for (_, var s) in streams {
            if !s.responseEnded && s.exchange.error == nil { s.exchange.error = error }
            complete(s, s.exchange, &actions)
        }
        streams = [:]
        clientStream = [:]
        isClosed = true
        actions += [.closeUpstream, .closeClient]
    }

    /// A stream is over: its exchange, or its WebSocket messages with it.
    private func complete(_ s: ProxiedStream, _ e: CapturedExchange, _ actions: inout [Action]) {
        var e = e
        if e.finishedMonotonic == nil { e.finishedMonotonic = now }
        if let ws = s.webSocket {
            ws.finish(at: Date())
            let relay = WebSocketRelay(exchange: e, conversation: ws)
            relay.failure = s.webSocketFailure
            actions.append(.webSocketMessages(relay, final: true))
        } else {
            actions.append(.completed(e))
        }
    }

    // MARK: - WebSocket streams

    /// Reads one side's DATA of a WebSocket stream; returns what may go on (the well-formed frames).
    private func readWebSocket(_ bytes: [UInt8], from side: FlowMessage.Direction, _ s: inout ProxiedStream, _ id: Int32,
                               _ actions: inout [Action]) -> [UInt8] {
        guard let ws = s.webSocket, s.webSocketFailure == nil else { return [] }
        let verdict = ws.receive(bytes[...], from: side, at: Date())
        if let failure = verdict.failure {
            s.webSocketFailure = failure
        } else if ws.wantsFlush {
            actions.append(.webSocketMessages(WebSocketRelay(exchange: s.exchange, conversation: ws), final: false))
        }
        return verdict.forward == bytes.count ? bytes : Array(bytes[..<verdict.forward])
    }

    /// A frame broke RFC 6455: both sides get a close frame with its code (the origin's masked, as
    /// a client sends it) and the end of the stream; nothing of the bad frame went on.
    private func closeWebSocket(_ id: Int32, _ failure: WebSocketProtocolError) {
        guard var s = streams[id] else { return }
        let reason = failure.closeCode == WebSocketCloseCode.messageTooBig ? "frame too big" : "protocol error"
        downstream.sendBody(stream: id, WebSocketFrameWriter.close(code: failure.closeCode, reason: reason))
        downstream.endBody(stream: id)
        if let u = s.upstreamID {
            let mask = (UInt8.random(in: 0...255), UInt8.random(in: 0...255), UInt8.random(in: 0...255), UInt8.random(in: 0...255))
            upstream.sendBody(stream: u, WebSocketFrameWriter.close(code: failure.closeCode, reason: reason, mask: mask))
            upstream.endBody(stream: u)
        }
        s.responseEnded = true
        s.requestEnded = true
        streams[id] = s
    }

    /// What both connections have to send, and the streams that closed while sending it. Ends the
    /// machine when the client connection is finished (GOAWAY both ways, a limit, a protocol error)
    /// or the origin is gone and no stream is left.
    private func flush() -> [Action] {
        var actions: [Action] = []
        if !extendedConnectAllowed && upstream.peerAllowsExtendedConnect {
            extendedConnectAllowed = true
            downstream.allowExtendedConnect()
        }
        creditReleased()
        for _ in 0..<4 {
            let up = upstream.pendingOutput()
            let down = downstream.pendingOutput()
            if !up.isEmpty { actions.append(.sendUpstream(up)) }
            if !down.isEmpty { actions.append(.sendClient(down)) }
            let upEvents = upstream.takeEvents(), downEvents = downstream.takeEvents()
            for event in upEvents { upstreamEvent(event, &actions) }
            for event in downEvents { clientEvent(event, &actions) }
            // Bytes framed just now free their sender's window: its WINDOW_UPDATE goes next round.
            let credited = creditReleased()
            if upEvents.isEmpty && downEvents.isEmpty && up.isEmpty && down.isEmpty && !credited { break }
        }
        if downstream.isFinished || downstream.failure != nil || (draining && streams.isEmpty) {
            closeAll(error: downstream.failure.map { "client connection: \($0)" } ?? "connection closed", &actions)
        } else if upstream.isFinished || upstream.failure != nil, !draining {
            var more: [Action] = []
            originGone(upstream.failure.map { "upstream: \($0)" } ?? "upstream closed the connection", &more)
            actions += more + flush()
        }
        return actions
    }

    /// DATA that left one connection (or was dropped there) is consumed on the one it came from,
    /// unless the socket it left by is backlogged: then once that socket's buffer drains (so the
    /// sockets' own buffers stay bounded too, and no socket is paused). Returns whether any was.
    @discardableResult
    private func creditReleased() -> Bool {
        heldForClient += upstream.takeReleased()
        heldForOrigin += downstream.takeReleased()
        var credited = false
        if !upstreamBacklogged && !heldForClient.isEmpty {
            downstream.consume(heldForClient)
            heldForClient = []
            credited = true
        }
        if !clientBacklogged && !heldForOrigin.isEmpty {
            upstream.consume(heldForOrigin)
            heldForOrigin = []
            credited = true
        }
        return credited
    }

    /// The exchange a client stream opens: its request head (`:path` as the target, HTTP/2.0, the
    /// fields but the pseudo-headers), `authority` for the URL, the stream id.
    static func exchange(stream id: Int32, fields: [HTTP2Field], authority: String?, target: UpstreamTarget, bodyLimit: Int,
                         now: UInt64) -> CapturedExchange {
        let head = HTTPRequestHead(method: fields.value(of: ":method") ?? "", target: fields.value(of: ":path") ?? authority ?? "",
                                   version: http2, headers: regular(fields))
        var e = CapturedExchange(scheme: fields.value(of: ":scheme") ?? "https", fallbackAuthority: authority,
                                 requestHead: head, bodyLimit: bodyLimit, started: Date(), startedMonotonic: now)
        e.upstream = target
        e.streamID = id
        return e
    }

    /// The fields of a head without its pseudo-headers, as `HTTPHeaders` (names as received).
    static func regular(_ fields: [HTTP2Field]) -> HTTPHeaders {
        HTTPHeaders(fields.filter { !$0.isPseudo }.map { HTTPField(name: $0.nameText, valueBytes: $0.value) })
    }
}

/// What the session drives in its HTTP/2 mode: `HTTP2ProxyMachine` (h2 on both sides) or
/// `HTTP2TranslationMachine` (h2 to the client, HTTP/1.1 to the origin).
protocol HTTP2SessionMachine: AnyObject {
    /// The connection facing the client.
    var downstream: HTTP2Connection { get }
    /// Monotonic milliseconds, set by the session before each input.
    var now: UInt64 { get set }
    /// The client's (the origin's) socket write buffer is over its high-water mark, set by the
    /// session before each input: bytes that left for it are not credited to their sender yet.
    var clientBacklogged: Bool { get set }
    var upstreamBacklogged: Bool { get set }
    /// Stop reading the client, or the origin, for the machine's sake (beyond the sockets' own
    /// write buffers, which the session watches).
    var wantsClientPaused: Bool { get }
    var wantsUpstreamPaused: Bool { get }
    /// The most body bytes ever held for one side.
    var peakBufferedBodyBytes: Int { get }
    /// Streams are open (the origin's silence is then a timeout).
    var isBusy: Bool { get }
    func start() -> [HTTP2ProxyMachine.Action]
    func handle(_ input: HTTP2ProxyMachine.Input) -> [HTTP2ProxyMachine.Action]
}

extension HTTP2SessionMachine {
    /// Why the client connection was closed by a limit or a protocol error (nil otherwise).
    var clientFailure: String? { downstream.failure }
}

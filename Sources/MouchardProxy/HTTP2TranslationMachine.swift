import Foundation
import MouchardHTTP2
import MouchardWire

/// HTTP/2 to the client, HTTP/1.1 to the origin: an intercepted TLS connection where the phone
/// chose `h2` and the origin speaks only HTTP/1.1. Same shape as `HTTP2ProxyMachine` (inputs in,
/// actions out), with one `HTTP2Connection` facing the client (server role).
///
/// Client streams wait in the order they opened; each in turn becomes one HTTP/1.1 request on the
/// origin connection, one at a time (HTTP/1.1 cannot multiplex, and pipelining is unsafe with
/// real origins): `Host` from `:authority` (RFC 9113 §8.3.1), the body framed by the client's
/// `content-length`, by its length when it is already complete, or chunked. The response is parsed
/// and passed back as the stream's HEADERS, DATA and trailers, without the HTTP/1 connection's own
/// fields (RFC 9113 §8.2.2), names in lower case. When the origin connection cannot carry another
/// request (`Connection: close`, a body delimited by the close, an answer before the upload ended,
/// its keep-alive timeout) the machine asks for a new one (`connectUpstream`) for the streams still
/// waiting. A reused connection that closes before any byte of the answer gets the request again,
/// once, on a new connection (the keep-alive race), when the request fitted in `resendLimit` bytes.
final class HTTP2TranslationMachine: HTTP2SessionMachine {
    typealias Input = HTTP2ProxyMachine.Input
    typealias Action = HTTP2ProxyMachine.Action

    /// One client stream and where its HTTP/1.1 twin stands.
    struct TranslatedStream {
        var exchange: CapturedExchange
        var authority: String
        /// Body bytes the client sent before the stream's turn on the origin connection.
        var waitingBody: [UInt8] = []
        var requestTrailers = HTTPHeaders()
        var requestEnded = false
        var responseStarted = false
        var responseEnded = false
        /// The request head went to the origin; `chunked`: its body is framed that way.
        var sent = false
        var chunked = false
    }

    enum UpstreamState { case ready, connecting, none }

    let downstream: HTTP2Connection
    let target: UpstreamTarget
    let fallbackAuthority: String?
    let bodyCaptureLimit: Int
    /// Monotonic milliseconds, set by the session before each input.
    var now: UInt64 = 0
    var clientBacklogged = false
    var upstreamBacklogged = false
    /// Request body bytes written to the origin connection and not credited to the client yet,
    /// per stream (held while that socket's write buffer is over its high-water mark).
    private var written: [Int32: Int] = [:]
    private var streams: [Int32: TranslatedStream] = [:]
    /// Streams waiting for the origin connection, in the order they opened.
    private var queue: [Int32] = []
    /// The stream whose request is on the origin connection.
    private var active: Int32?
    private var response: HTTPResponseStream?
    private var responseKeepsConnection = true
    private var upstreamState: UpstreamState
    /// Exchanges finished on the current origin connection.
    private var exchangesOnLink = 0
    private var responseBytesSeen = false
    /// What the active request sent so far (nil once over `resendLimit`), and whether it was sent again already.
    private var sentBytes: [UInt8]? = []
    private var resent = false
    private var resendOnConnect: [UInt8]?
    private var draining = false
    private(set) var isClosed = false
    /// Header blocks our limits refused, for the session's statistics.
    private(set) var refusedHeaderBlocks = 0
    static let resendLimit = 64 * 1024
    /// Fields of an HTTP/1.1 response that concern its connection only (never sent in HTTP/2).
    static let connectionFields = ["connection", "keep-alive", "proxy-connection", "transfer-encoding", "upgrade"]

    /// `upstreamReady`: the origin connection the session already has is connected; `upstreamReused`:
    /// it carried exchanges before (a pooled one, which may be closed by the origin any moment).
    init(target: UpstreamTarget, fallbackAuthority: String?, bodyCaptureLimit: Int, upstreamReady: Bool,
         upstreamReused: Bool = false, clientLimits: HTTP2Limits = .standard) throws(HTTP2Error) {
        downstream = try HTTP2Connection(role: .server, limits: clientLimits)
        self.target = target
        self.fallbackAuthority = fallbackAuthority
        self.bodyCaptureLimit = bodyCaptureLimit
        upstreamState = upstreamReady ? .ready : .none
        exchangesOnLink = upstreamReused ? 1 : 0
    }

    /// The origin connection is between exchanges and served at least one: it can be pooled.
    var upstreamIsIdle: Bool { active == nil && upstreamState == .ready && exchangesOnLink > 0 }

    /// Request bodies are held back by flow control: a waiting stream's bytes are consumed (credited
    /// to the client) only once written to the origin connection, so they never exceed the client
    /// connection's window and the client is always read.
    var wantsClientPaused: Bool { false }
    /// An HTTP/1.1 origin has no flow control: it is not read while more than `pauseAbove` bytes of
    /// its answers wait for the client's windows.
    /// Nor while the client's socket is backlogged.
    var wantsUpstreamPaused: Bool { clientBacklogged || downstream.bufferedBodyBytes > Self.pauseAbove }
    static let pauseAbove = 4 << 20
    /// The most response bytes ever held for the client.
    var peakBufferedBodyBytes: Int { downstream.peakBufferedBodyBytes }
    var isBusy: Bool { !streams.isEmpty }

    /// The preface and SETTINGS to the client.
    func start() -> [Action] { flush() }

    func handle(_ input: Input) -> [Action] {
        guard !isClosed else { return [] }
        var actions: [Action] = []
        switch input {
        case .clientBytes(let bytes):
            for event in downstream.receive(bytes) { clientEvent(event, &actions) }
        case .clientEnded:
            closeAll(error: "client closed the connection", &actions)
            return actions
        case .writeBufferDrained:
            break  // credits go in `flush`
        case .upstreamConnected:
            upstreamState = .ready
            exchangesOnLink = 0
            if let again = resendOnConnect {
                resendOnConnect = nil
                actions.append(.sendUpstream(again))
            } else {
                startNext(&actions)
            }
        case .upstreamBytes(let bytes):
            guard active != nil else { break }  // nothing asked: stray bytes are not an answer
            responseBytesSeen = true
            response?.append(bytes)
            readResponse(&actions)
        case .upstreamEnded:
            upstreamClosed(failure: nil, &actions)
        case .upstreamFailed(let why):
            upstreamClosed(failure: "upstream: \(why)", &actions)
        }
        actions += flush()
        return actions
    }

    // MARK: - Client side

    private func clientEvent(_ event: HTTP2Event, _ actions: inout [Action]) {
        switch event {
        case .headers(let id, .request, let fields, let endStream):
            openStream(id, fields: fields, endStream: endStream, &actions)
        case .headers(let id, _, let fields, _):
            // Request trailers end the request body (they travel only in a chunked body).
            streams[id]?.requestTrailers = HTTP2ProxyMachine.regular(fields)
            requestEnded(id, &actions)
        case .data(let id, let bytes):
            guard var s = streams.removeValue(forKey: id) else {
                downstream.consumeAll(stream: id)
                return
            }
            s.exchange.requestBody.append(bytes)
            if !s.sent && !s.responseEnded {
                s.waitingBody += bytes
            } else if id == active && !s.responseEnded {
                sendUpstream(Self.frame(bytes, chunked: s.chunked), &actions)
                written[id, default: 0] += bytes.count
            } else {
                downstream.consumeAll(stream: id)  // answered (or failed) already: the rest of the upload is dropped
            }
            streams[id] = s
        case .endStream(let id):
            requestEnded(id, &actions)
        case .streamClosed(let id, let code):
            downstream.consumeAll(stream: id)
            guard let s = streams.removeValue(forKey: id) else { return }
            queue.removeAll { $0 == id }
            var e = s.exchange
            if id == active {
                // The client gave up mid-exchange: that HTTP/1.1 connection cannot be reused.
                dropOriginConnection(&actions)
            }
            if code != HTTP2ErrorCode.noError && !s.responseEnded && e.error == nil {
                e.error = "stream reset (\(HTTP2ErrorCode.name(code)))"
            }
            if e.finishedMonotonic == nil { e.finishedMonotonic = now }
            actions.append(.completed(e))
            startNext(&actions)
        case .headersRefused:
            refusedHeaderBlocks += 1
        case .goaway:
            break  // the client opens no more streams; the open ones run on
        }
    }

    private func openStream(_ id: Int32, fields: [HTTP2Field], endStream: Bool, _ actions: inout [Action]) {
        let method = fields.value(of: ":method") ?? ""
        let authority = fields.value(of: ":authority") ?? fallbackAuthority ?? target.authority
        let e = HTTP2ProxyMachine.exchange(stream: id, fields: fields, authority: authority, target: target, bodyLimit: bodyCaptureLimit,
                                           now: now)
        var s = TranslatedStream(exchange: e, authority: authority)
        if endStream {
            s.requestEnded = true
            s.exchange.requestSentMonotonic = now
        }
        if draining || method == "CONNECT" {
            // A tunnel inside HTTP/2 has no HTTP/1.1 request to become.
            s.exchange.error = draining ? "upstream connection closing: stream refused" : "CONNECT in HTTP/2 to an HTTP/1.1 origin is not carried"
            downstream.reset(stream: id, code: draining ? HTTP2ErrorCode.refusedStream : HTTP2ErrorCode.connectError)
            streams[id] = s
            return
        }
        streams[id] = s
        queue.append(id)
        startNext(&actions)
    }

    private func requestEnded(_ id: Int32, _ actions: inout [Action]) {
        guard var s = streams[id], !s.requestEnded else { return }
        s.requestEnded = true
        s.exchange.requestSentMonotonic = now
        streams[id] = s
        if id == active && s.sent && s.chunked && !s.responseEnded {
            var out: [UInt8] = []
            HTTPChunkedEncoder.appendLastChunk(trailers: s.requestTrailers, to: &out)
            sendUpstream(out, &actions)
        }
    }

    // MARK: - Origin side

    /// The next waiting stream goes to the origin when the connection is free (asked for if none).
    private func startNext(_ actions: inout [Action]) {
        guard active == nil, !draining else { return }
        queue.removeAll { streams[$0] == nil }
        guard let id = queue.first, var s = streams[id] else { return }
        switch upstreamState {
        case .none:
            upstreamState = .connecting
            actions.append(.connectUpstream)
            return
        case .connecting:
            return
        case .ready:
            break
        }
        queue.removeFirst()
        active = id
        response = HTTPResponseStream(requestMethod: s.exchange.requestHead.method)
        responseKeepsConnection = true
        responseBytesSeen = false
        sentBytes = []
        resent = false

        var headers = s.exchange.requestHead.headers
        _ = headers.remove(name: "te")  // HTTP/2 allows only `te: trailers`, which HTTP/1.1 would have to announce in Connection
        if !headers.contains("host") { headers.fields.insert(HTTPField(name: "Host", value: s.authority), at: 0) }
        if !headers.contains("content-length") {
            if !s.requestEnded || !s.requestTrailers.isEmpty {
                headers.add(name: "transfer-encoding", value: "chunked")
                s.chunked = true
            } else if !s.waitingBody.isEmpty || Self.methodsWithBody.contains(s.exchange.requestHead.method) {
                headers.add(name: "content-length", value: String(s.waitingBody.count))
            }
        }
        var out: [UInt8] = []
        HTTPSerializer.appendHead(HTTPRequestHead(method: s.exchange.requestHead.method, target: s.exchange.requestHead.target,
                                                  headers: headers), to: &out)
        out += Self.frame(s.waitingBody, chunked: s.chunked)
        if s.chunked && s.requestEnded { HTTPChunkedEncoder.appendLastChunk(trailers: s.requestTrailers, to: &out) }
        written[id, default: 0] += s.waitingBody.count
        s.waitingBody = []
        s.sent = true
        streams[id] = s
        sendUpstream(out, &actions)
    }

    /// Methods whose empty body is still said (`content-length: 0`): some origins answer 411 otherwise.
    static let methodsWithBody: Set<String> = ["POST", "PUT", "PATCH"]

    private static func frame(_ bytes: [UInt8], chunked: Bool) -> [UInt8] {
        guard chunked else { return bytes }
        var out: [UInt8] = []
        HTTPChunkedEncoder.appendChunk(bytes, to: &out)
        return out
    }

    private func sendUpstream(_ bytes: [UInt8], _ actions: inout [Action]) {
        guard !bytes.isEmpty else { return }
        if let kept = sentBytes { sentBytes = kept.count + bytes.count <= Self.resendLimit ? kept + bytes : nil }
        actions.append(.sendUpstream(bytes))
    }

    /// The parts of the active response parsed so far, passed to its stream.
    private func readResponse(_ actions: inout [Action]) {
        while let id = active {
            let part: HTTPStreamPart<HTTPResponseHead>?
            do {
                part = try response?.next() ?? nil
            } catch {
                failActive("the origin's response is malformed: \(error)", &actions)
                dropOriginConnection(&actions)
                startNext(&actions)
                return
            }
            guard let part else { return }
            deliver(part, to: id, &actions)
        }
    }

    private func deliver(_ part: HTTPStreamPart<HTTPResponseHead>, to id: Int32, _ actions: inout [Action]) {
        switch part {
        case .informational:
            break  // interim (1xx) responses are not passed on
        case .head(let head):
            responseKeepsConnection = HopByHopHeaders.wantsKeepAlive(head.headers, version: head.version)
            let fields = Self.http2Fields(head.headers)
            streams[id]?.exchange.responseHead = HTTPResponseHead(version: HTTP2ProxyMachine.http2, status: head.status,
                                                                  headers: HTTP2ProxyMachine.regular(fields))
            streams[id]?.exchange.responseStartedMonotonic = now
            streams[id]?.responseStarted = true
            downstream.submitResponse(stream: id, [HTTP2Field(":status", String(head.status))] + fields, hasBody: true)
        case .body(let bytes):
            streams[id]?.exchange.responseBody.append(bytes)
            downstream.sendBody(stream: id, bytes)
        case .trailers(let trailers):
            let fields = Self.http2Fields(trailers)
            for f in fields { streams[id]?.exchange.responseHead?.headers.fields.append(HTTPField(name: f.nameText, valueBytes: f.value)) }
            pendingTrailers = fields
        case .end:
            let closeDelimited = response?.wasCloseDelimited ?? false
            streams[id]?.responseEnded = true
            streams[id]?.exchange.finishedMonotonic = now
            downstream.endBody(stream: id, trailers: pendingTrailers)
            pendingTrailers = []
            active = nil
            response = nil
            exchangesOnLink += 1
            // The connection carries another request only when both messages ended cleanly on it.
            let requestDone = streams[id]?.requestEnded ?? false
            if !responseKeepsConnection || closeDelimited || !requestDone { dropOriginConnection(&actions) }
            startNext(&actions)
        }
    }

    /// Trailers of the active response, sent with its end.
    private var pendingTrailers: [HTTP2Field] = []

    /// HTTP/1.1 fields as HTTP/2 fields: names in lower case, the connection's own fields dropped
    /// (and those `Connection` names).
    static func http2Fields(_ headers: HTTPHeaders) -> [HTTP2Field] {
        let named = HopByHopHeaders.connectionTokens(headers)
        return headers.fields.compactMap { f in
            let name = f.name.lowercased()
            guard !connectionFields.contains(name), !named.contains(name) else { return nil }
            return HTTP2Field(name: Array(name.utf8), value: f.valueBytes)
        }
    }

    /// The origin connection is gone (`failure` nil: it closed).
    private func upstreamClosed(failure: String?, _ actions: inout [Action]) {
        let wasConnecting = upstreamState == .connecting
        upstreamState = .none
        if let id = active {
            if failure == nil, !responseBytesSeen, exchangesOnLink > 0, !resent, let again = sentBytes, !again.isEmpty {
                // The keep-alive race: the reused connection closed before answering; once more on a new one.
                resent = true
                resendOnConnect = again
                upstreamState = .connecting
                actions.append(.connectUpstream)
                return
            }
            var ended = false
            if failure == nil, responseBytesSeen, case .end? = (try? response?.finish()) ?? nil { ended = true }
            if ended {
                deliver(.end, to: id, &actions)
            } else {
                failActive(failure ?? "upstream closed the connection before the response ended", &actions)
            }
            active = nil
            response = nil
        }
        if failure != nil || wasConnecting {
            // The origin cannot be reached: the streams waiting for it get 502, the client a GOAWAY.
            for id in queue { failStream(id, failure ?? "upstream closed the connection", &actions) }
            queue = []
            draining = true
            downstream.goAway()
        } else {
            startNext(&actions)
        }
    }

    private func failActive(_ why: String, _ actions: inout [Action]) {
        guard let id = active else { return }
        active = nil
        response = nil
        failStream(id, why, &actions)
    }

    /// A stream the origin will not answer: 502 when nothing of the response was sent, else a reset.
    private func failStream(_ id: Int32, _ why: String, _ actions: inout [Action]) {
        guard var s = streams[id], !s.responseEnded else { return }
        s.exchange.error = why
        s.responseEnded = true
        s.waitingBody = []
        downstream.consumeAll(stream: id)
        streams[id] = s
        if s.responseStarted {
            downstream.reset(stream: id, code: HTTP2ErrorCode.internalError)
        } else {
            downstream.submitResponse(stream: id, [HTTP2Field(":status", "502"), HTTP2Field("content-type", "text/plain")], hasBody: true)
            downstream.sendBody(stream: id, Array("\(why)\n".utf8))
            downstream.endBody(stream: id)
        }
    }

    private func dropOriginConnection(_ actions: inout [Action]) {
        active = nil
        response = nil
        if upstreamState == .ready { actions.append(.closeUpstream) }
        upstreamState = .none
    }

    private func closeAll(error: String, _ actions: inout [Action]) {
        for (_, var s) in streams {
            if !s.responseEnded && s.exchange.error == nil { s.exchange.error = error }
            if s.exchange.finishedMonotonic == nil { s.exchange.finishedMonotonic = now }
            actions.append(.completed(s.exchange))
        }
        streams = [:]
        queue = []
        // An idle origin connection is left to the session, which pools it.
        if !upstreamIsIdle { actions.append(.closeUpstream) }
        isClosed = true
        actions.append(.closeClient)
    }

    /// What the client connection has to send, and the streams that closed while sending it. Ends
    /// the machine when the client connection is finished or, once draining, no stream is left.
    private func flush() -> [Action] {
        var actions: [Action] = []
        if !upstreamBacklogged {
            for (id, n) in written { downstream.consume(stream: id, bytes: n) }
            written = [:]
        }
        for _ in 0..<4 {
            let down = downstream.pendingOutput()
            if !down.isEmpty { actions.append(.sendClient(down)) }
            let events = downstream.takeEvents()
            for event in events { clientEvent(event, &actions) }
            if events.isEmpty && down.isEmpty { break }
        }
        if downstream.isFinished || downstream.failure != nil || (draining && streams.isEmpty) {
            closeAll(error: downstream.failure.map { "client connection: \($0)" } ?? "connection closed", &actions)
        }
        return actions
    }
}

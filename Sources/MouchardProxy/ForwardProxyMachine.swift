import Foundation
import MouchardFlow
import MouchardWire

/// The HTTP/1 forward proxy for one client connection, as a sans-I/O state machine: the driver
/// feeds it what happened (client bytes, upstream connected, upstream bytes, failures) and
/// performs the actions it returns (connect, send, release or close connections, record the
/// exchange). It parses requests and responses with MouchardWire, removes hop-by-hop headers,
/// re-frames bodies (length kept, chunked re-chunked, close-delimited → chunked for HTTP/1.1
/// clients), captures at most `bodyCaptureLimit` bytes of each body, and answers errors itself
/// (400, 502, 504, 508). Requests on one connection are handled one at a time; pipelined bytes
/// wait in the parser.
public struct ForwardProxyMachine {
    /// What the proxy needs to know about its surroundings.
    public struct Configuration: Sendable {
        /// `http` for a plain proxy connection, `https` inside an intercepted CONNECT tunnel.
        public var scheme: String
        /// Inside an intercepted tunnel: where every request goes, whatever its Host says.
        public var tunnelTarget: UpstreamTarget?
        /// How many bytes of each body the inspection sees.
        public var bodyCaptureLimit: Int
        /// True when `host:port` is this proxy (a request there would loop): answered 508.
        public var isSelf: @Sendable (String, Int) -> Bool
        /// Answers requests the proxy serves itself (the `http://mouchard.ca/` onboarding page).
        public var localResponder: @Sendable (HTTPRequestHead) -> LocalResponse?
        /// The received-by name of the `Via` element added to every forwarded message
        /// (`1.1 mouchard`); a request whose `Via` already names it is a loop.
        public var viaPseudonym: String
        /// Answers from recordings before going upstream (see `ReplayServing`); nil = always upstream.
        public var replay: ReplayServing?
        /// False when a request on the proxy connection lacks the credentials the proxy wants (407).
        public var authorize: @Sendable (HTTPHeaders) -> Bool = { _ in true }

        public init(scheme: String = "http", tunnelTarget: UpstreamTarget? = nil, bodyCaptureLimit: Int = 16 << 20,
                    isSelf: @escaping @Sendable (String, Int) -> Bool = { _, _ in false },
                    localResponder: @escaping @Sendable (HTTPRequestHead) -> LocalResponse? = { _ in nil },
                    viaPseudonym: String = "mouchard", replay: ReplayServing? = nil) {
            self.scheme = scheme
            self.tunnelTarget = tunnelTarget
            self.bodyCaptureLimit = bodyCaptureLimit
            self.isSelf = isSelf
            self.localResponder = localResponder
            self.viaPseudonym = viaPseudonym
            self.replay = replay
        }
    }

    /// Something that happened on one of the two connections.
    public enum Input: Sendable {
        case clientBytes([UInt8])
        case clientEnded
        case upstreamConnected
        case upstreamFailed(UpstreamFailure)
        case upstreamBytes([UInt8])
        case upstreamEnded
    }

    /// What the driver must do, in order.
    public enum Action: Sendable {
        /// Use a connection to `target` for the current exchange (a pooled one or a new one).
        case connectUpstream(UpstreamTarget)
        case sendUpstream([UInt8])
        case sendClient([UInt8])
        /// The exchange is over and the upstream connection may serve another request.
        case releaseUpstream
        /// The upstream connection must not be reused.
        case closeUpstream
        /// Close the client connection once what was sent is flushed.
        case closeClient
        /// A CONNECT request: the driver answers it and owns the connection from now on
        /// (`leftover` = bytes the client sent after the CONNECT head).
        case openTunnel(UpstreamTarget, leftover: [UInt8])
        /// One exchange finished (successfully or not): hand it to inspection.
        case completed(CapturedExchange)
        /// The origin accepted an `Upgrade` (101, e.g. WebSocket): from now on bytes are copied both
        /// ways untouched. The leftovers are bytes already received after the request / the 101 head.
        case switchProtocols(clientLeftover: [UInt8], upstreamLeftover: [UInt8])
    }

    enum Phase: Equatable {
        /// Waiting for a request head.
        case idle
        /// Forwarding the request body (the response may already be arriving).
        case request
        /// The request is complete; waiting for or forwarding the response.
        case response
        /// Answered locally; dropping the rest of the request body, then back to idle.
        case discardingRequest(closeAfter: Bool)
        case tunnel
        case closed
    }

    /// How a body is delimited on the wire.
    enum Framing: Equatable {
        case none
        case length
        case chunked
        case untilClose
    }

    public let configuration: Configuration
    var phase: Phase = .idle
    var requests: HTTPRequestStream
    var responses: HTTPResponseStream?
    var exchange: CapturedExchange?
    var requestFramingOut: Framing = .none
    var requestDone = false
    var responseFramingOut: Framing = .none
    var responseDone = false
    var clientKeepAlive = true
    var upstreamReusable = true
    var responseHeadSent = false
    /// Where the current exchange goes.
    var currentTarget: UpstreamTarget?
    /// The `Upgrade` value the client asked for on the current request (nil = no upgrade).
    var upgradeRequested: String?
    /// Monotonic clock in ms, set by the driver before each input (for timings).
    public var now: UInt64 = 0
    /// Trailer fields of the chunked body being forwarded, sent with its last chunk.
    var requestTrailers: HTTPHeaders = []
    var responseTrailers: HTTPHeaders = []
    /// With a response source: the request being buffered until its source is asked.
    var replayPending: ReplayPendingRequest?

    public init(configuration: Configuration) {
        self.configuration = configuration
        self.requests = HTTPRequestStream()
    }

    /// True when the client's bytes should stop being read (a request is in flight and more
    /// bytes are waiting in the parser).
    public var wantsClientPaused: Bool {
        (phase == .response && requests.bufferedCount > 0) || phase == .tunnel || phase == .closed
    }

    public var isClosed: Bool { phase == .closed }
    /// True between a request head and the end of its response.
    public var isBusy: Bool { phase == .request || phase == .response }

    // MARK: - Inputs

    public mutating func handle(_ input: Input) -> [Action] {
        var actions: [Action] = []
        switch input {
        case .clientBytes(let bytes):
            guard phase != .closed && phase != .tunnel else { return [] }
            requests.append(bytes)
            pumpRequests(&actions)
        case .clientEnded:
            clientEnded(&actions)
        case .upstreamConnected:
            break
        case .upstreamFailed(let failure):
            upstreamFailed(failure, &actions)
        case .upstreamBytes(let bytes):
            guard var stream = responses, phase == .request || phase == .response else {
                // Bytes nobody asked for: the connection is unusable.
                if !bytes.isEmpty { actions.append(.closeUpstream) }
                return actions
            }
            stream.append(bytes)
            responses = stream
            pumpResponse(&actions)
        case .upstreamEnded:
            upstreamEnded(&actions)
        }
        return actions
    }

    // MARK: - Requests

    private mutating func pumpRequests(_ actions: inout [Action]) {
        while true {
            switch phase {
            case .idle, .request, .discardingRequest:
                break
            default:
                return
            }
            let part: HTTPStreamPart<HTTPRequestHead>?
            do {
                part = try requests.next()
            } catch {
                requestParseFailed(error, &actions)
                return
            }
            guard let part else { return }
            switch part {
            case .informational:
                continue  // requests have none
            case .trailers(let fields):
                if replayPending == nil, case .request = phase { requestTrailers = fields }
            case .head(let head):
                startRequest(head, &actions)
            case .body(let chunk):
                if case .discardingRequest = phase { continue }
                if replayPending != nil {
                    if !bufferForReplay(chunk, &actions) { return }
                    continue
                }
                exchange?.requestBody.append(chunk)
                actions.append(.sendUpstream(Self.frame(chunk, as: requestFramingOut)))
            case .end:
                if case .discardingRequest(let closeAfter) = phase {
                    if closeAfter {
                        phase = .closed
                        actions.append(.closeClient)
                        return
                    }
                    phase = .idle
                    continue
                }
                if replayPending != nil {
                    answerFromReplay(&actions)
                    continue
                }
                if requestFramingOut == .chunked { actions.append(.sendUpstream(Self.lastChunk(trailers: requestTrailers))) }
                requestTrailers = []
                requestDone = true
                exchange?.requestSentMonotonic = now
                if responseDone {
                    finishExchange(&actions)
                } else {
                    phase = .response
                }
            }
        }
    }

    private mutating func startRequest(_ head: HTTPRequestHead, _ actions: inout [Action]) {
        if case .discardingRequest = phase { phase = .idle }
        // RFC 9112 §9.3: a proxy does not keep a connection with an HTTP/1.0 client persistent,
        // whatever its `Connection: keep-alive` says.
        clientKeepAlive = head.version.major > 1 || (head.version.major == 1 && head.version.minor >= 1)
            ? HopByHopHeaders.wantsKeepAlive(head.headers, version: head.version) : false
        if configuration.tunnelTarget == nil && !configuration.authorize(head.headers) {
            // Inside an intercepted tunnel the CONNECT already showed the credentials.
            respondLocally(ClientAccess.authenticationRequired, close: !clientKeepAlive || head.method == "CONNECT", &actions)
            return
        }

        if head.method == "CONNECT" {
            guard configuration.tunnelTarget == nil, let target = Self.connectTarget(head.target) else {
                respondLocally(.error(status: 400, message: "bad CONNECT target '\(head.target)'"), close: true, &actions)
                return
            }
            if configuration.isSelf(target.host, target.port) {
                respondLocally(.error(status: 508, message: "request to the proxy itself (loop)"), close: true, &actions)
                return
            }
            phase = .tunnel
            actions.append(.openTunnel(target, leftover: requests.takeBuffered()))
            return
        }

        if let local = configuration.localResponder(head) {
            // Served by the proxy itself (onboarding): not traffic of the device, so not recorded.
            respondLocally(local, close: !clientKeepAlive, &actions)
            return
        }

        // Where does the request go?
        var target: UpstreamTarget
        var originForm: String
        var authority: String
        var addressedToOrigin = false
        if let parts = URLParts(absolute: head.target) {
            guard parts.scheme == "http" || (parts.scheme == "https" && configuration.tunnelTarget != nil) else {
                respondLocally(.error(status: 400, message: "unsupported scheme '\(parts.scheme)' (use CONNECT for https)"),
                               close: true, &actions)
                return
            }
            let host = URLParts.hostOnly(authority: parts.authority)
            let port = URLParts.port(authority: parts.authority) ?? (parts.scheme == "https" ? 443 : 80)
            guard !host.isEmpty, (1...65535).contains(port) else {
                respondLocally(.error(status: 400, message: "bad request target '\(head.target)'"), close: true, &actions)
                return
            }
            target = configuration.tunnelTarget ?? UpstreamTarget(host: host, port: port, tls: false)
            originForm = parts.pathAndQuery
            authority = parts.authority
        } else if let tunnel = configuration.tunnelTarget {
            target = tunnel
            originForm = head.target
            authority = head.headers["Host"] ?? tunnel.authority
        } else if let origin = Self.originTarget(head, replay: configuration.replay) {
            // Answering as an origin from recordings: the Host header says which recorded host.
            (target, authority) = origin
            originForm = head.target
            addressedToOrigin = true
        } else if head.method == "OPTIONS" && head.target == "*" {
            // Asterisk form on a proxy connection asks about the proxy itself (RFC 9110 §9.3.7).
            respondLocally(IntermediaryFields.finalRecipientResponse(head, pseudonym: configuration.viaPseudonym),
                           close: !clientKeepAlive, &actions)
            return
        } else {
            // Origin-form on a proxy connection: the client is talking to the proxy as if it were the origin.
            respondLocally(.error(status: 508, message: "this is a proxy: the request targets the proxy itself (loop); " +
                                  "send absolute-form requests or CONNECT"), close: true, &actions)
            return
        }
        if configuration.tunnelTarget == nil && !addressedToOrigin && configuration.isSelf(target.host, target.port) {
            respondLocally(.error(status: 508, message: "request to the proxy itself (loop)"), close: true, &actions)
            return
        }
        if IntermediaryFields.viaNames(head.headers, pseudonym: configuration.viaPseudonym) {
            respondLocally(.error(status: 508, message: "request already went through this proxy (loop)"), close: true, &actions)
            return
        }
        let maxForwards = IntermediaryFields.maxForwards(head)
        if maxForwards == 0 {
            // RFC 9110 §7.6.2: not forwarded; the proxy answers as the final recipient.
            respondLocally(IntermediaryFields.finalRecipientResponse(head, pseudonym: configuration.viaPseudonym),
                           close: !clientKeepAlive, &actions)
            return
        }
        if head.method == "OPTIONS" && IntermediaryFields.isServerWide(head.target) {
            originForm = "*"  // RFC 9112 §3.2.4
        }

        // Request framing (RFC 9112 §6.3); the parser already rejected contradictory heads.
        let framing = (try? HTTPBodyFraming(request: head)) ?? .none
        let chunked = framing == .chunked
        if case .contentLength = framing { requestFramingOut = .length } else { requestFramingOut = chunked ? .chunked : .none }

        var out = head
        out.target = originForm
        out.version = .http11
        if let maxForwards { out.headers.replaceOrAdd(name: "Max-Forwards", value: String(maxForwards - 1)) }
        if case .contentLength(let length) = framing { IntermediaryFields.collapseContentLength(&out.headers, length: length) }
        let expectsContinue = head.headers["Expect"].map { $0.lowercased().contains("100-continue") } ?? false
        HopByHopHeaders.strip(&out.headers)
        upgradeRequested = Self.requestedUpgrade(head.headers)
        if let upgrade = upgradeRequested {
            out.headers.add(name: "Connection", value: "Upgrade")
            out.headers.add(name: "Upgrade", value: upgrade)
        }
        out.headers.remove(name: "Expect")
        if chunked { out.headers.remove(name: "Content-Length") }
        if configuration.tunnelTarget == nil || !out.headers.contains("Host") {
            out.headers.replaceOrAdd(name: "Host", value: authority)
        }
        if chunked { out.headers.add(name: "Transfer-Encoding", value: "chunked") }
        out.headers.add(name: "Via", value: IntermediaryFields.viaElement(received: head.version, pseudonym: configuration.viaPseudonym))

        exchange = CapturedExchange(scheme: configuration.scheme, fallbackAuthority: configuration.tunnelTarget?.authority,
                                    requestHead: head, bodyLimit: configuration.bodyCaptureLimit,
                                    started: Date(), startedMonotonic: now)
        exchange?.upstream = target
        currentTarget = target
        responses = HTTPResponseStream(requestMethod: head.method)
        requestDone = false
        responseDone = false
        responseHeadSent = false
        upstreamReusable = true
        phase = .request
        if expectsContinue { actions.append(.sendClient(Array("HTTP/1.1 100 Continue\r\n\r\n".utf8))) }
        if configuration.replay != nil {
            // The source is asked once the whole request is here; nothing goes upstream before.
            replayPending = ReplayPendingRequest(upstreamHead: out, target: target, addressedToOrigin: addressedToOrigin)
            return
        }
        actions.append(.connectUpstream(target))
        actions.append(.sendUpstream(out.serialized))
    }

    private mutating func requestParseFailed(_ error: any Error, _ actions: inout [Action]) {
        if phase == .request || phase == .response {
            // The request we were forwarding is broken: the upstream saw a partial message.
            exchange?.error = "client sent an invalid request: \(error)"
            upstreamReusable = false
            if let e = exchange { actions.append(.completed(e)) }
            exchange = nil
            actions.append(.closeUpstream)
            if !responseHeadSent {
                actions.append(.sendClient(Self.serialize(.error(status: 400, message: "invalid request: \(error)"), close: true)))
            }
            phase = .closed
            actions.append(.closeClient)
            return
        }
        respondLocally(.error(status: 400, message: "invalid request: \(error)"), close: true, &actions)
    }

    // MARK: - Responses

    private mutating func pumpResponse(_ actions: inout [Action]) {
        while var stream = responses, !responseDone {
            let part: HTTPStreamPart<HTTPResponseHead>?
            do {
                part = try stream.next()
                responses = stream
            } catch {
                responses = stream
                upstreamFailed(.badResponse("\(error)"), &actions)
                return
            }
            guard let part else { return }
            switch part {
            case .informational(let head):
                // Interim responses are forwarded (RFC 9110 §15.2: a proxy MUST; e.g. 103 Early
                // Hints), to HTTP/1.1 clients only (1.0 has none); but not 100 Continue: the proxy
                // took the expectation on itself and already answered it.
                let clientVersion = exchange?.requestHead.version ?? .http11
                if head.status != 100, !responseHeadSent, clientVersion.major > 1 || clientVersion.minor >= 1 {
                    var out = head
                    HopByHopHeaders.strip(&out.headers)
                    actions.append(.sendClient(out.serialized))
                }
            case .head(let head):
                if head.status == 101, let upgrade = upgradeRequested, requestDone {
                    switchProtocols(head, upgrade: upgrade, stream: &stream, &actions)
                    return
                }
                if head.status >= 100 && head.status < 200 {
                    continue  // a 101 nobody asked for: not a final response
                }
                startResponse(head, &actions)
            case .body(let chunk):
                exchange?.responseBody.append(chunk)
                actions.append(.sendClient(Self.frame(chunk, as: responseFramingOut)))
            case .trailers(let fields):
                responseTrailers = fields
            case .end:
                if responseFramingOut == .chunked { actions.append(.sendClient(Self.lastChunk(trailers: responseTrailers))) }
                responseTrailers = []
                if stream.wasCloseDelimited { upstreamReusable = false }
                responseDone = true
                if requestDone {
                    finishExchange(&actions)
                } else {
                    // The origin answered before the request body ended: neither side can be reused.
                    upstreamReusable = false
                    clientKeepAlive = false
                    finishExchange(&actions)
                }
                return
            }
        }
    }

    /// 101 Switching Protocols to an upgrade the client asked for: forward it, record the
    /// exchange, and hand both connections over to a byte tunnel.
    private mutating func switchProtocols(_ head: HTTPResponseHead, upgrade: String, stream: inout HTTPResponseStream,
                                          _ actions: inout [Action]) {
        var out = head
        HopByHopHeaders.strip(&out.headers)
        out.headers.add(name: "Via", value: IntermediaryFields.viaElement(received: head.version, pseudonym: configuration.viaPseudonym))
        out.headers.add(name: "Connection", value: "Upgrade")
        out.headers.add(name: "Upgrade", value: head.headers["Upgrade"] ?? upgrade)
        actions.append(.sendClient(out.serialized))
        exchange?.responseHead = head
        exchange?.responseStartedMonotonic = now
        exchange?.finishedMonotonic = now
        if let e = exchange { actions.append(.completed(e)) }
        exchange = nil
        let upstreamLeftover = stream.takeTunnelBytes()
        responses = nil
        phase = .tunnel
        actions.append(.switchProtocols(clientLeftover: requests.takeBuffered(), upstreamLeftover: upstreamLeftover))
    }

    /// The protocol a request asks to upgrade to (`Connection: upgrade` + `Upgrade: X`), or nil.
    static func requestedUpgrade(_ headers: HTTPHeaders) -> String? {
        guard HopByHopHeaders.connectionTokens(headers).contains("upgrade"),
              let value = headers["Upgrade"], !value.trimmingSpaces().isEmpty else { return nil }
        return value.trimmingSpaces()
    }

    private mutating func startResponse(_ head: HTTPResponseHead, _ actions: inout [Action]) {
        exchange?.responseHead = head
        exchange?.responseStartedMonotonic = now
        let method = exchange?.requestHead.method ?? "GET"
        if !HopByHopHeaders.wantsKeepAlive(head.headers, version: head.version) { upstreamReusable = false }
        let clientVersion = exchange?.requestHead.version ?? .http11
        let inbound: Framing
        switch (try? HTTPBodyFraming(response: head, requestMethod: method)) ?? .untilClose {
        case .none: inbound = .none
        case .contentLength: inbound = .length
        case .chunked: inbound = .chunked
        case .untilClose, .tunnel:
            inbound = .untilClose
            upstreamReusable = false
        }
        var out = head
        HopByHopHeaders.strip(&out.headers)
        if case .contentLength(let length)? = try? HTTPBodyFraming(response: head, requestMethod: method) {
            IntermediaryFields.collapseContentLength(&out.headers, length: length)
        }
        out.headers.add(name: "Via", value: IntermediaryFields.viaElement(received: head.version, pseudonym: configuration.viaPseudonym))
        switch inbound {
        case .none, .length:
            responseFramingOut = inbound == .length ? .length : .none
        case .chunked, .untilClose:
            out.headers.remove(name: "Content-Length")
            if clientVersion.minor >= 1 || clientVersion.major > 1 {
                responseFramingOut = .chunked
                out.headers.add(name: "Transfer-Encoding", value: "chunked")
            } else {
                responseFramingOut = .untilClose
                clientKeepAlive = false
            }
        }
        out.version = .http11
        if !clientKeepAlive { out.headers.add(name: "Connection", value: "close") }
        responseHeadSent = true
        actions.append(.sendClient(out.serialized))
    }

    mutating func finishExchange(_ actions: inout [Action]) {
        exchange?.finishedMonotonic = now
        if let e = exchange { actions.append(.completed(e)) }
        exchange = nil
        responses = nil
        actions.append(upstreamReusable ? .releaseUpstream : .closeUpstream)
        if !clientKeepAlive || responseFramingOut == .untilClose {
            phase = .closed
            actions.append(.closeClient)
            return
        }
        phase = .idle
        pumpRequests(&actions)
    }

    // MARK: - Failures and ends

    private mutating func upstreamFailed(_ failure: UpstreamFailure, _ actions: inout [Action]) {
        guard phase == .request || phase == .response else {
            actions.append(.closeUpstream)
            return
        }
        exchange?.error = "upstream \(currentTarget?.authority ?? "server"): \(failure)"
        exchange?.finishedMonotonic = now
        if let e = exchange { actions.append(.completed(e)) }
        exchange = nil
        responses = nil
        actions.append(.closeUpstream)
        if !responseHeadSent {
            let what = "upstream \(currentTarget?.authority ?? "server"): \(failure)"
            actions.append(.sendClient(Self.serialize(.error(status: failure.status, message: what), close: true)))
        }
        phase = .closed
        actions.append(.closeClient)
    }

    private mutating func upstreamEnded(_ actions: inout [Action]) {
        guard phase == .request || phase == .response, var stream = responses else { return }
        // A close-delimited body ends here; anything else is a failure.
        do {
            if let part = try stream.finish() {
                responses = stream
                if case .end = part {
                    if responseFramingOut == .chunked { actions.append(.sendClient(Self.lastChunk)) }
                    upstreamReusable = false
                    responseDone = true
                    if !requestDone { clientKeepAlive = false }
                    finishExchange(&actions)
                    return
                }
            }
        } catch {}
        upstreamFailed(responseHeadSent ? .reset("closed in the middle of the response") : .closedEarly, &actions)
    }

    private mutating func clientEnded(_ actions: inout [Action]) {
        switch phase {
        case .request, .response:
            exchange?.error = "client closed the connection before the exchange finished"
            exchange?.finishedMonotonic = now
            if let e = exchange { actions.append(.completed(e)) }
            exchange = nil
            actions.append(.closeUpstream)
        default:
            break
        }
        if phase != .tunnel {
            phase = .closed
            actions.append(.closeClient)
        }
    }

    mutating func respondLocally(_ response: LocalResponse, close: Bool, _ actions: inout [Action]) {
        actions.append(.sendClient(Self.serialize(response, close: close)))
        if close {
            phase = .closed
            actions.append(.closeClient)
        } else {
            phase = .discardingRequest(closeAfter: false)
        }
    }

    // MARK: - Helpers

    static func serialize(_ response: LocalResponse, close: Bool) -> [UInt8] {
        var head = response.head
        if close { head.headers.add(name: "Connection", value: "close") }
        return head.serialized + response.body
    }

    static let lastChunk: [UInt8] = lastChunk(trailers: [])

    /// The last chunk with the trailer fields received (RFC 9112 §7.1.2: forwarded, less hop-by-hop ones).
    static func lastChunk(trailers: HTTPHeaders) -> [UInt8] {
        var fields = trailers
        HopByHopHeaders.strip(&fields)
        var out: [UInt8] = []
        HTTPChunkedEncoder.appendLastChunk(trailers: fields, to: &out)
        return out
    }

    static func frame(_ chunk: [UInt8], as framing: Framing) -> [UInt8] {
        guard framing == .chunked else { return chunk }
        guard !chunk.isEmpty else { return [] }
        var out: [UInt8] = []
        out.reserveCapacity(chunk.count + 12)
        HTTPChunkedEncoder.appendChunk(chunk, to: &out)
        return out
    }

    /// `host:port` of a CONNECT request (authority-form); the port is required by RFC 9110 but 443 is assumed when missing.
    static func connectTarget(_ text: String) -> UpstreamTarget? {
        let host = URLParts.hostOnly(authority: text)
        let port = URLParts.port(authority: text) ?? 443
        guard !host.isEmpty, !host.contains("/"), (1...65535).contains(port) else { return nil }
        return UpstreamTarget(host: host, port: port, tls: true)
    }
}

import CNghttp2

/// Which end of an HTTP/2 connection we are.
public enum HTTP2Role: Sendable {
    /// We accept streams (the phone-facing side of the proxy).
    case server
    /// We open streams (the origin-facing side).
    case client
}

/// One HTTP/2 connection, sans-I/O, over one libnghttp2 session (the only caller of nghttp2's
/// session API): bytes read from the peer go in through `receive(_:)`, which returns what happened
/// as `HTTP2Event`s; what to send comes out of `pendingOutput()` (`mem_recv`/`mem_send`: nghttp2
/// does no I/O). Requests, responses, bodies, trailers, resets and GOAWAY are submitted with the
/// methods below and leave with the next `pendingOutput()`.
///
/// Body bytes handed to `sendBody` wait here until the peer's flow-control window lets them out
/// (`bufferedBodyBytes` says how many).
///
/// Flow control is the back-pressure (RFC 9113 §5.2): received DATA is not credited back to the
/// peer as it is read (nghttp2's automatic WINDOW_UPDATE is off) but when the caller says the bytes
/// are gone (`consume`), so a peer never has more unconsumed than the windows we advertise
/// (`HTTP2Limits.streamWindow`, `connectionWindow`), and the connection is read at all times (its
/// control frames with it). A body that carries another connection's DATA names that stream
/// (`source`); once its bytes have been framed for the peer, or dropped, `takeReleased()` says so,
/// for the caller to `consume` them on the connection they came from.
///
/// Limits (`HTTP2Limits`) are applied here: concurrent streams, header list size (counted in
/// `on_header`, since nghttp2 leaves it to the application), CONTINUATION frames and the RST_STREAM
/// rate (nghttp2's own options, present in Debian 12's patched 1.52). One thread at a time.
public final class HTTP2Connection {
    public let role: HTTP2Role
    public let limits: HTTP2Limits
    private var session: OpaquePointer!
    /// Events gathered by the callbacks during one `receive`.
    var events: [HTTP2Event] = []
    /// Header blocks being received, per stream.
    var blocks: [Int32: HeaderBlock] = [:]
    /// Bodies waiting to be sent, per stream.
    var outgoing: [Int32: OutgoingBody] = [:]
    public private(set) var bufferedBodyBytes = 0 {
        didSet { peakBufferedBodyBytes = max(peakBufferedBodyBytes, bufferedBodyBytes) }
    }
    /// The most body bytes that ever waited here at once.
    public private(set) var peakBufferedBodyBytes = 0
    /// DATA bytes received per stream and not consumed yet (credited back by `consume`).
    var unconsumed: [Int32: Int] = [:]
    /// Bytes of other connections' streams that left (framed for the peer) or were dropped here.
    var released: [BodyRelease] = []
    /// Header blocks refused for their size so far.
    var refusedBlocks = 0
    /// Fields nghttp2 found invalid (RFC 9113 §8.2.1) and that were dropped, not fatal.
    public internal(set) var ignoredFields = 0
    /// Why the connection failed (a protocol error by the peer, a limit), once it has.
    public private(set) var failure: String?
    /// The error code of the GOAWAY we sent because of `failure`.
    public private(set) var failureCode: UInt32?

    public init(role: HTTP2Role, limits: HTTP2Limits = .standard) throws(HTTP2Error) {
        self.role = role
        self.limits = limits
        var option: OpaquePointer?
        guard nghttp2_option_new(&option) == 0, let option else { throw HTTP2Error("nghttp2_option_new failed") }
        defer { nghttp2_option_del(option) }
        nghttp2_option_set_max_continuations(option, limits.maxContinuations)
        nghttp2_option_set_stream_reset_rate_limit(option, limits.resetBurst, limits.resetRatePerSecond)
        nghttp2_option_set_no_auto_window_update(option, 1)
        var created: OpaquePointer?
        let me = Unmanaged.passUnretained(self).toOpaque()
        let rv = role == .server
            ? nghttp2_session_server_new2(&created, HTTP2Callbacks.shared.pointer, me, option)
            : nghttp2_session_client_new2(&created, HTTP2Callbacks.shared.pointer, me, option)
        guard rv == 0, let created else { throw HTTP2Error("nghttp2 session: \(Self.text(rv))") }
        session = created
        var settings = [
            nghttp2_settings_entry(settings_id: Int32(NGHTTP2_SETTINGS_MAX_CONCURRENT_STREAMS.rawValue),
                                   value: limits.maxConcurrentStreams),
            nghttp2_settings_entry(settings_id: Int32(NGHTTP2_SETTINGS_INITIAL_WINDOW_SIZE.rawValue),
                                   value: UInt32(limits.streamWindow)),
            nghttp2_settings_entry(settings_id: Int32(NGHTTP2_SETTINGS_MAX_HEADER_LIST_SIZE.rawValue),
                                   value: UInt32(limits.maxHeaderListSize)),
        ]
        if role == .client {
            // No server push: the proxy has nowhere to send a pushed stream.
            settings.append(nghttp2_settings_entry(settings_id: Int32(NGHTTP2_SETTINGS_ENABLE_PUSH.rawValue), value: 0))
        }
        guard nghttp2_submit_settings(session, UInt8(NGHTTP2_FLAG_NONE.rawValue), settings, settings.count) == 0,
              nghttp2_session_set_local_window_size(session, UInt8(NGHTTP2_FLAG_NONE.rawValue), 0, limits.connectionWindow) == 0
        else { throw HTTP2Error("nghttp2 settings refused") }
    }

    deinit { nghttp2_session_del(session) }

    // MARK: - Bytes in, bytes out

    /// Reads what the peer sent (the client preface included, on the server side). A protocol error
    /// or a limit crossed sets `failure` and queues GOAWAY; what came before it is still reported.
    public func receive(_ bytes: [UInt8]) -> [HTTP2Event] {
        guard failure == nil, !bytes.isEmpty else { return [] }
        let rv = bytes.withUnsafeBufferPointer { nghttp2_session_mem_recv(session, $0.baseAddress, $0.count) }
        if rv < 0 {
            let code = rv == Int(NGHTTP2_ERR_FLOODED.rawValue) || rv == Int(NGHTTP2_ERR_TOO_MANY_CONTINUATIONS.rawValue)
                ? HTTP2ErrorCode.enhanceYourCalm : HTTP2ErrorCode.protocolError
            fail(Self.text(Int32(truncatingIfNeeded: rv)), code: code)
        } else if refusedBlocks > limits.maxRefusedHeaderBlocks {
            fail("more than \(limits.maxRefusedHeaderBlocks) header blocks over \(limits.maxHeaderListSize) bytes",
                 code: HTTP2ErrorCode.enhanceYourCalm)
        }
        return takeEvents()
    }

    /// Events that happened while sending (a stream closes when our END_STREAM or RST_STREAM leaves
    /// after the peer's): collect them after `pendingOutput()`.
    public func takeEvents() -> [HTTP2Event] {
        let out = events
        events = []
        return out
    }

    /// The frames to send now (empty when there is nothing). Bodies leave as windows allow.
    public func pendingOutput() -> [UInt8] {
        var out: [UInt8] = []
        while true {
            var data: UnsafePointer<UInt8>?
            let n = nghttp2_session_mem_send(session, &data)
            if n <= 0 {
                if n < 0, failure == nil { failure = "sending: \(Self.text(Int32(truncatingIfNeeded: n)))" }
                break
            }
            guard let data else { break }
            out.append(contentsOf: UnsafeBufferPointer(start: data, count: n))
        }
        return out
    }

    /// The peer allows RFC 8441 extended CONNECT (its SETTINGS_ENABLE_CONNECT_PROTOCOL is 1).
    public var peerAllowsExtendedConnect: Bool {
        nghttp2_session_get_remote_settings(session, NGHTTP2_SETTINGS_ENABLE_CONNECT_PROTOCOL) == 1
    }

    /// Tells the peer it may open extended CONNECT streams (RFC 8441 §3, SETTINGS_ENABLE_CONNECT_PROTOCOL
    /// 1, in a SETTINGS of its own: the value may go from 0 to 1 at any time); a server connection then
    /// takes a CONNECT request with `:protocol`.
    public func allowExtendedConnect() {
        var entry = nghttp2_settings_entry(settings_id: Int32(NGHTTP2_SETTINGS_ENABLE_CONNECT_PROTOCOL.rawValue), value: 1)
        _ = nghttp2_submit_settings(session, UInt8(NGHTTP2_FLAG_NONE.rawValue), &entry, 1)
    }

    /// The session has nothing more to read or write (after GOAWAY both ways, or a fatal error).
    public var isFinished: Bool { nghttp2_session_want_read(session) == 0 && nghttp2_session_want_write(session) == 0 }

    /// The highest peer stream id processed (for a GOAWAY of our own).
    public var lastPeerStream: Int32 { nghttp2_session_get_last_proc_stream_id(session) }

    // MARK: - Submitting

    /// Opens a stream with a request head (client side); nil when the connection cannot take one
    /// (GOAWAY received, stream ids exhausted). With `hasBody`, body bytes follow with `sendBody`.
    /// `source`: the stream of the other connection whose DATA the body carries (see `takeReleased`).
    public func submitRequest(_ fields: [HTTP2Field], hasBody: Bool, source: Int32? = nil) -> Int32? {
        let id = withNameValues(fields) { nva in
            hasBody ? withBodySource { nghttp2_submit_request(session, nil, nva.baseAddress, nva.count, $0, nil) }
                    : nghttp2_submit_request(session, nil, nva.baseAddress, nva.count, nil, nil)
        }
        guard id > 0 else { return nil }
        if hasBody { outgoing[id] = OutgoingBody(source: source) }
        return id
    }

    /// Answers a stream with a response head (server side); false if the stream is gone.
    @discardableResult
    public func submitResponse(stream: Int32, _ fields: [HTTP2Field], hasBody: Bool, source: Int32? = nil) -> Bool {
        if hasBody { outgoing[stream] = OutgoingBody(source: source) }
        let rv = withNameValues(fields) { nva in
            hasBody ? withBodySource { nghttp2_submit_response(session, stream, nva.baseAddress, nva.count, $0) }
                    : nghttp2_submit_response(session, stream, nva.baseAddress, nva.count, nil)
        }
        if rv != 0 { discardBody(stream) }
        return rv == 0
    }

    /// Queues body bytes of a stream opened with `hasBody`; false when the stream takes no more (gone,
    /// or its body ended): the bytes are dropped.
    @discardableResult
    public func sendBody(stream: Int32, _ bytes: [UInt8]) -> Bool {
        guard !bytes.isEmpty else { return true }
        guard var body = outgoing[stream], !body.ended else { return false }
        outgoing[stream] = nil  // no copy on write while appending
        body.bytes.append(contentsOf: bytes)
        bufferedBodyBytes += bytes.count
        let wasDeferred = body.deferred
        body.deferred = false
        outgoing[stream] = body
        if wasDeferred { nghttp2_session_resume_data(session, stream) }
        return true
    }

    /// Ends a body (with trailers, sent once the body has left).
    public func endBody(stream: Int32, trailers: [HTTP2Field] = []) {
        guard var body = outgoing[stream], !body.ended else { return }
        body.ended = true
        body.trailers = trailers
        let wasDeferred = body.deferred
        body.deferred = false
        outgoing[stream] = body
        if wasDeferred { nghttp2_session_resume_data(session, stream) }
    }

    /// Resets a stream (RST_STREAM with `code`); its queued body is dropped.
    public func reset(stream: Int32, code: UInt32) {
        discardBody(stream)
        nghttp2_submit_rst_stream(session, UInt8(NGHTTP2_FLAG_NONE.rawValue), stream, code)
    }

    // MARK: - Flow control

    /// Credits `bytes` received on `stream` back to the peer (WINDOW_UPDATE for the stream and the
    /// connection once nghttp2 finds enough consumed): at most what the stream received and was
    /// not consumed yet. The stream may be closed already: the connection window is still credited.
    public func consume(stream: Int32, bytes: Int) {
        guard bytes > 0, let owed = unconsumed[stream] else { return }
        let n = min(bytes, owed)
        unconsumed[stream] = owed == n ? nil : owed - n
        _ = nghttp2_session_consume(session, stream, n)
    }

    /// Credits everything `stream` received and was not consumed (its bytes were dropped).
    public func consumeAll(stream: Int32) {
        consume(stream: stream, bytes: unconsumed[stream] ?? 0)
    }

    /// Consumes what another connection released (`takeReleased()` there): the bytes that left, and
    /// all that is owed of a stream whose body is over.
    public func consume(_ releases: [BodyRelease]) {
        for r in releases {
            if r.finished { consumeAll(stream: r.source) } else { consume(stream: r.source, bytes: r.bytes) }
        }
    }

    /// DATA bytes received and not consumed yet, over all streams (at most the connection window).
    public var unconsumedBytes: Int { unconsumed.values.reduce(0, +) }

    /// What left or was dropped since the last call, per source stream (see `submitRequest`).
    public func takeReleased() -> [BodyRelease] {
        let out = released
        released = []
        return out
    }

    /// Sends GOAWAY and stops taking new streams; streams already open run to their end.
    public func goAway(code: UInt32 = HTTP2ErrorCode.noError) {
        nghttp2_submit_goaway(session, UInt8(NGHTTP2_FLAG_NONE.rawValue), lastPeerStream, code, nil, 0)
    }

    /// Sends GOAWAY with `code` and closes the connection once it is written (open streams end).
    public func terminate(code: UInt32) {
        nghttp2_session_terminate_session(session, code)
    }

    /// A GOAWAY with `code` was sent: a failure nghttp2 found itself is named (ours are already).
    func goAwaySent(code: UInt32) {
        guard failure == nil else { return }
        let why = code == HTTP2ErrorCode.internalError ? " (nghttp2's RST_STREAM rate limit, or an internal error)" : ""
        failure = "nghttp2 sent GOAWAY \(HTTP2ErrorCode.name(code))\(why)"
        failureCode = code
    }

    private func fail(_ why: String, code: UInt32) {
        failure = why
        failureCode = code
        terminate(code: code)
    }

    // MARK: - Bodies (called by the data source callback)

    /// Copies up to `length` queued bytes of `stream` into `buffer` for a DATA frame.
    func readBody(stream: Int32, into buffer: UnsafeMutablePointer<UInt8>, length: Int,
                  flags: UnsafeMutablePointer<UInt32>) -> Int {
        guard var body = outgoing[stream] else {
            flags.pointee |= NGHTTP2_DATA_FLAG_EOF.rawValue
            return 0
        }
        outgoing[stream] = nil
        let n = min(length, body.bytes.count - body.offset)
        if n > 0 {
            body.bytes.withUnsafeBufferPointer { buffer.update(from: $0.baseAddress! + body.offset, count: n) }
            body.offset += n
            bufferedBodyBytes -= n
            if let source = body.source { released.append(BodyRelease(source: source, bytes: n, finished: false)) }
            if body.offset >= OutgoingBody.compactAfter, body.offset * 2 >= body.bytes.count {
                body.bytes.removeFirst(body.offset)
                body.offset = 0
            }
        }
        if body.offset == body.bytes.count {
            if body.ended {
                if let source = body.source { released.append(BodyRelease(source: source, bytes: 0, finished: true)) }
                flags.pointee |= NGHTTP2_DATA_FLAG_EOF.rawValue
                if !body.trailers.isEmpty {
                    flags.pointee |= NGHTTP2_DATA_FLAG_NO_END_STREAM.rawValue
                    _ = withNameValues(body.trailers) { nghttp2_submit_trailer(session, stream, $0.baseAddress, $0.count) }
                }
                return n
            }
            if n == 0 {
                body.deferred = true
                outgoing[stream] = body
                return Int(NGHTTP2_ERR_DEFERRED.rawValue)
            }
        }
        outgoing[stream] = body
        return n
    }

    func discardBody(_ stream: Int32) {
        guard let body = outgoing.removeValue(forKey: stream) else { return }
        bufferedBodyBytes -= body.bytes.count - body.offset
        if let source = body.source {
            released.append(BodyRelease(source: source, bytes: body.bytes.count - body.offset, finished: true))
        }
    }

    /// DATA received on `stream` (called by the data chunk callback): owed until consumed.
    func received(stream: Int32, bytes: Int) {
        unconsumed[stream, default: 0] += bytes
    }

    // MARK: - Helpers

    private func withBodySource<R>(_ body: (UnsafePointer<nghttp2_data_provider>) -> R) -> R {
        var provider = nghttp2_data_provider(source: nghttp2_data_source(ptr: nil), read_callback: HTTP2Callbacks.readBody)
        return body(&provider)
    }

    /// The fields as nghttp2 name/value pairs, valid for the duration of `body` (nghttp2 copies them).
    private func withNameValues<R>(_ fields: [HTTP2Field], _ body: (UnsafeBufferPointer<nghttp2_nv>) -> R) -> R {
        var storage: [UInt8] = []
        storage.reserveCapacity(fields.reduce(0) { $0 + $1.name.count + $1.value.count })
        for f in fields { storage += f.name; storage += f.value }
        return storage.withUnsafeMutableBufferPointer { raw in
            var nva: [nghttp2_nv] = []
            nva.reserveCapacity(fields.count)
            var offset = 0
            let base = raw.baseAddress ?? UnsafeMutablePointer<UInt8>(bitPattern: 1)!
            for f in fields {
                let name = base + offset
                offset += f.name.count
                let value = base + offset
                offset += f.value.count
                nva.append(nghttp2_nv(name: name, value: value, namelen: f.name.count, valuelen: f.value.count,
                                      flags: UInt8(NGHTTP2_NV_FLAG_NONE.rawValue)))
            }
            return nva.withUnsafeBufferPointer { body($0) }
        }
    }

    static func text(_ code: Int32) -> String {
        nghttp2_strerror(code).map { String(cString: $0) } ?? "nghttp2 error \(code)"
    }

    /// Whether the installed libnghttp2 has the abuse limits this wrapper relies on (Debian's
    /// security updates of 1.52 add them without changing the version number, so the symbols are
    /// the proof; linking already requires them: this names the version for diagnostics).
    public static var libraryVersion: String {
        nghttp2_version(0).map { String(cString: $0.pointee.version_str) } ?? "unknown"
    }
}

/// A header block on its way in: fields so far and their counted size.
struct HeaderBlock {
    var fields: [HTTP2Field] = []
    var size = 0
}

/// A body on its way out: bytes not yet framed (from `offset`), whether it is complete, its trailers,
/// the other connection's stream its bytes came from.
struct OutgoingBody {
    var source: Int32?
    var bytes: [UInt8] = []
    var offset = 0
    var ended = false
    var deferred = false
    var trailers: [HTTP2Field] = []
    /// Sent bytes are dropped from the front once this many have gone (and half the buffer).
    static let compactAfter = 64 * 1024
}

/// Body bytes of another connection's stream (`source`) that left this connection or were dropped
/// here: the caller consumes them there. `finished`: that body is over (nothing more of it will
/// come), so whatever `source` received and is still owed can be consumed.
public struct BodyRelease: Sendable, Equatable {
    public let source: Int32
    public let bytes: Int
    public let finished: Bool
}

/// A failure to set up an HTTP/2 session.
public struct HTTP2Error: Error, Sendable, CustomStringConvertible {
    public let description: String
    init(_ description: String) { self.description = description }
}

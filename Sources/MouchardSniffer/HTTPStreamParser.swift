import MouchardWire

/// Reads the HTTP/1.x messages of one direction of a reassembled TCP stream (requests on the
/// client side, responses on the server side) with MouchardWire's incremental parsers, and adds
/// what a capture needs: capture times, gaps and resynchronization.
///
/// Framing and strictness are the wire parsers' (RFC 9112), with bare LF accepted since we only
/// observe. Bodies keep their content coding (gzip stays gzip). On a gap, or on a message the parser
/// rejects, what was received of the message in progress is emitted marked incomplete and the
/// parser resyncs on the next start line; a stream whose capture began mid-connection starts in
/// resync.
struct HTTPStreamParser {
    enum Role { case request, response }

    /// A complete (or, after a gap or fault, incomplete) message with its capture times.
    struct Message {
        var requestHead: HTTPRequestHead?
        var responseHead: HTTPResponseHead?
        var body: [UInt8]
        var bodyTruncated: Bool
        /// Body bytes the message carried (more than `body.count` when the body cap cut it).
        var bodyLength: Int
        var started: Double
        var ended: Double
        /// Why the message is incomplete (gap, connection closed early, rejected), nil when whole.
        var incomplete: String?
    }

    let role: Role
    private var requests: HTTPMessageReader<HTTPRequestParser>?
    private var responses: HTTPMessageReader<HTTPResponseParser>?
    /// Capture time at which the message in progress began.
    private var partialStarted: Double?
    private(set) var faults = 0

    static let lineEndings = HTTPLineEndingPolicy.acceptBareLineFeed

    init(role: Role, synchronized: Bool, bodyLimit: Int) {
        self.role = role
        switch role {
        case .request:
            var r = HTTPMessageReader(parser: HTTPRequestParser(lineEndings: HTTPStreamParser.lineEndings), bodyLimit: bodyLimit)
            if !synchronized { _ = r.resynchronize() }
            requests = r
        case .response:
            var r = HTTPMessageReader(parser: HTTPResponseParser(lineEndings: HTTPStreamParser.lineEndings), bodyLimit: bodyLimit)
            r.keepsTunnelBytes = true
            if !synchronized { _ = r.resynchronize() }
            responses = r
        }
    }

    /// Bytes of the server side after a 101 (the first WebSocket frames, sent with the 101 head).
    mutating func takeTunnelBytes() -> [UInt8] { responses?.takeTunnelBytes() ?? [] }

    /// Tells a response parser the method of the next request (HEAD and CONNECT answers have no body).
    mutating func expectResponse(to method: String) {
        responses?.parser.expectResponse(to: method)
    }

    /// Body bytes coming next that this parser would drop (past the body cap): they may be passed
    /// over with `skip` (a TLS decryptor then need not open the records that carry them).
    var discardableBytes: Int { requests?.discardableBodyBytes ?? responses?.discardableBodyBytes ?? 0 }

    /// Passes over `count` bytes, at most `discardableBytes`.
    mutating func skip(_ count: Int) {
        requests?.skipBody(count)
        responses?.skipBody(count)
    }

    /// Asked of the reader in place: `requests?.partial != nil` copied the message in progress
    /// out of the reader for each segment (5% of a capture's scan).
    private var hasPartial: Bool { requests?.hasPartial == true || responses?.hasPartial == true }

    /// Appends stream bytes and returns the messages they completed.
    mutating func feed(_ bytes: ArraySlice<UInt8>, time: Double) -> [Message] {
        let startedBefore = hasPartial ? partialStarted : nil
        var out: [Message] = []
        var fault: HTTPParseError?
        if var r = requests {
            requests = nil
            var got: [HTTPParsedRequest] = []
            do { try r.feedSegment(bytes, into: &got) } catch { fault = error }
            out = got.map { message($0, nil, time: time) }
            requests = r
        } else if var r = responses {
            responses = nil
            var got: [HTTPParsedResponse] = []
            do { try r.feedSegment(bytes, into: &got) } catch { fault = error }
            out = got.map { message(nil, $0, time: time) }
            responses = r
        }
        if let first = out.indices.first { out[first].started = startedBefore ?? time }
        partialStarted = hasPartial ? (out.isEmpty ? (startedBefore ?? time) : time) : nil
        if let fault {
            faults += 1
            out += resync(reason: "rejected by the HTTP parser: \(fault)", time: time)
        }
        return out
    }

    /// A hole in the stream: the message in progress is emitted as incomplete, then resync.
    mutating func gap(length: Int, time: Double) -> [Message] {
        resync(reason: "capture gap of \(length) bytes", time: time)
    }

    /// The connection closed: a response read until close completes; anything else in progress
    /// is emitted incomplete.
    mutating func end(time: Double) -> [Message] {
        let started = partialStarted ?? time
        var out: [Message] = []
        if var r = requests {
            requests = nil
            var got: [HTTPParsedRequest] = []
            do { try r.finish(into: &got) } catch {
                if let p = r.partial { got.append(p) }
            }
            out = got.map { message($0, nil, time: time) }
            requests = r
        } else if var r = responses {
            responses = nil
            var got: [HTTPParsedResponse] = []
            do { try r.finish(into: &got) } catch {
                if let p = r.partial { got.append(p) }
            }
            out = got.map { message(nil, $0, time: time) }
            responses = r
        }
        for i in out.indices {
            out[i].started = started
            if out[i].bodyTruncated && out[i].incomplete == nil { out[i].incomplete = "connection ended before the end of the message" }
        }
        partialStarted = nil
        return out
    }

    private mutating func resync(reason: String, time: Double) -> [Message] {
        let started = partialStarted ?? time
        partialStarted = nil
        var lost: Message?
        if var r = requests {
            requests = nil
            lost = r.resynchronize().map { message($0, nil, time: time) }
            requests = r
        } else if var r = responses {
            responses = nil
            lost = r.resynchronize().map { message(nil, $0, time: time) }
            responses = r
        }
        guard var m = lost else { return [] }
        m.incomplete = reason
        m.bodyTruncated = true
        m.started = started
        return [m]
    }

    private func message(_ request: HTTPParsedRequest?, _ response: HTTPParsedResponse?, time: Double) -> Message {
        let truncated = request?.bodyTruncated ?? response?.bodyTruncated ?? false
        let complete = request?.isComplete ?? response?.isComplete ?? true
        return Message(requestHead: request?.head, responseHead: response?.head, body: request?.body ?? response?.body ?? [],
                       bodyTruncated: truncated, bodyLength: request?.bodyLength ?? response?.bodyLength ?? 0,
                       started: time, ended: time,
                       incomplete: complete ? nil : "connection ended before the end of the message")
    }

    // MARK: - Detection by content

    /// True when `b` starts with a complete line that the wire request parser accepts as a request line.
    static func looksLikeRequestLine(_ b: ArraySlice<UInt8>) -> Bool {
        guard let line = firstLine(b) else { return false }
        var parser = HTTPRequestParser(lineEndings: lineEndings)
        var events: [HTTPRequestEvent] = []
        do { try parser.feed(line, into: &events) } catch { return false }
        return true
    }

    /// True when `b` starts with a complete line that the wire response parser accepts as a status line.
    static func looksLikeStatusLine(_ b: ArraySlice<UInt8>) -> Bool {
        guard let line = firstLine(b) else { return false }
        var parser = HTTPResponseParser(lineEndings: lineEndings)
        var events: [HTTPResponseEvent] = []
        do { try parser.feed(line, into: &events) } catch { return false }
        return true
    }

    /// The first line of `b` with its LF (looked for in the first 8 KiB), nil when there is none yet.
    private static func firstLine(_ b: ArraySlice<UInt8>) -> ArraySlice<UInt8>? {
        guard let lf = b.prefix(8192).firstIndex(of: 0x0A) else { return nil }
        return b[b.startIndex...lf]
    }
}

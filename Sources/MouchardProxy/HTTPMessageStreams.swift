import MouchardWire

/// One step of a message as the proxy machine consumes it: an interim 1xx response head
/// (responses only), the head, a body piece, the trailer fields of a chunked body, the end.
public enum HTTPStreamPart<Head: Sendable & Hashable>: Sendable, Hashable {
    case informational(Head)
    case head(Head)
    case body([UInt8])
    case trailers(HTTPHeaders)
    case end
}

/// The requests of one client connection, parsed by `HTTPRequestParser`, delivered one part at a
/// time so the machine can stop between messages (pipelined requests wait here). After a CONNECT
/// head, `takeBuffered()` returns the bytes the client sent after it.
struct HTTPRequestStream {
    private var parser = HTTPRequestParser()
    private var events: [HTTPRequestEvent] = []
    private var position = 0
    private var failure: HTTPParseError?

    /// Adds bytes from the client (an error is reported by `next()` after the parts before it).
    mutating func append(_ bytes: [UInt8]) {
        guard failure == nil else { return }
        compact()
        do {
            try parser.feed(bytes, into: &events)
        } catch {
            failure = error
        }
    }

    /// Parts not consumed yet (0 = nothing waiting).
    var bufferedCount: Int { events.count - position }

    mutating func next() throws(HTTPParseError) -> HTTPStreamPart<HTTPRequestHead>? {
        while position < events.count {
            let event = events[position]
            position += 1
            switch event {
            case .head(let h): return .head(h)
            case .body(let b): return .body(b)
            case .trailers(let t): return .trailers(t)
            case .end: return .end
            case .informational, .tunnel: continue
            }
        }
        if let failure { throw failure }
        return nil
    }

    /// Everything after the CONNECT head that is not HTTP: the first bytes of the tunnel.
    mutating func takeBuffered() -> [UInt8] {
        tunnelBytes(events, from: &position) + parser.startTunnel()
    }

    private mutating func compact() {
        if position > 0 && position == events.count {
            events.removeAll(keepingCapacity: true)
            position = 0
        } else if position > 64 {
            events.removeFirst(position)
            position = 0
        }
    }
}

/// The response to one request, parsed by `HTTPResponseParser` (told the request method so HEAD,
/// 204 and 304 have no body).
struct HTTPResponseStream {
    private var parser = HTTPResponseParser()
    private var events: [HTTPResponseEvent] = []
    private var position = 0
    private var failure: HTTPParseError?
    let requestMethod: String
    /// True when the body ran until the connection closed (the connection cannot be reused).
    private(set) var wasCloseDelimited = false

    init(requestMethod: String) {
        self.requestMethod = requestMethod
        parser.expectResponse(to: requestMethod)
    }

    mutating func append(_ bytes: [UInt8]) {
        guard failure == nil else { return }
        if position > 0 && position == events.count {
            events.removeAll(keepingCapacity: true)
            position = 0
        }
        do {
            try parser.feed(bytes, into: &events)
        } catch {
            failure = error
        }
    }

    mutating func next() throws(HTTPParseError) -> HTTPStreamPart<HTTPResponseHead>? {
        while position < events.count {
            let event = events[position]
            position += 1
            switch event {
            case .head(let h):
                if (try? HTTPBodyFraming(response: h, requestMethod: requestMethod)) == .untilClose { wasCloseDelimited = true }
                return .head(h)
            case .body(let b): return .body(b)
            case .end: return .end
            case .informational(let h): return .informational(h)
            case .trailers(let t): return .trailers(t)
            case .tunnel: continue
            }
        }
        if let failure { throw failure }
        return nil
    }

    /// After a 101 head: the bytes that followed it (they belong to the new protocol).
    mutating func takeTunnelBytes() -> [UInt8] {
        tunnelBytes(events, from: &position) + parser.startTunnel()
    }

    /// The origin closed: ends a close-delimited body (`.end`), or throws when the response is incomplete.
    mutating func finish() throws(HTTPParseError) -> HTTPStreamPart<HTTPResponseHead>? {
        if let failure { throw failure }
        try parser.finish(into: &events)
        var last: HTTPStreamPart<HTTPResponseHead>?
        while let part = try next() {
            last = part
            if case .end = part { return .end }
        }
        return last
    }
}

/// The bytes of the `tunnel` events from `position` on (consumed), for a connection leaving HTTP/1.
private func tunnelBytes<Head>(_ events: [HTTPParserEvent<Head>], from position: inout Int) -> [UInt8] {
    var out: [UInt8] = []
    while position < events.count {
        if case .tunnel(let b) = events[position] { out.append(contentsOf: b) }
        position += 1
    }
    return out
}

import MouchardWire

/// Parses the HTTP/1.x messages of one direction of a reassembled TCP stream: requests on the
/// client side, responses on the server side. Bytes arrive in pieces; complete messages come out.
///
/// Framing follows RFC 9112: chunked when Transfer-Encoding ends in `chunked`, else
/// Content-Length, else (responses only) until the connection closes; HEAD requests and
/// 1xx/204/304 responses have no body. Bodies keep their content coding (gzip stays gzip).
/// On a gap the message in progress is emitted marked incomplete and the parser resyncs on the
/// next line that starts a message; the same resync finds the first message of a stream whose
/// capture started mid-connection.
struct HTTPStreamParser {
    enum Role { case request, response }

    /// A complete (or, after a gap, incomplete) message.
    struct Message {
        var requestHead: HTTPRequestHead?
        var responseHead: HTTPResponseHead?
        var body: [UInt8]
        var bodyTruncated: Bool
        /// Capture time of the first and last byte.
        var started: Double
        var ended: Double
        /// Why the message is incomplete (gap, connection closed early), nil when whole.
        var incomplete: String?
    }

    private enum State {
        case resync
        case head
        case fixedBody(remaining: Int)
        case chunkSize
        case chunkData(remaining: Int)
        case chunkDataEnd
        case trailers
        case untilClose
    }

    let role: Role
    let headLimit: Int
    let bodyLimit: Int
    private var state: State
    private var pending: [UInt8] = []
    private var position = 0
    private var current: Message?
    /// Methods of the requests whose responses are awaited, oldest first (response role).
    var awaitedMethods: [String] = []
    private(set) var messagesParsed = 0

    init(role: Role, synchronized: Bool, headLimit: Int, bodyLimit: Int) {
        self.role = role
        self.state = synchronized ? .head : .resync
        self.headLimit = headLimit
        self.bodyLimit = bodyLimit
    }

    /// Appends stream bytes and returns the messages they completed.
    mutating func feed(_ bytes: ArraySlice<UInt8>, time: Double, dropped: inout Int) -> [Message] {
        if position > 0 && position == pending.count {
            pending.removeAll(keepingCapacity: true)
            position = 0
        }
        // Body bytes are copied straight into the message without going through `pending`.
        var input = bytes
        var out: [Message] = []
        if pending.count == position {
            input = consumeBodyDirectly(input, time: time, dropped: &dropped, out: &out)
        }
        if !input.isEmpty { pending.append(contentsOf: input) }
        run(time: time, dropped: &dropped, out: &out)
        if position > 1 << 16 && position * 2 > pending.count {
            pending.removeSubrange(0..<position)
            position = 0
        }
        return out
    }

    /// A hole in the stream: the message in progress is emitted as incomplete, then resync.
    mutating func gap(length: Int, time: Double) -> [Message] {
        var out: [Message] = []
        if var m = current {
            m.incomplete = "capture gap of \(length) bytes"
            m.bodyTruncated = true
            m.ended = time
            out.append(m)
            current = nil
        }
        pending.removeAll(keepingCapacity: true)
        position = 0
        state = .resync
        return out
    }

    /// The connection closed: a response read until close completes; anything else in progress
    /// is incomplete.
    mutating func end(time: Double) -> [Message] {
        guard var m = current else { return [] }
        current = nil
        if case .untilClose = state {
            m.ended = time
            messagesParsed += 1
            return [m]
        }
        m.incomplete = "connection ended before the end of the message"
        m.bodyTruncated = true
        m.ended = time
        return [m]
    }

    private mutating func appendBody(_ bytes: ArraySlice<UInt8>, dropped: inout Int) {
        guard current != nil else { return }
        let room = bodyLimit - (current?.body.count ?? 0)
        if room >= bytes.count {
            current?.body.append(contentsOf: bytes)
        } else {
            if room > 0 { current?.body.append(contentsOf: bytes.prefix(room)) }
            dropped += bytes.count - max(room, 0)
            current?.bodyTruncated = true
        }
    }

    /// Fast path for bulk bodies: fixed-length and chunk data bytes bypass `pending`.
    private mutating func consumeBodyDirectly(_ input: ArraySlice<UInt8>, time: Double, dropped: inout Int,
                                              out: inout [Message]) -> ArraySlice<UInt8> {
        var rest = input
        switch state {
        case .fixedBody(let remaining):
            let n = min(remaining, rest.count)
            appendBody(rest.prefix(n), dropped: &dropped)
            rest = rest.dropFirst(n)
            if n == remaining { complete(time: time, out: &out) } else { state = .fixedBody(remaining: remaining - n) }
        case .chunkData(let remaining):
            let n = min(remaining, rest.count)
            appendBody(rest.prefix(n), dropped: &dropped)
            rest = rest.dropFirst(n)
            state = n == remaining ? .chunkDataEnd : .chunkData(remaining: remaining - n)
        case .untilClose:
            appendBody(rest, dropped: &dropped)
            current?.ended = time
            rest = rest.dropFirst(rest.count)
        default:
            break
        }
        return rest
    }

    private mutating func complete(time: Double, out: inout [Message]) {
        if var m = current {
            m.ended = time
            out.append(m)
            messagesParsed += 1
        }
        current = nil
        state = .head
    }

    /// Runs the state machine over `pending` as far as it goes.
    private mutating func run(time: Double, dropped: inout Int, out: inout [Message]) {
        var guardSteps = 0
        while position < pending.count {
            guardSteps += 1
            if guardSteps > 1_000_000 { break }
            let available = pending[position...]
            switch state {
            case .resync:
                if let start = findMessageStart(available) {
                    position = start
                    state = .head
                } else {
                    // Keep a short tail: a message start may straddle the next piece.
                    let keep = min(available.count, 32)
                    position = pending.count - keep
                    return
                }
            case .head:
                guard let headEnd = findHeadEnd(available) else {
                    if available.count > headLimit {
                        dropped += available.count
                        state = .resync
                        position = pending.count
                    }
                    return
                }
                let headBytes = pending[position..<headEnd]
                position = headEnd
                guard beginMessage(headBytes, time: time, out: &out) else {
                    state = .resync
                    continue
                }
            case .fixedBody(let remaining):
                let n = min(remaining, available.count)
                appendBody(available.prefix(n), dropped: &dropped)
                position += n
                if n == remaining { complete(time: time, out: &out) } else { state = .fixedBody(remaining: remaining - n) }
            case .chunkSize, .trailers:
                guard let lineEnd = available.firstIndex(of: 0x0A) else {
                    if available.count > 4096 { state = .resync }
                    return
                }
                var line = pending[position..<lineEnd]
                position = lineEnd + 1
                if line.last == 0x0D { line = line.dropLast() }
                if case .trailers = state {
                    if line.isEmpty { complete(time: time, out: &out) }
                    continue
                }
                guard let size = HTTPStreamParser.chunkSize(line) else {
                    current?.incomplete = "bad chunk size line"
                    current?.bodyTruncated = true
                    complete(time: time, out: &out)
                    state = .resync
                    continue
                }
                state = size == 0 ? .trailers : .chunkData(remaining: size)
            case .chunkData(let remaining):
                let n = min(remaining, available.count)
                appendBody(available.prefix(n), dropped: &dropped)
                position += n
                state = n == remaining ? .chunkDataEnd : .chunkData(remaining: remaining - n)
            case .chunkDataEnd:
                // CRLF after the chunk data (tolerate a bare LF).
                if available.first == 0x0D {
                    guard available.count >= 2 else { return }
                    position += available.dropFirst().first == 0x0A ? 2 : 1
                } else if available.first == 0x0A {
                    position += 1
                }
                state = .chunkSize
            case .untilClose:
                appendBody(available, dropped: &dropped)
                current?.ended = time
                position = pending.count
            }
        }
    }

    /// Parses a head and sets the framing of its body; false when it is not an HTTP head.
    private mutating func beginMessage(_ head: ArraySlice<UInt8>, time: Double, out: inout [Message]) -> Bool {
        var lines = HTTPStreamParser.splitLines(head)
        guard !lines.isEmpty else { return false }
        let startLine = lines.removeFirst()
        var headers = HTTPHeaders()
        for line in lines where !line.isEmpty {
            if line.first == 0x20 || line.first == 0x09, !headers.fields.isEmpty {
                // Obsolete line folding: continue the previous value.
                let last = headers.fields.count - 1
                headers.fields[last].valueBytes.append(0x20)
                headers.fields[last].valueBytes.append(contentsOf: HTTPStreamParser.trimmed(line))
                continue
            }
            guard let colon = line.firstIndex(of: 0x3A) else { continue }
            let name = decodeFieldText(HTTPStreamParser.trimmed(line[line.startIndex..<colon]))
            guard !name.isEmpty else { continue }
            headers.fields.append(HTTPField(name: name, valueBytes: Array(HTTPStreamParser.trimmed(line[(colon + 1)...]))))
        }
        var message = Message(requestHead: nil, responseHead: nil, body: [], bodyTruncated: false, started: time,
                              ended: time, incomplete: nil)
        let chunked = headers.values(for: "Transfer-Encoding").last.map {
            $0.split(separator: ",").last.map { asciiCaseInsensitiveEquals(HTTPStreamParser.trimmed($0), "chunked") } ?? false
        } ?? false
        let contentLength = headers["Content-Length"].flatMap { Int(HTTPStreamParser.trimmed(Substring($0))) }
        switch role {
        case .request:
            guard let (method, target, version) = HTTPStreamParser.requestLine(startLine) else { return false }
            message.requestHead = HTTPRequestHead(method: method, target: target, version: version, headers: headers)
            current = message
            if chunked { state = .chunkSize } else if let n = contentLength, n > 0 { state = .fixedBody(remaining: n) } else {
                complete(time: time, out: &out)
            }
        case .response:
            guard let (version, status, reason) = HTTPStreamParser.statusLine(startLine) else { return false }
            message.responseHead = HTTPResponseHead(version: version, status: status, reason: reason, headers: headers)
            current = message
            let informational = status >= 100 && status < 200 && status != 101
            let method = informational ? nil : (awaitedMethods.isEmpty ? nil : awaitedMethods.removeFirst())
            if informational || status == 204 || status == 304 || method == "HEAD" || (method == "CONNECT" && status < 300) {
                if informational { current = nil; state = .head } else { complete(time: time, out: &out) }
            } else if chunked {
                state = .chunkSize
            } else if let n = contentLength {
                if n > 0 { state = .fixedBody(remaining: n) } else { complete(time: time, out: &out) }
            } else {
                state = .untilClose
            }
        }
        return true
    }

    // MARK: - Lexical helpers

    /// Index just past the empty line ending a head (CRLFCRLF or LFLF), or nil.
    private func findHeadEnd(_ b: ArraySlice<UInt8>) -> Int? {
        var i = b.startIndex
        let end = min(b.endIndex, b.startIndex + headLimit + 4)
        while i < end {
            if b[i] == 0x0A {
                if i + 1 < b.endIndex && b[i + 1] == 0x0A { return i + 2 }
                if i + 2 < b.endIndex && b[i + 1] == 0x0D && b[i + 2] == 0x0A { return i + 3 }
            }
            i += 1
        }
        return nil
    }

    /// The index of the first line (at `b`'s start or after a LF) that starts a message of this role.
    private func findMessageStart(_ b: ArraySlice<UInt8>) -> Int? {
        var i = b.startIndex
        while i < b.endIndex {
            if i == b.startIndex || b[i - 1] == 0x0A {
                if role == .response ? HTTPStreamParser.looksLikeStatusLine(b[i...]) : HTTPStreamParser.looksLikeRequestLine(b[i...]) {
                    return i
                }
            }
            i += 1
        }
        return nil
    }

    static func splitLines(_ b: ArraySlice<UInt8>) -> [ArraySlice<UInt8>] {
        var lines: [ArraySlice<UInt8>] = []
        var start = b.startIndex
        for i in b.indices where b[i] == 0x0A {
            var line = b[start..<i]
            if line.last == 0x0D { line = line.dropLast() }
            lines.append(line)
            start = i + 1
        }
        if start < b.endIndex { lines.append(b[start...]) }
        while lines.last?.isEmpty == true { lines.removeLast() }
        return lines
    }

    static func trimmed(_ b: ArraySlice<UInt8>) -> ArraySlice<UInt8> {
        var s = b
        while let f = s.first, f == 0x20 || f == 0x09 { s = s.dropFirst() }
        while let l = s.last, l == 0x20 || l == 0x09 || l == 0x0D { s = s.dropLast() }
        return s
    }

    static func trimmed(_ s: Substring) -> String {
        String(s.drop { $0 == " " || $0 == "\t" }.reversed().drop { $0 == " " || $0 == "\t" }.reversed())
    }

    static func chunkSize(_ line: ArraySlice<UInt8>) -> Int? {
        var value = 0
        var digits = 0
        for b in line {
            let d: Int
            switch b {
            case 0x30...0x39: d = Int(b - 0x30)
            case 0x41...0x46: d = Int(b - 0x41 + 10)
            case 0x61...0x66: d = Int(b - 0x61 + 10)
            case 0x3B, 0x20, 0x09: return digits > 0 ? value : nil  // chunk extension
            default: return nil
            }
            digits += 1
            guard digits <= 15 else { return nil }
            value = value * 16 + d
        }
        return digits > 0 ? value : nil
    }

    /// `METHOD SP target SP HTTP/1.x`: method is an upper-case token.
    static func requestLine(_ line: ArraySlice<UInt8>) -> (String, String, HTTPVersion)? {
        let parts = line.split(separator: 0x20, omittingEmptySubsequences: true)
        guard parts.count == 3, let version = httpVersion(parts[2]), isMethodToken(parts[0]) else { return nil }
        return (decodeFieldText(parts[0]), decodeFieldText(parts[1]), version)
    }

    /// `HTTP/1.x SP 3DIGIT [SP reason]`.
    static func statusLine(_ line: ArraySlice<UInt8>) -> (HTTPVersion, Int, String)? {
        guard let sp = line.firstIndex(of: 0x20), let version = httpVersion(line[line.startIndex..<sp]) else { return nil }
        let rest = line[(sp + 1)...]
        let code = rest.prefix(3)
        guard code.count == 3, code.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }), let status = Int(decodeFieldText(code)) else {
            return nil
        }
        return (version, status, decodeFieldText(trimmed(rest.dropFirst(3))))
    }

    static func httpVersion(_ b: ArraySlice<UInt8>) -> HTTPVersion? {
        guard b.count == 8, b.hasBytePrefix(Array("HTTP/".utf8)) else { return nil }
        let major = b[b.startIndex + 5], dot = b[b.startIndex + 6], minor = b[b.startIndex + 7]
        guard major >= 0x30 && major <= 0x39, dot == 0x2E, minor >= 0x30 && minor <= 0x39 else { return nil }
        return HTTPVersion(major: Int(major - 0x30), minor: Int(minor - 0x30))
    }

    static func isMethodToken(_ b: ArraySlice<UInt8>) -> Bool {
        guard b.count >= 3 && b.count <= 24 else { return false }
        return b.allSatisfy { ($0 >= 0x41 && $0 <= 0x5A) || $0 == 0x2D || $0 == 0x5F }
    }

    /// True when `b` starts with a complete request line (up to its LF).
    static func looksLikeRequestLine(_ b: ArraySlice<UInt8>) -> Bool {
        let window = b.prefix(8192)
        guard let lf = window.firstIndex(of: 0x0A) else { return false }
        var line = b[b.startIndex..<lf]
        if line.last == 0x0D { line = line.dropLast() }
        return requestLine(line) != nil
    }

    static func looksLikeStatusLine(_ b: ArraySlice<UInt8>) -> Bool {
        let window = b.prefix(8192)
        guard let lf = window.firstIndex(of: 0x0A) else { return false }
        var line = b[b.startIndex..<lf]
        if line.last == 0x0D { line = line.dropLast() }
        return statusLine(line) != nil
    }
}

/// A head type the shared HTTP/1 state machine can build: it knows its start line and how its body
/// is framed. Implemented by `HTTPRequestHead` and `HTTPResponseHead`.
protocol HTTPParsableHead: Sendable, Hashable {
    /// Parses the start line `line[range]` (line ending removed); `offset` is the stream offset of
    /// `line[range.lowerBound]`. Returns a head without headers.
    static func parseStartLine(_ line: UnsafeBufferPointer<UInt8>, _ range: Range<Int>,
                               at offset: Int) throws(HTTPParseError) -> Self
    /// Decides, once the header section is complete, whether the head is interim or final and how
    /// its body is framed.
    static func outcome(of head: Self, context: inout HTTPExchangeContext,
                        at offset: Int) throws(HTTPParseError) -> HTTPHeadOutcome
    /// Where a start line may begin in `line[range]`, best first (at most a few): used to find the
    /// next message after a gap, when the line may begin with the end of a lost body.
    static func startLineCandidates(_ line: UnsafeBufferPointer<UInt8>, _ range: Range<Int>) -> [Int]
    var headers: HTTPHeaders { get set }
}

/// What follows a complete head.
enum HTTPHeadOutcome {
    case interim
    case final(HTTPBodyFraming)
}

/// What a parser must know about the other direction of the exchange: the methods of the requests
/// whose responses are still to come (pipelining), oldest first.
struct HTTPExchangeContext: Sendable {
    private var methods: [String] = []
    private var head = 0

    mutating func enqueue(_ method: String) {
        if head > 64, head * 2 > methods.count {
            methods.removeFirst(head)
            head = 0
        }
        methods.append(method)
    }

    var pendingCount: Int { methods.count - head }

    /// The method of the oldest request without a final response, or nil when none is known.
    var oldest: String? { head < methods.count ? methods[head] : nil }

    mutating func dequeue() {
        if head < methods.count { head += 1 }
    }
}

/// The incremental HTTP/1 state machine shared by `HTTPRequestParser` and `HTTPResponseParser`.
///
/// Works line by line: only the current incomplete line is buffered (`partialLine`), so feeding one
/// byte at a time costs no rescans, and body bytes go from the input straight into `body` events.
/// Offsets in errors count from the first byte ever fed.
struct HTTPMessageParser<Head: HTTPParsableHead>: Sendable {
    enum State: Sendable {
        case startLine
        case headerLine
        case fixedBody(remaining: Int)
        case chunkSizeLine
        case chunkData(remaining: Int)
        case chunkDataEnd
        case trailerLine
        case untilClose
        case tunnel
        /// Looking for a line that starts a message (capture started mid-stream, or after a gap).
        case resync
        /// In resync, skipping the rest of a line too long to be a start line.
        case resyncSkippingLine
        case finished
        case failed(HTTPParseError)
    }

    typealias Event = HTTPParserEvent<Head>

    let limits: HTTPParserLimits
    let lineEndings: HTTPLineEndingPolicy
    var context = HTTPExchangeContext()
    private(set) var state: State = .startLine
    /// Bytes of the current line received so far (no LF in them).
    private var partialLine: [UInt8] = []
    /// Stream offset of the first byte of the current line.
    private var lineStart = 0
    /// Stream offset of the next byte to be fed.
    private(set) var streamOffset = 0
    /// Start line of the head being read.
    private var building: Head?
    private var fields: [HTTPField] = []
    /// Bytes and fields of the current header or trailer section so far.
    private var sectionBytes = 0
    /// Stream offset where the start line of the head being read began.
    private var headStart = 0
    /// Stream offset just past the line being handled (its LF included).
    private var lineEnd = 0
    /// When on, `wireMarks` gets one offset per `head`/`informational` event (where its start
    /// line began) and per `end` event (just past the message), in event order: what
    /// `HTTPMessageReader` needs to keep each message's bytes exactly as they arrived.
    var recordsWireMarks = false
    private(set) var wireMarks: [Int] = []

    /// The marks recorded since the last call (see `recordsWireMarks`).
    mutating func takeWireMarks() -> [Int] {
        defer { wireMarks.removeAll(keepingCapacity: true) }
        return wireMarks
    }

    init(limits: HTTPParserLimits, lineEndings: HTTPLineEndingPolicy) {
        self.limits = limits
        self.lineEndings = lineEndings
    }

    /// True between the first byte of a message and its end (a message is in progress).
    var isInsideMessage: Bool {
        switch state {
        case .startLine: !partialLine.isEmpty
        case .tunnel, .finished, .failed, .resync, .resyncSkippingLine: false
        default: true
        }
    }

    /// See `HTTPMessageParsing.skippableBodyBytes`: the last byte of a length-framed body or chunk
    /// is always fed, so that the parser itself ends it.
    var skippableBodyBytes: Int {
        switch state {
        case .fixedBody(let remaining), .chunkData(let remaining): max(0, remaining - 1)
        case .untilClose: Int.max
        default: 0
        }
    }

    /// See `HTTPMessageParsing.skipBody`; stream offsets count the bytes passed over.
    mutating func skipBody(_ count: Int) {
        precondition(count >= 0 && count <= skippableBodyBytes, "skipping more than the body bytes certain to come")
        switch state {
        case .fixedBody(let remaining): state = .fixedBody(remaining: remaining - count)
        case .chunkData(let remaining): state = .chunkData(remaining: remaining - count)
        default: break
        }
        streamOffset += count
    }

    /// Drops the message in progress and any buffered bytes, then skips bytes until a line that
    /// parses as a start line (`resync`). Offsets keep counting from the first byte ever fed.
    mutating func resynchronize() {
        if case .finished = state { return }
        state = .resync
        building = nil
        fields.removeAll(keepingCapacity: true)
        partialLine.removeAll(keepingCapacity: true)
    }

    /// Switches to tunnel mode: every later byte is reported as `tunnel`. Returns the bytes of an
    /// incomplete line that were buffered and not yet parsed.
    mutating func startTunnel() -> [UInt8] {
        state = .tunnel
        building = nil
        fields = []
        defer { partialLine = [] }
        return partialLine
    }

    mutating func feed(_ buffer: UnsafeBufferPointer<UInt8>, into events: inout [Event]) throws(HTTPParseError) {
        try run(buffer, into: &events)
    }

    mutating func finish(into events: inout [Event]) throws(HTTPParseError) {
        switch state {
        case .failed(let error):
            throw error
        case .untilClose:
            events.append(.end)
            if recordsWireMarks { wireMarks.append(streamOffset) }
        case .tunnel, .finished, .resync, .resyncSkippingLine:
            // Bytes skipped while looking for a start line are no message: nothing is truncated.
            break
        case .startLine where partialLine.isEmpty:
            break
        default:
            let error = HTTPParseError(.truncatedMessage, at: streamOffset)
            state = .failed(error)
            throw error
        }
        state = .finished
    }

    private mutating func run(_ buffer: UnsafeBufferPointer<UInt8>, into events: inout [Event]) throws(HTTPParseError) {
        // The whole buffer counts as fed even when a fault stops parsing (or the parser had
        // already failed), so offsets stay true for a caller that resynchronizes and goes on.
        defer { streamOffset += buffer.count }
        switch state {
        case .failed(let error): throw error
        case .finished:
            if buffer.isEmpty { return }
            let error = HTTPParseError(.dataAfterEndOfStream, at: streamOffset)
            throw error
        default: break
        }
        do {
            try consume(buffer, into: &events)
        } catch {
            state = .failed(error)
            throw error
        }
    }

    private mutating func consume(_ buffer: UnsafeBufferPointer<UInt8>, into events: inout [Event]) throws(HTTPParseError) {
        let n = buffer.count
        let base = streamOffset
        var i = 0
        while i < n {
            switch state {
            case .resyncSkippingLine:
                guard let lf = buffer.firstIndex(of: 0x0A, from: i) else {
                    i = n
                    continue
                }
                state = .resync
                i = lf + 1
            case .startLine, .headerLine, .chunkSizeLine, .chunkDataEnd, .trailerLine, .resync:
                let limit = lineLimit()
                guard let lf = buffer.firstIndex(of: 0x0A, from: i) else {
                    // No line end yet: keep the piece, unless the line is already too long
                    // (one byte of slack for a CR still to come).
                    if partialLine.isEmpty { lineStart = base + i }
                    if partialLine.count + (n - i) > limit.length + 1 {
                        try lineTooLong(limit)
                        i = n
                        continue
                    }
                    partialLine.append(contentsOf: UnsafeBufferPointer(rebasing: buffer[i..<n]))
                    i = n
                    continue
                }
                if partialLine.isEmpty {
                    lineStart = base + i
                    try line(buffer, i..<lf, limit: limit, into: &events)
                } else {
                    if partialLine.count + (lf - i) > limit.length + 1 {
                        try lineTooLong(limit)
                        state = .resync
                        i = lf + 1
                        continue
                    }
                    partialLine.append(contentsOf: UnsafeBufferPointer(rebasing: buffer[i..<lf]))
                    var whole: [UInt8] = []
                    swap(&whole, &partialLine)
                    var failure: HTTPParseError?
                    whole.withUnsafeBufferPointer { w in
                        do throws(HTTPParseError) { try self.line(w, 0..<w.count, limit: limit, into: &events) } catch { failure = error }
                    }
                    if let failure { throw failure }
                    // Keep a small buffer for the next split line; give back a big one (a
                    // proxy holds one parser per connection).
                    if whole.capacity <= 16 * 1024 {
                        whole.removeAll(keepingCapacity: true)
                        swap(&whole, &partialLine)
                    }
                }
                i = lf + 1
            case .fixedBody(let remaining):
                let take = min(remaining, n - i)
                events.append(.body(Array(UnsafeBufferPointer(rebasing: buffer[i..<i + take]))))
                i += take
                if take == remaining {
                    endMessage(into: &events, at: base + i)
                } else {
                    state = .fixedBody(remaining: remaining - take)
                }
            case .chunkData(let remaining):
                let take = min(remaining, n - i)
                events.append(.body(Array(UnsafeBufferPointer(rebasing: buffer[i..<i + take]))))
                i += take
                state = take == remaining ? .chunkDataEnd : .chunkData(remaining: remaining - take)
            case .untilClose:
                events.append(.body(Array(UnsafeBufferPointer(rebasing: buffer[i..<n]))))
                i = n
            case .tunnel:
                events.append(.tunnel(Array(UnsafeBufferPointer(rebasing: buffer[i..<n]))))
                i = n
            case .finished, .failed:
                // Not reachable: run() checks these before consuming.
                return
            }
        }
    }

    private struct LineLimit {
        var length: Int
        var code: HTTPParseError.Code
    }

    private func lineLimit() -> LineLimit {
        var limit = rawLineLimit()
        // Clamped so that `length + 1` never overflows, whatever limits the caller configured.
        limit.length = min(max(0, limit.length), Int.max / 2)
        return limit
    }

    private func rawLineLimit() -> LineLimit {
        switch state {
        case .startLine, .resync: LineLimit(length: limits.maxStartLineLength, code: .startLineTooLong)
        case .headerLine, .trailerLine:
            LineLimit(length: max(0, limits.maxHeaderBytes) - sectionBytes - 2, code: .headersTooLarge)
        case .chunkSizeLine: LineLimit(length: limits.maxChunkSizeLineLength, code: .chunkSizeLineTooLong)
        default: LineLimit(length: 0, code: .missingChunkTerminator)
        }
    }

    /// A line is longer than its limit: an error, except in resync where the line is dropped
    /// (state `resyncSkippingLine` until its end).
    private mutating func lineTooLong(_ limit: LineLimit) throws(HTTPParseError) {
        guard case .resync = state else { throw HTTPParseError(limit.code, at: lineStart + limit.length) }
        partialLine.removeAll(keepingCapacity: true)
        state = .resyncSkippingLine
    }

    /// Handles one complete line `line[range]`: the LF is excluded, a CR before it is still there.
    private mutating func line(_ line: UnsafeBufferPointer<UInt8>, _ range: Range<Int>, limit: LineLimit,
                               into events: inout [Event]) throws(HTTPParseError) {
        lineEnd = lineStart + range.count + 1
        if case .resync = state {
            resyncLine(line, range)
            return
        }
        // Same checks in the same order whether the line arrived whole or in pieces, so errors do
        // not depend on how the stream was split.
        if range.count > limit.length + 1 { throw HTTPParseError(limit.code, at: lineStart + limit.length) }
        var end = range.upperBound
        if end > range.lowerBound, line[end - 1] == 0x0D {
            end -= 1
        } else if lineEndings == .requireCRLF {
            throw HTTPParseError(.bareLineFeed, at: lineStart + range.count)
        }
        let content = range.lowerBound..<end
        if content.count > limit.length {
            throw HTTPParseError(limit.code, at: lineStart + limit.length)
        }
        switch state {
        case .startLine:
            // RFC 9112 §2.2: empty lines before a start line are ignored.
            if content.isEmpty { return }
            building = try Head.parseStartLine(line, content, at: lineStart)
            headStart = lineStart
            sectionBytes = 0
            fields.removeAll(keepingCapacity: true)
            state = .headerLine
        case .headerLine:
            if content.isEmpty {
                try completeHead(into: &events)
            } else {
                try field(line, content)
            }
        case .chunkSizeLine:
            let size = try chunkSize(line, content)
            if size == 0 {
                sectionBytes = 0
                fields.removeAll(keepingCapacity: true)
                state = .trailerLine
            } else {
                state = .chunkData(remaining: size)
            }
        case .chunkDataEnd:
            guard content.isEmpty else { throw HTTPParseError(.missingChunkTerminator, at: lineStart) }
            state = .chunkSizeLine
        case .trailerLine:
            if content.isEmpty {
                if !fields.isEmpty {
                    events.append(.trailers(HTTPHeaders(Array(fields))))
                    fields.removeAll(keepingCapacity: true)
                }
                endMessage(into: &events, at: lineEnd)
            } else {
                try field(line, content)
            }
        default:
            break
        }
    }

    /// Parses one field line into `fields`, enforcing the section limits.
    private mutating func field(_ line: UnsafeBufferPointer<UInt8>, _ range: Range<Int>) throws(HTTPParseError) {
        let at = lineStart
        sectionBytes += range.count + 2
        if fields.count >= limits.maxHeaderCount { throw HTTPParseError(.tooManyHeaders, at: at) }
        let first = line[range.lowerBound]
        if HTTPByteClass.isWhitespace(first) { throw HTTPParseError(.obsoleteLineFolding, at: at) }
        var j = range.lowerBound
        while j < range.upperBound, HTTPByteClass.isToken(line[j]) { j += 1 }
        guard j > range.lowerBound, j < range.upperBound else {
            throw HTTPParseError(.invalidFieldName, at: at + (j - range.lowerBound))
        }
        let separator = line[j]
        guard separator == 0x3A else {
            let code: HTTPParseError.Code = HTTPByteClass.isWhitespace(separator) ? .whitespaceBeforeColon : .invalidFieldName
            throw HTTPParseError(code, at: at + (j - range.lowerBound))
        }
        var start = j + 1
        var end = range.upperBound
        while start < end, HTTPByteClass.isWhitespace(line[start]) { start += 1 }
        while end > start, HTTPByteClass.isWhitespace(line[end - 1]) { end -= 1 }
        if let bad = line.firstInvalidFieldValueByte(in: start..<end) {
            throw HTTPParseError(.invalidFieldValue, at: at + (bad - range.lowerBound))
        }
        let name = String(decoding: UnsafeBufferPointer(rebasing: line[range.lowerBound..<j]), as: UTF8.self)
        fields.append(HTTPField(name: name, valueBytes: Array(UnsafeBufferPointer(rebasing: line[start..<end]))))
    }

    /// chunk-size [ chunk-ext ]: hexadecimal size, then optional `;`-introduced extensions (checked
    /// for control bytes, otherwise ignored).
    private func chunkSize(_ line: UnsafeBufferPointer<UInt8>, _ range: Range<Int>) throws(HTTPParseError) -> Int {
        var size = 0
        var j = range.lowerBound
        while j < range.upperBound, let digit = hexNibble(line[j]).map(Int.init) {
            if size > Int.max >> 4 { throw HTTPParseError(.chunkSizeTooLarge, at: lineStart) }
            size = size << 4 | digit
            j += 1
        }
        if j == range.lowerBound { throw HTTPParseError(.invalidChunkSize, at: lineStart) }
        if j < range.upperBound {
            // BWS ";" chunk-ext: whitespace is only allowed before a ';'.
            var k = j
            while k < range.upperBound, HTTPByteClass.isWhitespace(line[k]) { k += 1 }
            guard k < range.upperBound, line[k] == 0x3B else {
                throw HTTPParseError(.invalidChunkSize, at: lineStart + (j - range.lowerBound))
            }
            if let bad = line.firstInvalidFieldValueByte(in: k..<range.upperBound) {
                throw HTTPParseError(.invalidChunkExtension, at: lineStart + (bad - range.lowerBound))
            }
        }
        return size
    }

    private mutating func completeHead(into events: inout [Event]) throws(HTTPParseError) {
        guard var head = building else { return }
        // An exact-size copy: `fields` keeps its capacity for the next message.
        head.headers = HTTPHeaders(Array(fields))
        fields.removeAll(keepingCapacity: true)
        building = nil
        let outcome = try Head.outcome(of: head, context: &context, at: lineStart)
        switch outcome {
        case .interim:
            events.append(.informational(head))
            if recordsWireMarks { wireMarks.append(headStart) }
            state = .startLine
        case .final(let framing):
            events.append(.head(head))
            if recordsWireMarks { wireMarks.append(headStart) }
            switch framing {
            case .none, .contentLength(0):
                endMessage(into: &events, at: lineEnd)
            case .contentLength(let length):
                state = .fixedBody(remaining: length)
            case .chunked:
                state = .chunkSizeLine
            case .untilClose:
                state = .untilClose
            case .tunnel:
                events.append(.end)
                if recordsWireMarks { wireMarks.append(lineEnd) }
                state = .tunnel
            }
        }
    }

    /// In resync: starts a message if `line[range]` holds a start line (at its beginning or, after
    /// the tail of a lost message, at a place `Head.startLineCandidates` points to).
    private mutating func resyncLine(_ line: UnsafeBufferPointer<UInt8>, _ range: Range<Int>) {
        guard range.count <= limits.maxStartLineLength + 1 else { return }
        var end = range.upperBound
        if end > range.lowerBound, line[end - 1] == 0x0D {
            end -= 1
        } else if lineEndings == .requireCRLF {
            return
        }
        for start in Head.startLineCandidates(line, range.lowerBound..<end) {
            if let head = try? Head.parseStartLine(line, start..<end, at: lineStart + (start - range.lowerBound)) {
                building = head
                headStart = lineStart + (start - range.lowerBound)
                sectionBytes = 0
                fields.removeAll(keepingCapacity: true)
                state = .headerLine
                return
            }
        }
    }

    /// `offset`: the stream offset just past the message's last byte.
    private mutating func endMessage(into events: inout [Event], at offset: Int) {
        events.append(.end)
        if recordsWireMarks { wireMarks.append(offset) }
        state = .startLine
    }
}

/// Runs `body` over the bytes of `bytes` as one contiguous buffer (copying only when the collection
/// has no contiguous storage). Lets the public parsers accept any collection while the state machine
/// itself works on a concrete buffer type, fully specialized.
@inline(__always)
func withContiguousBytes(_ bytes: some Collection<UInt8>,
                         _ body: (UnsafeBufferPointer<UInt8>) throws(HTTPParseError) -> Void) throws(HTTPParseError) {
    var failure: HTTPParseError?
    let done: Void? = bytes.withContiguousStorageIfAvailable { buffer in
        do throws(HTTPParseError) { try body(buffer) } catch { failure = error }
    }
    if done == nil {
        Array(bytes).withUnsafeBufferPointer { buffer in
            do throws(HTTPParseError) { try body(buffer) } catch { failure = error }
        }
    }
    if let failure { throw failure }
}

import MouchardWire

/// HTTP/3 (RFC 9114) from the decrypted STREAM data of a QUIC connection, sans I/O: stream bytes
/// in (any order, retransmissions), exchanges out. Each client-initiated bidirectional stream is
/// one exchange: HEADERS (QPACK, RFC 9204) and DATA frames of the request, then of the response.
/// Unidirectional streams give each side's SETTINGS (its QPACK table capacity) and its QPACK
/// encoder stream (the dynamic table its field sections refer to). A field section that refers
/// to inserts not received yet waits for them. Bodies are capped like HTTP/1 bodies.
final class HTTP3Assembler {
    /// One request and, when it came, its response.
    struct Exchange {
        var streamID: UInt64
        var request: Message
        var response: Message?
    }

    struct Message {
        var fields: [QPACKDecoder.Field] = []
        var body: [UInt8] = []
        var bodyLength = 0
        var started: Double
        var ended: Double
        var complete = false
        /// Why the message could not be read whole, nil when it was.
        var problem: String?

        func field(_ name: String) -> String? {
            fields.first { $0.name == name }.map { String(decoding: $0.value, as: UTF8.self) }
        }
    }

    let clientDirection: Int
    let bodyLimits: [Int]
    /// Exchanges as they complete (the response ended, or the connection did).
    var onExchange: ((Exchange) -> Void)?
    /// Field sections that could not be decoded, streams given up, frames malformed.
    private(set) var problems = 0

    private var streams: [StreamKey: StreamState] = [:]
    /// QPACK decoding of what each direction sends: its encoder stream feeds `decoders[d]`.
    private var decoders = [QPACKDecoder(maxTableCapacity: 0), QPACKDecoder(maxTableCapacity: 0)]
    private var exchanges: [UInt64: Exchange] = [:]

    /// The largest HEADERS frame read, and how many streams are followed at once.
    static let maxHeaderFrame = 1 << 20
    static let maxStreams = 10_000

    private struct StreamKey: Hashable {
        var direction: Int
        var id: UInt64
    }

    private enum Kind { case undetermined, request, control, qpackEncoder, ignored }

    private struct StreamState {
        var bytes = QUICOrderedBytes()
        var kind: Kind
        var buffer: [UInt8] = []
        /// DATA payload bytes still to come in the current frame.
        var dataRemaining = 0
        /// Bytes of an unread frame to skip.
        var skipRemaining = 0
        /// Field sections waiting for encoder stream inserts.
        var blocked: [[UInt8]] = []
        var finished = false
    }

    init(clientDirection: Int, bodyLimits: [Int]) {
        self.clientDirection = clientDirection
        self.bodyLimits = bodyLimits
    }

    /// STREAM frame data of direction `d`.
    func data(direction d: Int, id: UInt64, offset: UInt64, bytes: ArraySlice<UInt8>, fin: Bool, time: Double) {
        let key = StreamKey(direction: d, id: id)
        if streams[key] == nil {
            guard streams.count < HTTP3Assembler.maxStreams else {
                problems += 1
                return
            }
            // Bidirectional streams (bit 1 clear) carry requests; client-initiated ones have bit 0 clear.
            let unidirectional = id & 0x02 != 0
            streams[key] = StreamState(kind: unidirectional ? .undetermined : (id & 0x01 == 0 ? .request : .ignored))
        }
        guard var s = streams[key] else { return }
        streams[key] = nil  // keep the state uniquely referenced while it changes
        s.bytes.add(offset: offset, data: bytes)
        let ready = s.bytes.takeContiguous()
        if !ready.isEmpty { consume(&s, ready[...], key: key, time: time) }
        if fin, s.bytes.next == offset + UInt64(bytes.count), !s.finished {
            s.finished = true
            streamEnded(&s, key: key, time: time)
        }
        streams[key] = s
    }

    /// The connection ended: exchanges still open are emitted as they are.
    func finish() {
        for id in exchanges.keys.sorted() {
            guard var e = exchanges[id] else { continue }
            if !e.request.complete && e.request.problem == nil { e.request.problem = "stream not finished in the capture" }
            emit(e)
        }
        exchanges = [:]
    }

    // MARK: - Streams

    private func consume(_ s: inout StreamState, _ bytes: ArraySlice<UInt8>, key: StreamKey, time: Double) {
        var bytes = bytes
        if s.kind == .undetermined {
            s.buffer += bytes
            var o = 0
            guard let type = QUICVarint.read(s.buffer[...], at: &o) else { return }
            s.kind = [0x00: Kind.control, 0x02: .qpackEncoder][type] ?? .ignored
            bytes = s.buffer[o...]
            s.buffer = []
        }
        switch s.kind {
        case .qpackEncoder:
            decoders[key.direction].encoderStream(bytes)
            retryBlocked(direction: key.direction, time: time)
        case .control, .request:
            frames(&s, bytes, key: key, time: time)
        case .ignored, .undetermined:
            break
        }
    }

    /// Walks the frames of a control or request stream: DATA payloads are taken as they come,
    /// other frames once whole (HEADERS and SETTINGS, bounded) or skipped.
    private func frames(_ s: inout StreamState, _ bytes: ArraySlice<UInt8>, key: StreamKey, time: Double) {
        var input = bytes
        while !input.isEmpty {
            if s.dataRemaining > 0 {
                let n = min(s.dataRemaining, input.count)
                body(input.prefix(n), key: key, time: time)
                s.dataRemaining -= n
                input = input.dropFirst(n)
                continue
            }
            if s.skipRemaining > 0 {
                let n = min(s.skipRemaining, input.count)
                s.skipRemaining -= n
                input = input.dropFirst(n)
                continue
            }
            s.buffer += input
            input = []
            while true {
                var o = 0
                let b = s.buffer[...]
                guard let type = QUICVarint.read(b, at: &o), let length = QUICVarint.readLength(b, at: &o, limit: Int.max >> 1)
                else { break }
                if type == 0x00 && s.kind == .request {
                    s.dataRemaining = length
                    let rest = s.buffer[o...]
                    s.buffer = []
                    frames(&s, rest, key: key, time: time)
                    return
                }
                guard type == 0x01 || type == 0x04 else {
                    s.skipRemaining = length
                    let rest = s.buffer[o...]
                    s.buffer = []
                    frames(&s, rest, key: key, time: time)
                    return
                }
                guard length <= HTTP3Assembler.maxHeaderFrame else {
                    problems += 1
                    s.kind = .ignored
                    s.buffer = []
                    return
                }
                guard s.buffer.count - o >= length else { break }
                let payload = Array(s.buffer[o..<(o + length)])
                s.buffer.removeFirst(o + length)
                if type == 0x04 && s.kind == .control {
                    settings(payload, direction: key.direction)
                } else if type == 0x01 && s.kind == .request {
                    headers(payload, key: key, state: &s, time: time)
                }
            }
            return
        }
    }

    /// SETTINGS of the side that sends in direction `d`: its QPACK decoder's capacity, which the
    /// other side's encoder (decoded here by `decoders[1 - d]`) works within.
    private func settings(_ payload: [UInt8], direction d: Int) {
        var o = 0
        while o < payload.count {
            guard let id = QUICVarint.read(payload[...], at: &o), let value = QUICVarint.read(payload[...], at: &o) else { return }
            if id == 0x01 { decoders[1 - d].maxTableCapacity = Int(min(value, 1 << 30)) }
        }
    }

    private func headers(_ section: [UInt8], key: StreamKey, state s: inout StreamState, time: Double) {
        guard s.blocked.isEmpty else {
            s.blocked.append(section)
            return
        }
        switch decoders[key.direction].decode(fieldSection: section[...]) {
        case .fields(let fields):
            fieldsDecoded(fields, key: key, time: time)
        case .blocked:
            s.blocked.append(section)
        case .failed(let why):
            problems += 1
            markProblem("QPACK: \(why)", key: key, time: time)
        }
    }

    /// The encoder stream of direction `d` grew: sections that waited for it are decoded.
    private func retryBlocked(direction d: Int, time: Double) {
        for key in streams.keys where key.direction == d {
            guard var s = streams[key], !s.blocked.isEmpty else { continue }
            streams[key] = nil
            var waiting = s.blocked
            s.blocked = []
            while let section = waiting.first {
                if case .blocked = decoders[d].decode(fieldSection: section[...]) {
                    s.blocked = waiting
                    break
                }
                waiting.removeFirst()
                headers(section, key: key, state: &s, time: time)
            }
            let done = s.finished && s.blocked.isEmpty
            streams[key] = s
            if done { ended(key: key, time: time) }
        }
    }

    private func fieldsDecoded(_ fields: [QPACKDecoder.Field], key: StreamKey, time: Double) {
        let isRequest = key.direction == clientDirection
        var e = exchanges[key.id] ?? Exchange(streamID: key.id, request: Message(started: time, ended: time))
        if isRequest {
            if e.request.fields.isEmpty { e.request.fields = fields } else { e.request.fields += fields }  // trailers
        } else {
            var r = e.response ?? Message(started: time, ended: time)
            let status = fields.first { $0.name == ":status" }.map { String(decoding: $0.value, as: UTF8.self) } ?? ""
            // Interim (1xx) responses are passed over; trailers are added.
            if r.fields.isEmpty || !status.isEmpty { if !status.hasPrefix("1") { r.fields = fields } } else { r.fields += fields }
            e.response = r
        }
        exchanges[key.id] = e
    }

    private func body(_ bytes: ArraySlice<UInt8>, key: StreamKey, time: Double) {
        let isRequest = key.direction == clientDirection
        let limit = bodyLimits[key.direction]
        var e = exchanges[key.id] ?? Exchange(streamID: key.id, request: Message(started: time, ended: time))
        func add(_ m: inout Message) {
            m.bodyLength += bytes.count
            if m.body.count < limit { m.body += bytes.prefix(limit - m.body.count) }
            m.ended = time
        }
        if isRequest {
            add(&e.request)
        } else {
            var r = e.response ?? Message(started: time, ended: time)
            add(&r)
            e.response = r
        }
        exchanges[key.id] = e
    }

    private func markProblem(_ why: String, key: StreamKey, time: Double) {
        var e = exchanges[key.id] ?? Exchange(streamID: key.id, request: Message(started: time, ended: time))
        if key.direction == clientDirection {
            e.request.problem = why
        } else {
            var r = e.response ?? Message(started: time, ended: time)
            r.problem = why
            e.response = r
        }
        exchanges[key.id] = e
    }

    private func streamEnded(_ s: inout StreamState, key: StreamKey, time: Double) {
        guard s.kind == .request else { return }
        if !s.buffer.isEmpty || s.dataRemaining > 0 || s.skipRemaining > 0 {
            markProblem("stream ended inside a frame", key: key, time: time)
        }
        if s.blocked.isEmpty { ended(key: key, time: time) }
    }

    /// One side of a request stream ended (its sections decoded): the request is complete, or the
    /// response is and the exchange goes out.
    private func ended(key: StreamKey, time: Double) {
        guard var e = exchanges[key.id] else { return }
        if key.direction == clientDirection {
            e.request.complete = true
            e.request.ended = time
            exchanges[key.id] = e
        } else {
            var r = e.response ?? Message(started: time, ended: time)
            r.complete = true
            r.ended = time
            e.response = r
            exchanges[key.id] = nil
            emit(e)
        }
    }

    /// An exchange without the request's method and path (its HEADERS frame was lost or could not
    /// be decoded) is counted, not made up.
    private func emit(_ e: Exchange) {
        guard e.request.field(":method") != nil, e.request.field(":path") != nil || e.request.field(":method") == "CONNECT" else {
            problems += 1
            return
        }
        onExchange?(e)
    }
}

import MouchardHTTP2
import MouchardWire

/// Both directions of one HTTP/2 connection read from a capture (cleartext h2 with prior knowledge
/// or after an h2c upgrade, or the plaintext of a decrypted TLS connection that chose h2) into
/// exchanges, one per stream. Frames are read here (RFC 9113 §4.1, every length checked); header
/// blocks are decoded by nghttp2's HPACK inflater, one per direction, in the order they were sent.
///
/// A stream is complete when both sides ended it or either reset it (except a server's
/// RST_STREAM(NO_ERROR) after its whole response while the request is still coming: the request's
/// last DATA is then waited for); streams still open when the connection ends are emitted as incomplete. A frame that cannot be read, or a compression error,
/// stops the decoding of the connection (`failure`): what was complete is kept.
final class HTTP2CaptureDecoder {
    struct Exchange {
        var streamID: UInt32
        var request: HTTPStreamParser.Message
        var response: HTTPStreamParser.Message?
        /// The request's `:authority` (h2 sends no Host).
        var authority: String?
    }

    /// One side of a stream as it arrives.
    private struct Side {
        var fields: [HTTP2Field]?
        var body: [UInt8] = []
        var bodyLength = 0
        var ended = false
        var started = 0.0
        var last = 0.0
    }

    private struct Stream {
        var request = Side()
        var response = Side()
        var reset: String?
        /// Stream 1 of an h2c upgrade: its request is already a flow (with the 101); a flow again
        /// only with its HTTP/2 response.
        var upgraded = false
    }

    /// A header block whose CONTINUATION frames have not all arrived.
    private struct PendingBlock {
        var stream: UInt32
        var fragment: [UInt8]
        var endStream: Bool
        var isPushPromise: Bool
    }

    private struct Direction {
        var buffer: [UInt8] = []
        var prefaceLeft: Int
        let inflater: HPACKInflater
        var pending: PendingBlock?
    }

    let clientDirection: Int
    private let bodyLimits: [Int]
    private var directions: [Direction]
    private var streams: [UInt32: Stream] = [:]
    private(set) var failure: String?
    /// Streams decoded into exchanges, and frames of kinds not relevant here (SETTINGS, PING...).
    private(set) var streamsSeen = 0

    static let version = HTTPVersion(major: 2, minor: 0)
    /// Frames longer than this (the largest SETTINGS_MAX_FRAME_SIZE real peers use) stop decoding.
    static let maxFrameLength = 1 << 20
    /// A header block (fragments joined) longer than this stops decoding (the fields kept are bounded separately).
    static let maxHeaderBlock = 1 << 20
    static let maxHeaderListSize = 256 * 1024
    /// Open streams kept at most; past it the oldest is emitted incomplete.
    static let maxOpenStreams = 1024
    /// Why a request is cut when the server stopped its upload with RST_STREAM(NO_ERROR) and the
    /// client's END_STREAM never came.
    static let uploadStopped = "the server answered and stopped the upload (RST_STREAM NO_ERROR) before the request ended"

    /// - Parameters:
    ///   - expectsPreface: the client's first bytes are the 24-byte connection preface (not after an
    ///     h2c upgrade, where the preface follows the 101 and is read the same way).
    ///   - upgraded: the HTTP/1.1 request of an h2c upgrade: it is stream 1, answered in HTTP/2.
    init(clientDirection: Int, requestBodyLimit: Int, responseBodyLimit: Int, upgraded: HTTPStreamParser.Message? = nil) throws {
        self.clientDirection = clientDirection
        var limits = [0, 0]
        limits[clientDirection] = requestBodyLimit
        limits[1 - clientDirection] = responseBodyLimit
        bodyLimits = limits
        var ds: [Direction] = []
        for d in 0..<2 {
            ds.append(Direction(prefaceLeft: d == clientDirection ? PcapFlowExtractor.http2Preface.count : 0, inflater: try HPACKInflater()))
        }
        directions = ds
        if let upgraded, let head = upgraded.requestHead {
            var s = Stream()
            var fields = [HTTP2Field(":method", head.method), HTTP2Field(":path", head.target)]
            if let host = head.headers["Host"] { fields.append(HTTP2Field(":authority", host)) }
            fields += head.headers.fields.map { HTTP2Field(name: Array($0.name.lowercased().utf8), value: Array($0.value.utf8)) }
            s.request = Side(fields: fields, body: upgraded.body, bodyLength: upgraded.bodyLength, ended: true,
                             started: upgraded.started, last: upgraded.ended)
            s.upgraded = true
            streams[1] = s
        }
    }

    /// Bytes of direction `d`; returns the streams that completed.
    func feed(direction d: Int, bytes: ArraySlice<UInt8>, time: Double) -> [Exchange] {
        guard failure == nil else { return [] }
        var out: [Exchange] = []
        var dir = directions[d]
        directions[d].buffer = []
        dir.buffer.append(contentsOf: bytes)
        var offset = 0
        if dir.prefaceLeft > 0 {
            let preface = PcapFlowExtractor.http2Preface
            let start = preface.count - dir.prefaceLeft
            let n = min(dir.prefaceLeft, dir.buffer.count)
            guard dir.buffer[0..<n].elementsEqual(preface[start..<start + n]) else {
                failure = "the client's HTTP/2 connection preface is missing"
                return []
            }
            dir.prefaceLeft -= n
            offset = n
        }
        while failure == nil, dir.buffer.count - offset >= 9 {
            let b = dir.buffer
            let length = Int(b[offset]) << 16 | Int(b[offset + 1]) << 8 | Int(b[offset + 2])
            guard length <= Self.maxFrameLength else {
                failure = "frame of \(length) bytes at \(offset) (over \(Self.maxFrameLength))"
                break
            }
            guard dir.buffer.count - offset >= 9 + length else { break }
            let type = b[offset + 3], flags = b[offset + 4]
            let stream = UInt32(b[offset + 5] & 0x7F) << 24 | UInt32(b[offset + 6]) << 16 | UInt32(b[offset + 7]) << 8 | UInt32(b[offset + 8])
            let payload = b[(offset + 9)..<(offset + 9 + length)]
            offset += 9 + length
            frame(type: type, flags: flags, stream: stream, payload: payload, direction: d, dir: &dir, time: time, into: &out)
        }
        dir.buffer.removeFirst(min(offset, dir.buffer.count))
        directions[d] = dir
        return out
    }

    /// The connection ended (or the capture did): every open stream goes out, marked incomplete.
    func finish(reason: String) -> [Exchange] {
        let open = streams.keys.sorted()
        var out: [Exchange] = []
        for id in open {
            if var s = streams.removeValue(forKey: id) {
                s.reset = s.reset ?? reason
                if let e = exchange(id, s) { out.append(e) }
            }
        }
        return out
    }

    // MARK: - Frames

    private func frame(type: UInt8, flags: UInt8, stream: UInt32, payload: ArraySlice<UInt8>, direction d: Int,
                       dir: inout Direction, time: Double, into out: inout [Exchange]) {
        let endStream = flags & 0x1 != 0, endHeaders = flags & 0x4 != 0, padded = flags & 0x8 != 0, priority = flags & 0x20 != 0
        if let pending = dir.pending, type != 0x9 || stream != pending.stream {
            failure = "a header block of stream \(pending.stream) is interrupted by a frame of type \(type)"
            return
        }
        switch type {
        case 0x0:  // DATA
            guard stream != 0, let data = Self.unpadded(payload, padded: padded) else { return malformed("DATA", stream) }
            update(stream, direction: d, time: time, into: &out) { side in
                side.bodyLength += data.count
                let room = self.bodyLimits[d] - side.body.count
                if room > 0 { side.body.append(contentsOf: data.prefix(room)) }
                if endStream { side.ended = true }
            }
        case 0x1:  // HEADERS
            guard stream != 0, var fragment = Self.unpadded(payload, padded: padded) else { return malformed("HEADERS", stream) }
            if priority {
                guard fragment.count >= 5 else { return malformed("HEADERS", stream) }
                fragment = fragment.dropFirst(5)
            }
            let block = PendingBlock(stream: stream, fragment: Array(fragment), endStream: endStream, isPushPromise: false)
            if endHeaders { headerBlock(block, direction: d, dir: &dir, time: time, into: &out) } else { dir.pending = block }
        case 0x5:  // PUSH_PROMISE: its block is decoded to keep the table in step; the promise is not followed
            guard let rest = Self.unpadded(payload, padded: padded), rest.count >= 4 else { return malformed("PUSH_PROMISE", stream) }
            let block = PendingBlock(stream: stream, fragment: Array(rest.dropFirst(4)), endStream: false, isPushPromise: true)
            if endHeaders { headerBlock(block, direction: d, dir: &dir, time: time, into: &out) } else { dir.pending = block }
        case 0x9:  // CONTINUATION
            guard var block = dir.pending else { return malformed("CONTINUATION", stream) }
            block.fragment += payload
            guard block.fragment.count <= Self.maxHeaderBlock else {
                failure = "header block of stream \(stream) over \(Self.maxHeaderBlock) bytes"
                return
            }
            dir.pending = nil
            if endHeaders { headerBlock(block, direction: d, dir: &dir, time: time, into: &out) } else { dir.pending = block }
        case 0x3:  // RST_STREAM
            guard stream != 0, payload.count == 4 else { return malformed("RST_STREAM", stream) }
            let code = payload.reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
            guard var s = streams.removeValue(forKey: stream) else { return }
            let who = d == clientDirection ? "client" : "server"
            if code == HTTP2ErrorCode.noError && s.response.ended && d != clientDirection && !s.request.ended {
                // The server answered before the request ended and asks the client to stop sending
                // (RFC 9113 §8.1): the request's DATA the client sent before it saw the reset is still on
                // the wire after it, so the stream stays open to collect it.
                s.reset = Self.uploadStopped
                streams[stream] = s
                return
            }
            // RST_STREAM(NO_ERROR) after a complete response is a success (RFC 9113 §8.1).
            if !(code == HTTP2ErrorCode.noError && s.response.ended) { s.reset = "\(who) reset the stream (\(HTTP2ErrorCode.name(code)))" }
            if let e = exchange(stream, s) { out.append(e) }
        default:
            break  // SETTINGS, PING, GOAWAY, WINDOW_UPDATE, PRIORITY, extensions: nothing of the exchanges
        }
    }

    private func malformed(_ kind: String, _ stream: UInt32) {
        failure = "malformed \(kind) frame on stream \(stream)"
    }

    private func headerBlock(_ block: PendingBlock, direction d: Int, dir: inout Direction, time: Double, into out: inout [Exchange]) {
        let decoded: HPACKInflater.Block
        do {
            decoded = try dir.inflater.decode(block.fragment, maxListSize: Self.maxHeaderListSize)
        } catch {
            failure = "\(error) (stream \(block.stream))"
            return
        }
        guard !block.isPushPromise else { return }
        let fields = decoded.fields
        if let status = fields.value(of: ":status"), status.hasPrefix("1") { return }  // interim response
        update(block.stream, direction: d, time: time, into: &out) { side in
            // A second block is trailers: kept with the head's fields.
            side.fields = (side.fields ?? []) + fields
            if block.endStream { side.ended = true }
        }
    }

    /// Applies `change` to direction `d`'s side of `stream` and emits the stream when it is complete.
    private func update(_ stream: UInt32, direction d: Int, time: Double, into out: inout [Exchange], _ change: (inout Side) -> Void) {
        var s: Stream
        if let existing = streams.removeValue(forKey: stream) {
            s = existing
        } else {
            if streams.count >= Self.maxOpenStreams, let oldest = streams.keys.min(), var o = streams.removeValue(forKey: oldest) {
                o.reset = "more than \(Self.maxOpenStreams) streams open"
                if let e = exchange(oldest, o) { out.append(e) }
            }
            s = Stream()
            streamsSeen += 1
        }
        if d == clientDirection {
            if s.request.fields == nil && s.request.bodyLength == 0 { s.request.started = time }
            change(&s.request)
            s.request.last = time
        } else {
            if s.response.fields == nil && s.response.bodyLength == 0 { s.response.started = time }
            change(&s.response)
            s.response.last = time
        }
        if s.request.ended && s.response.ended {
            if let e = exchange(stream, s) { out.append(e) }
        } else {
            streams[stream] = s
        }
    }

    private func exchange(_ id: UInt32, _ s: Stream) -> Exchange? {
        guard let fields = s.request.fields, !(s.upgraded && s.response.fields == nil) else { return nil }
        let head = HTTPRequestHead(method: fields.value(of: ":method") ?? "", target: fields.value(of: ":path") ?? fields.value(of: ":authority") ?? "",
                                   version: Self.version, headers: Self.regular(fields))
        let limitUp = bodyLimits[clientDirection], limitDown = bodyLimits[1 - clientDirection]
        let request = HTTPStreamParser.Message(requestHead: head, responseHead: nil, body: s.request.body,
                                               bodyTruncated: s.request.bodyLength > s.request.body.count || (!s.request.ended && limitUp > 0),
                                               bodyLength: s.request.bodyLength, started: s.request.started, ended: s.request.last,
                                               incomplete: s.request.ended ? (s.response.fields == nil ? s.reset : nil)
                                                   : (s.reset ?? "stream not ended"))
        var response: HTTPStreamParser.Message?
        if let r = s.response.fields {
            let status = Int(r.value(of: ":status") ?? "") ?? 0
            response = HTTPStreamParser.Message(requestHead: nil, responseHead: HTTPResponseHead(version: Self.version, status: status, headers: Self.regular(r)),
                                                body: s.response.body,
                                                bodyTruncated: s.response.bodyLength > s.response.body.count || (!s.response.ended && limitDown > 0),
                                                bodyLength: s.response.bodyLength, started: s.response.started, ended: s.response.last,
                                                incomplete: s.response.ended ? nil : (s.reset ?? "stream not ended"))
        }
        return Exchange(streamID: id, request: request, response: response, authority: fields.value(of: ":authority"))
    }

    /// A DATA or HEADERS payload without its padding (RFC 9113 §6.1); nil when the padding overruns it.
    private static func unpadded(_ payload: ArraySlice<UInt8>, padded: Bool) -> ArraySlice<UInt8>? {
        guard padded else { return payload }
        guard let pad = payload.first, Int(pad) < payload.count else { return nil }
        return payload.dropFirst().dropLast(Int(pad))
    }

    static func regular(_ fields: [HTTP2Field]) -> HTTPHeaders {
        HTTPHeaders(fields.filter { !$0.isPseudo }.map { HTTPField(name: $0.nameText, valueBytes: $0.value) })
    }
}

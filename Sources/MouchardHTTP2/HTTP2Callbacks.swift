import CNghttp2

/// The C callbacks of every `HTTP2Connection`, in one `nghttp2_session_callbacks` made once. They
/// capture nothing: `user_data` is the connection (unretained: the connection owns the session).
/// They never call back into the session that called them but through nghttp2's submit functions,
/// which its documentation allows inside callbacks.
final class HTTP2Callbacks: @unchecked Sendable {
    let pointer: OpaquePointer

    static let shared = HTTP2Callbacks()

    private init() {
        var callbacks: OpaquePointer?
        precondition(nghttp2_session_callbacks_new(&callbacks) == 0 && callbacks != nil, "nghttp2_session_callbacks_new")
        pointer = callbacks!
        nghttp2_session_callbacks_set_on_begin_headers_callback(pointer, Self.beginHeaders)
        nghttp2_session_callbacks_set_on_header_callback(pointer, Self.header)
        nghttp2_session_callbacks_set_on_invalid_header_callback(pointer, Self.invalidHeader)
        nghttp2_session_callbacks_set_on_frame_recv_callback(pointer, Self.frameReceived)
        nghttp2_session_callbacks_set_on_data_chunk_recv_callback(pointer, Self.dataChunk)
        nghttp2_session_callbacks_set_on_stream_close_callback(pointer, Self.streamClosed)
        nghttp2_session_callbacks_set_on_frame_send_callback(pointer, Self.frameSent)
    }

    private static func connection(_ user: UnsafeMutableRawPointer?) -> HTTP2Connection {
        Unmanaged<HTTP2Connection>.fromOpaque(user!).takeUnretainedValue()
    }

    static let beginHeaders: nghttp2_on_begin_headers_callback = { _, frame, user in
        guard let frame else { return 0 }
        connection(user).blocks[frame.pointee.hd.stream_id] = HeaderBlock()
        return 0
    }

    /// One field of a header block: counted against the header list limit before it is kept, so an
    /// HPACK bomb costs at most the limit. Over it, the stream is reset (nothing more is buffered).
    static let header: nghttp2_on_header_callback = { _, frame, name, nameLength, value, valueLength, _, user in
        guard let frame, let name, let value else { return 0 }
        let c = connection(user)
        let stream = frame.pointee.hd.stream_id
        guard var block = c.blocks.removeValue(forKey: stream) else { return 0 }
        block.size += nameLength + valueLength + 32
        if block.size > c.limits.maxHeaderListSize {
            c.refusedBlocks += 1
            c.events.append(.headersRefused(stream: stream, reason: "header list over \(c.limits.maxHeaderListSize) bytes"))
            return NGHTTP2_ERR_TEMPORAL_CALLBACK_FAILURE.rawValue
        }
        block.fields.append(HTTP2Field(name: Array(UnsafeBufferPointer(start: name, count: nameLength)),
                                       value: Array(UnsafeBufferPointer(start: value, count: valueLength))))
        c.blocks[stream] = block
        return 0
    }

    /// A field RFC 9113 §8.2.1 calls malformed (upper case, stray whitespace): dropped and counted,
    /// so one odd header does not cost the stream.
    static let invalidHeader: nghttp2_on_invalid_header_callback = { _, _, _, _, _, _, _, user in
        connection(user).ignoredFields += 1
        return 0
    }

    static let frameReceived: nghttp2_on_frame_recv_callback = { _, frame, user in
        guard let frame else { return 0 }
        let c = connection(user)
        let hd = frame.pointee.hd
        let endStream = hd.flags & UInt8(NGHTTP2_FLAG_END_STREAM.rawValue) != 0
        switch UInt32(hd.type) {
        case NGHTTP2_HEADERS.rawValue:
            guard let block = c.blocks.removeValue(forKey: hd.stream_id) else { return 0 }
            c.events.append(.headers(stream: hd.stream_id, kind: kind(of: block.fields), fields: block.fields, endStream: endStream))
        case NGHTTP2_DATA.rawValue:
            if endStream { c.events.append(.endStream(stream: hd.stream_id)) }
        case NGHTTP2_GOAWAY.rawValue:
            c.events.append(.goaway(lastStream: frame.pointee.goaway.last_stream_id, errorCode: frame.pointee.goaway.error_code))
        default:
            break
        }
        return 0
    }

    /// A GOAWAY with an error leaving: when nghttp2 decided it alone (its RST_STREAM rate limit
    /// answers a rapid reset so, from inside `mem_recv`), the connection notes it as its failure.
    static let frameSent: nghttp2_on_frame_send_callback = { _, frame, user in
        guard let frame, UInt32(frame.pointee.hd.type) == NGHTTP2_GOAWAY.rawValue else { return 0 }
        let code = frame.pointee.goaway.error_code
        if code != HTTP2ErrorCode.noError { connection(user).goAwaySent(code: code) }
        return 0
    }

    /// What a header block is, from its pseudo-headers (nghttp2's categories call both a final
    /// response after a 1xx and trailers "headers").
    private static func kind(of fields: [HTTP2Field]) -> HTTP2HeadersKind {
        if fields.value(of: ":method") != nil { return .request }
        if let status = fields.value(of: ":status") { return status.hasPrefix("1") ? .interim : .response }
        return .trailers
    }

    static let dataChunk: nghttp2_on_data_chunk_recv_callback = { _, _, stream, data, length, user in
        guard let data, length > 0 else { return 0 }
        connection(user).received(stream: stream, bytes: length)
        connection(user).events.append(.data(stream: stream, bytes: Array(UnsafeBufferPointer(start: data, count: length))))
        return 0
    }

    static let streamClosed: nghttp2_on_stream_close_callback = { _, stream, errorCode, user in
        let c = connection(user)
        c.blocks[stream] = nil
        c.discardBody(stream)
        c.events.append(.streamClosed(stream: stream, errorCode: errorCode))
        return 0
    }

    static let readBody: nghttp2_data_source_read_callback = { _, stream, buffer, length, flags, _, user in
        guard let buffer, let flags else { return Int(NGHTTP2_ERR_CALLBACK_FAILURE.rawValue) }
        return connection(user).readBody(stream: stream, into: buffer, length: length, flags: flags)
    }
}

/// What an `HTTP2Connection` reports after reading bytes from its peer (the "events out" of the
/// sans-I/O wrapper). Stream ids are the peer connection's own.
public enum HTTP2Event: Sendable, Equatable {
    /// A complete header block: a request or response head, an interim (1xx) response, or trailers.
    /// `endStream`: the block carried END_STREAM (no body follows).
    case headers(stream: Int32, kind: HTTP2HeadersKind, fields: [HTTP2Field], endStream: Bool)
    /// Body bytes of a stream (DATA payload, padding removed).
    case data(stream: Int32, bytes: [UInt8])
    /// A DATA frame carried END_STREAM: the peer's side of the stream is complete.
    case endStream(stream: Int32)
    /// The stream is closed (both sides done, or reset by either side with `errorCode`).
    case streamClosed(stream: Int32, errorCode: UInt32)
    /// A header block was refused by our limits (the stream is reset): `reason` says which.
    case headersRefused(stream: Int32, reason: String)
    /// The peer sent GOAWAY: streams above `lastStream` were not processed.
    case goaway(lastStream: Int32, errorCode: UInt32)
}

/// Which kind of header block an `HTTP2Event.headers` is.
public enum HTTP2HeadersKind: Sendable, Equatable {
    case request
    case response
    /// A 1xx response before the final one.
    case interim
    case trailers
}

/// RFC 9113 §7 error codes the proxy names or sends.
public enum HTTP2ErrorCode {
    public static let noError: UInt32 = 0x0
    public static let protocolError: UInt32 = 0x1
    public static let internalError: UInt32 = 0x2
    public static let flowControlError: UInt32 = 0x3
    public static let refusedStream: UInt32 = 0x7
    public static let cancel: UInt32 = 0x8
    public static let connectError: UInt32 = 0xa
    public static let enhanceYourCalm: UInt32 = 0xb

    /// The RFC's name of a code (`PROTOCOL_ERROR`), or its number in hex.
    public static func name(_ code: UInt32) -> String {
        let names = ["NO_ERROR", "PROTOCOL_ERROR", "INTERNAL_ERROR", "FLOW_CONTROL_ERROR", "SETTINGS_TIMEOUT",
                     "STREAM_CLOSED", "FRAME_SIZE_ERROR", "REFUSED_STREAM", "CANCEL", "COMPRESSION_ERROR",
                     "CONNECT_ERROR", "ENHANCE_YOUR_CALM", "INADEQUATE_SECURITY", "HTTP_1_1_REQUIRED"]
        return code < names.count ? names[Int(code)] : "0x" + String(code, radix: 16)
    }
}

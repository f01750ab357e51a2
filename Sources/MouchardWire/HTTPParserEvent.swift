/// What an incremental HTTP/1 parser reports as bytes arrive, in stream order.
///
/// For each message: one `head`, then zero or more `body` pieces (transfer coding removed, content
/// coding such as gzip kept), then `trailers` if a chunked body carried any, then `end`.
/// A response parser may report `informational` heads (100 Continue, 103 Early Hints) before the
/// final head. After a CONNECT (request, or 2xx response to it) or a 101 response, the connection is
/// no longer HTTP/1: `end` closes that message and every later byte comes as `tunnel`.
public enum HTTPParserEvent<Head: Sendable & Hashable>: Sendable, Hashable {
    case head(Head)
    /// An interim 1xx response (never 101); only response parsers report it.
    case informational(Head)
    /// A piece of the body, in order; concatenate them to get the body.
    case body([UInt8])
    /// Trailer fields after the last chunk (only when there were some).
    case trailers(HTTPHeaders)
    /// The message is complete.
    case end
    /// Opaque bytes after the connection switched away from HTTP/1.
    case tunnel([UInt8])
}

/// Events of `HTTPRequestParser`.
public typealias HTTPRequestEvent = HTTPParserEvent<HTTPRequestHead>
/// Events of `HTTPResponseParser`.
public typealias HTTPResponseEvent = HTTPParserEvent<HTTPResponseHead>

// MouchardWire: pure, sans-I/O wire formats. Bytes in, values out; no I/O, no C module.
//
// HTTP/1 (RFC 9110/9112), for the proxy and the sniffer:
//
//   var requests = HTTPRequestParser()                 // one per connection direction
//   var responses = HTTPResponseParser()
//   var events: [HTTPRequestEvent] = []
//   try requests.feed(bytesFromClient, into: &events)  // any split, even inside CRLF
//   for e in events {
//       switch e {
//       case .head(let head): responses.expectResponse(to: head.method)   // HEAD, CONNECT matter
//       case .body(let piece): ...                       // stream it, transfer coding removed
//       case .trailers(let t): ...
//       case .end: ...                                   // message complete
//       case .tunnel(let raw): ...                       // after CONNECT / 101: opaque bytes
//       case .informational: break                       // responses only (100, 103)
//       }
//   }
//   try requests.finish(into: &events)                  // end of stream: `end` of an
//                                                       // until-close response, or `truncatedMessage`
//
// Whole messages instead of events: `HTTPMessageReader(parser:bodyLimit:)` (body capped, the cap and
// incomplete messages marked). Streams captured mid-connection or with gaps: `resynchronize()` on a
// parser or a reader skips to the next start line. Writing: `HTTPSerializer`, `head.serialized`,
// `HTTPChunkedEncoder`, and `HTTPBodyFraming` + `HTTPBodyEncoder` to re-frame what a proxy forwards.
// Errors: `HTTPParseError` (`code` + stream `offset`).
//
// Design notes:
// - One shared state machine (`HTTPMessageParser`) works line by line; only the current incomplete
//   line is buffered, so a head fed byte by byte is scanned once (no quadratic rescans), and body
//   bytes are copied once, from the input into the `body` event. Every limit is checked before
//   buffering more.
// - Results do not depend on how the stream is split: the tests parse every message split at every
//   byte and byte by byte, and compare events and errors (code and offset) with the one-shot parse.
// - Strictness where a lenient reading lets a proxy and a server disagree on message boundaries
//   (request smuggling): see `HTTPRequestParser` and `HTTPBodyFraming` for the exact rules,
//   `HTTPLineEndingPolicy` for bare LF, `HTTPSerializer` for what round-trips byte for byte.
//
// Binary formats: `ByteReader`, a bounds-checked cursor with typed errors, for packet dissectors.

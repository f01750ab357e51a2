/// Frames body pieces for forwarding: what a proxy writes for each `body` event and at `end`, so a
/// streamed body leaves with the framing its head declares.
///
/// `chunked` writes each piece as a chunk and the last chunk with trailers at the end;
/// `contentLength`, `untilClose` and `none` write pieces as they are (the head carries the length,
/// or the connection close ends the body); `tunnel` writes pieces as they are.
public struct HTTPBodyEncoder: Sendable, Hashable {
    public let framing: HTTPBodyFraming

    public init(framing: HTTPBodyFraming) { self.framing = framing }

    /// Appends one piece of body.
    public func appendBody(_ piece: some Collection<UInt8>, to out: inout [UInt8]) {
        if framing == .chunked {
            HTTPChunkedEncoder.appendChunk(piece, to: &out)
        } else {
            out.append(contentsOf: piece)
        }
    }

    /// Appends what ends the body: the last chunk and `trailers` when chunked, nothing otherwise
    /// (trailers cannot be sent without chunked coding and are dropped).
    public func appendEnd(trailers: HTTPHeaders = [], to out: inout [UInt8]) {
        if framing == .chunked { HTTPChunkedEncoder.appendLastChunk(trailers: trailers, to: &out) }
    }
}

/// Size limits an HTTP/1 parser enforces before buffering more, so a hostile peer cannot make it
/// hold unbounded memory. Exceeding one is a typed `HTTPParseError` (`startLineTooLong`,
/// `headersTooLarge`, `tooManyHeaders`, `chunkSizeLineTooLong`). Lengths exclude the CRLF.
public struct HTTPParserLimits: Sendable, Hashable {
    /// Longest request or status line. Trackers send long query strings: the default is 64 KiB.
    public var maxStartLineLength: Int
    /// Largest header section (all field lines with their CRLF, without the start line); also
    /// applies to the trailer section of a chunked body.
    public var maxHeaderBytes: Int
    /// Most fields in a header (or trailer) section.
    public var maxHeaderCount: Int
    /// Longest chunk-size line, extensions included.
    public var maxChunkSizeLineLength: Int

    public init(maxStartLineLength: Int = 64 * 1024, maxHeaderBytes: Int = 256 * 1024,
                maxHeaderCount: Int = 500, maxChunkSizeLineLength: Int = 4 * 1024) {
        self.maxStartLineLength = maxStartLineLength
        self.maxHeaderBytes = maxHeaderBytes
        self.maxHeaderCount = maxHeaderCount
        self.maxChunkSizeLineLength = maxChunkSizeLineLength
    }
}

/// What a parser does with a line that ends with a bare LF (no CR before it).
///
/// RFC 9112 §2.2 lets a recipient accept a bare LF. Mouchard rejects it by default
/// (`bareLineFeed` error): a proxy that reads lines differently from the server behind it is a
/// request-smuggling risk. `acceptBareLineFeed` is for offline analysis of odd peers; a message
/// read that way serializes back with CRLF, so it does not round-trip byte for byte.
public enum HTTPLineEndingPolicy: Sendable, Hashable {
    case requireCRLF
    case acceptBareLineFeed
}

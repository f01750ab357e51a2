/// Why an HTTP/1 message was rejected, and where: `code` names the problem (stable, one per kind of
/// fault, usable in tests, logs and findings) and `offset` is the byte offset in the stream fed to
/// the parser (counting from the first byte ever fed) of the offending byte or, for whole-line
/// faults, of the start of the line.
///
/// A struct with a stable code rather than an enum with a payload per case: callers match on
/// `error.code` and always find the offset in the same place.
public struct HTTPParseError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The kind of fault. Raw values are stable identifiers (kebab-case) for logs and reports.
    public enum Code: String, Sendable, Hashable, CaseIterable {
        case invalidMethod = "invalid-method"
        case invalidRequestTarget = "invalid-request-target"
        case invalidVersion = "invalid-version"
        case unsupportedVersion = "unsupported-version"
        case invalidStatusCode = "invalid-status-code"
        case invalidReasonPhrase = "invalid-reason-phrase"
        case invalidStartLine = "invalid-start-line"
        case startLineTooLong = "start-line-too-long"
        case bareLineFeed = "bare-line-feed"
        case invalidFieldName = "invalid-field-name"
        case whitespaceBeforeColon = "whitespace-before-colon"
        case obsoleteLineFolding = "obsolete-line-folding"
        case invalidFieldValue = "invalid-field-value"
        case multipleHostFields = "multiple-host-fields"
        case headersTooLarge = "headers-too-large"
        case tooManyHeaders = "too-many-headers"
        case invalidContentLength = "invalid-content-length"
        case conflictingContentLength = "conflicting-content-length"
        case contentLengthWithTransferEncoding = "content-length-with-transfer-encoding"
        case invalidTransferEncoding = "invalid-transfer-encoding"
        case transferEncodingNotChunked = "transfer-encoding-not-chunked"
        case invalidChunkSize = "invalid-chunk-size"
        case chunkSizeTooLarge = "chunk-size-too-large"
        case chunkSizeLineTooLong = "chunk-size-line-too-long"
        case invalidChunkExtension = "invalid-chunk-extension"
        case missingChunkTerminator = "missing-chunk-terminator"
        case truncatedMessage = "truncated-message"
        case dataAfterEndOfStream = "data-after-end-of-stream"

        /// One short sentence saying what was wrong.
        public var explanation: String {
            switch self {
            case .invalidMethod: "the method is empty or has a character that is not a token character"
            case .invalidRequestTarget: "the request-target is empty, has a space or control byte, or does not fit its method"
            case .invalidVersion: "the HTTP version is not of the form HTTP/d.d"
            case .unsupportedVersion: "the HTTP major version is not 1"
            case .invalidStatusCode: "the status code is not three digits between 100 and 999"
            case .invalidReasonPhrase: "the reason phrase has a control byte"
            case .invalidStartLine: "the start line does not have the expected parts separated by single spaces"
            case .startLineTooLong: "the start line is longer than the configured limit"
            case .bareLineFeed: "a line ends with LF without CR"
            case .invalidFieldName: "a header line has an empty or invalid field name, or no colon"
            case .whitespaceBeforeColon: "a header field name is followed by whitespace before the colon"
            case .obsoleteLineFolding: "a header line starts with whitespace (obsolete line folding)"
            case .invalidFieldValue: "a header value has a control byte (NUL, CR, ...)"
            case .multipleHostFields: "a request has more than one Host field"
            case .headersTooLarge: "the header (or trailer) section is larger than the configured limit"
            case .tooManyHeaders: "the header (or trailer) section has more fields than the configured limit"
            case .invalidContentLength: "Content-Length is not a non-negative decimal number that fits in 63 bits"
            case .conflictingContentLength: "several Content-Length values differ"
            case .contentLengthWithTransferEncoding: "both Transfer-Encoding and Content-Length are present"
            case .invalidTransferEncoding: "Transfer-Encoding is empty, has an invalid coding or applies chunked more than once or not last"
            case .transferEncodingNotChunked: "a request's final transfer coding is not chunked"
            case .invalidChunkSize: "a chunk size is not a hexadecimal number"
            case .chunkSizeTooLarge: "a chunk size does not fit in 63 bits"
            case .chunkSizeLineTooLong: "a chunk size line (with extensions) is longer than the configured limit"
            case .invalidChunkExtension: "a chunk extension has an invalid byte"
            case .missingChunkTerminator: "chunk data is not followed by CRLF"
            case .truncatedMessage: "the stream ended in the middle of a message"
            case .dataAfterEndOfStream: "bytes were fed after finish()"
            }
        }
    }

    public var code: Code
    /// Byte offset in the stream (from the first byte fed to the parser) where the fault was found.
    public var offset: Int

    public init(_ code: Code, at offset: Int) {
        self.code = code
        self.offset = offset
    }

    public var description: String { "HTTP/1 \(code.rawValue) at byte \(offset): \(code.explanation)" }
}

/// Memory and time bounds of stream reassembly. Whatever the capture, buffered bytes never
/// exceed the global caps; what had to be dropped is counted in `ExtractionStatistics`.
public struct ReassemblyLimits: Sendable, Hashable {
    /// Out-of-order bytes held per direction while waiting for a missing segment.
    public var outOfOrderBytesPerDirection: Int
    /// Out-of-order bytes held across all connections.
    public var outOfOrderBytesTotal: Int
    /// Body bytes kept per HTTP request (beyond it the body is marked truncated).
    public var requestBodyBytes: Int
    /// Body bytes kept per HTTP response.
    public var responseBodyBytes: Int
    /// Requests waiting for their response on one connection (pipelining).
    public var pendingRequestsPerConnection: Int
    /// Connections tracked at once; beyond it the least recently active are closed early.
    public var connections: Int
    /// A connection silent this long (capture time, seconds) is closed.
    public var idleTimeout: Double
    /// A segment this far ahead of the expected sequence number is garbage, not reordering.
    public var maxSequenceJump: Int

    public init(outOfOrderBytesPerDirection: Int = 1 << 20, outOfOrderBytesTotal: Int = 64 << 20,
                requestBodyBytes: Int = 8 << 20, responseBodyBytes: Int = 1 << 20,
                pendingRequestsPerConnection: Int = 64, connections: Int = 50_000, idleTimeout: Double = 300,
                maxSequenceJump: Int = 64 << 20) {
        self.outOfOrderBytesPerDirection = outOfOrderBytesPerDirection
        self.outOfOrderBytesTotal = outOfOrderBytesTotal
        self.requestBodyBytes = requestBodyBytes
        self.responseBodyBytes = responseBodyBytes
        self.pendingRequestsPerConnection = pendingRequestsPerConnection
        self.connections = connections
        self.idleTimeout = idleTimeout
        self.maxSequenceJump = maxSequenceJump
    }
}

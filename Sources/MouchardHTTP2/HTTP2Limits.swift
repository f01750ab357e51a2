/// The limits an `HTTP2Connection` applies to its peer and advertises in its SETTINGS. They bound
/// the memory and work one connection can cost (RFC 9113 §10.5 and the attacks it names).
public struct HTTP2Limits: Sendable, Equatable {
    /// SETTINGS_MAX_CONCURRENT_STREAMS we advertise (a server session otherwise accepts 2^32 - 1).
    public var maxConcurrentStreams: UInt32
    /// SETTINGS_INITIAL_WINDOW_SIZE: how much of each stream's body the peer may send ahead of
    /// what we consumed (passed on to the other side, or dropped).
    public var streamWindow: Int32
    /// The connection-wide receive window: the most body bytes of this peer waiting in the proxy
    /// for the other side, over all streams (the memory bound of one direction of a connection).
    public var connectionWindow: Int32
    /// SETTINGS_MAX_HEADER_LIST_SIZE, and what `on_header` enforces itself (nghttp2 does not):
    /// name + value + 32 per field, over one header block. Also the bound of an HPACK bomb's output.
    public var maxHeaderListSize: Int
    /// CONTINUATION frames allowed after one HEADERS (CVE-2024-28182): more is a connection error.
    public var maxContinuations: Int
    /// RST_STREAM frames received: a burst, then a rate per second (CVE-2023-44487, rapid reset).
    public var resetBurst: UInt64
    public var resetRatePerSecond: UInt64
    /// Header blocks refused (over the list size) before the whole connection is closed with
    /// ENHANCE_YOUR_CALM: a peer that keeps sending them is an attacker, not a big cookie.
    public var maxRefusedHeaderBlocks: Int

    public init(maxConcurrentStreams: UInt32 = 100, streamWindow: Int32 = 1 << 20, connectionWindow: Int32 = 4 << 20,
                maxHeaderListSize: Int = 64 * 1024, maxContinuations: Int = 8, resetBurst: UInt64 = 1000,
                resetRatePerSecond: UInt64 = 33, maxRefusedHeaderBlocks: Int = 16) {
        self.maxConcurrentStreams = maxConcurrentStreams
        self.streamWindow = streamWindow
        self.connectionWindow = connectionWindow
        self.maxHeaderListSize = maxHeaderListSize
        self.maxContinuations = maxContinuations
        self.resetBurst = resetBurst
        self.resetRatePerSecond = resetRatePerSecond
        self.maxRefusedHeaderBlocks = maxRefusedHeaderBlocks
    }

    /// The proxy's defaults.
    public static let standard = HTTP2Limits()
}

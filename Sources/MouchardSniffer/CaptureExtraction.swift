import MouchardFlow
import MouchardWire

/// What a capture gave: the HTTP and TLS flows, the DNS answers, the destinations, and an honest
/// account of what could not be read.
public struct CaptureExtraction: Sendable {
    /// Flows in the order they completed (ids 1, 2, 3...): cleartext HTTP exchanges (`.http`) and
    /// TLS handshakes (`.tlsMetadata`, no request).
    public var flows: [Flow]
    public var dns: [DNSObservation]
    public var destinations: [CaptureDestination]
    /// Human-readable notes (gaps, skipped fragments, reading stopped early...), one line each.
    public var warnings: [String]
    public var statistics: ExtractionStatistics
    /// Set when reading stopped on a bad record: everything before its offset is in this result.
    public var readError: CaptureFileError?
    /// `pcap` or `pcapng` (files only).
    public var format: String?
    /// With TLS keys: the TLS connections that could not be decrypted, and why.
    public var undecryptedTLS: [UndecryptedTLSSession] = []

    public init(flows: [Flow] = [], dns: [DNSObservation] = [], destinations: [CaptureDestination] = [],
                warnings: [String] = [], statistics: ExtractionStatistics = ExtractionStatistics(),
                readError: CaptureFileError? = nil, format: String? = nil) {
        self.flows = flows
        self.dns = dns
        self.destinations = destinations
        self.warnings = warnings
        self.statistics = statistics
        self.readError = readError
        self.format = format
    }
}

/// A TLS connection a capture holds but the keys given did not open.
public struct UndecryptedTLSSession: Sendable, Hashable {
    public var client: Endpoint
    public var server: Endpoint
    public var serverName: String?
    /// `no key for client random 5f3a…`, `unsupported cipher suite 0x009c`, `capture started mid-session`...
    public var reason: String

    public init(client: Endpoint, server: Endpoint, serverName: String?, reason: String) {
        self.client = client
        self.server = server
        self.serverName = serverName
        self.reason = reason
    }
}

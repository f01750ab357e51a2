import MouchardWire

/// Counters of what the extraction saw, skipped and dropped: the honest account of a capture.
public struct ExtractionStatistics: Sendable, Hashable {
    public var packets = 0
    public var bytes = 0
    /// Frames whose link type we do not decode or whose link header is cut.
    public var undecodableLink = 0
    /// Of those, frames of a link type Mouchard does not decode, per link type.
    public var unsupportedLinkTypes: [LinkType: Int] = [:]
    /// Frames that are not IP (ARP, LLDP, 802.11 management...) or whose IP header is bad.
    public var nonIP = 0
    /// Frames without IP per protocol name (`ARP (0x0806)`, `802.11 encrypted data`).
    public var nonIPByProtocol: [String: Int] = [:]
    public var badIP = 0
    /// IP packets of a transport other than TCP and UDP, per protocol number (1 ICMP, 58 ICMPv6...).
    public var otherTransports: [UInt8: Int] = [:]
    /// IP fragments that could not be used (dropped or never completed); see `fragments`.
    public var ipFragmentsSkipped = 0
    /// IPv4 and IPv6 fragment reassembly.
    public var fragments = IPFragmentReassembler.Statistics()
    /// Connections whose client spoke cleartext HTTP/2 (prior-knowledge preface or an h2c upgrade).
    public var cleartextHTTP2Connections = 0
    /// Connections that started with a SOCKS5 handshake (skipped; what it carries is read).
    public var socks5Connections = 0
    public var tcpSegments = 0
    public var udpDatagrams = 0
    public var badTransport = 0
    /// Payload bytes that were already delivered (retransmissions and overlaps; first write wins).
    public var retransmittedBytes = 0
    public var outOfOrderSegments = 0
    /// Holes in streams that never filled, and the bytes they lost.
    public var gaps = 0
    public var gapBytes = 0
    /// Bytes dropped because of memory caps (out-of-order buffers, request bodies beyond their cap;
    /// response bodies beyond theirs are not counted: `scan` keeps none on purpose).
    public var droppedBytes = 0
    /// Segments ignored because their sequence number was absurdly far from the stream.
    public var implausibleSegments = 0
    public var tcpConnections = 0
    /// Connections closed early because the connection table was full.
    public var connectionsEvicted = 0
    public var httpRequests = 0
    public var httpResponses = 0
    /// Responses with no request to pair with (capture started mid-exchange, gap).
    public var unpairedResponses = 0
    public var tlsClientHellos = 0
    /// With TLS keys (a key log, a pcapng secrets block): connections decrypted and not (each of the
    /// latter is listed with its reason in `CaptureExtraction.undecryptedTLS`).
    public var tlsSessionsDecrypted = 0
    public var tlsSessionsNotDecrypted = 0
    public var tlsRecordsDecrypted = 0
    /// Records that did not open under their key (damaged, or the key log's secret is wrong).
    public var tlsRecordsFailedAuthentication = 0
    /// Records cut short by the end of the capture or of the connection.
    public var tlsRecordsTruncated = 0
    /// Bytes at a record boundary that are no TLS record (the rest of that direction is lost).
    public var tlsRecordsMalformed = 0
    /// Application data records not decrypted because they carried only body bytes past the
    /// body cap (which are counted, not kept): neither opened nor authenticated.
    public var tlsRecordsSkipped = 0
    /// Connections decoded as HTTP/2 (cleartext or decrypted), and those whose decoding stopped
    /// early (a malformed frame, an HPACK error: the streams complete before it are kept).
    public var http2Connections = 0
    public var http2Problems = 0
    /// Key log lines skipped (bad format, wrong secret length), from files and secrets blocks.
    public var keyLogWarnings = 0
    public var quicInitials = 0
    /// QUIC connections decrypted with a key log, and their packets opened or not.
    public var quicConnectionsDecrypted = 0
    public var quicPacketsDecrypted = 0
    public var quicPacketsFailedAuthentication = 0
    public var quicPacketsMalformed = 0
    /// HTTP/3 field sections that could not be decoded, streams given up.
    public var http3Problems = 0
    public var dnsMessages = 0
    public var dnsMalformed = 0

    public init() {}
}

// MouchardSniffer: packets (file or live) → Flows, DNS observations and a destinations summary.
//
//   let result = try CaptureFileExtractor.extract(path: "traffic.pcapng")   // pcap/pcapng by magic
//   result.flows          // .http flows (request + response) and .tlsMetadata flows (SNI, ALPN)
//   result.dns            // DNSObservation per answer (CNAME chain, addresses)
//   result.destinations   // host, addresses, transports http/tls/quic/other, flows, bytes
//   result.readError      // a bad record: what and at which byte; everything before it is kept
//
//   // streaming (bounded memory, long captures): flows handed over as they complete
//   try CaptureFileExtractor.extract(path: p, collect: false) { flow in inspector.inspect(flow) }
//
//   // live: LiveSniffer(interface:filter:promiscuous:pcapPath:), onFlow, run(shouldStop:), stop()
//
// Pipeline: CaptureFileReader / LiveCapture (MouchardCapture) → link layer, IPv4/IPv6, TCP/UDP
// dissectors (MouchardWire) → PcapFlowExtractor:
// - TCP: TCPDirectionReassembler per direction. Policy: first write wins (retransmitted and
//   overlapping bytes are trimmed against what was delivered or is already held, and counted);
//   out-of-order segments are held (1 MiB per direction, 64 MiB in all) until the hole fills;
//   a hole that does not fill (cap reached, FIN/RST, 300 s idle, end of capture) becomes a gap:
//   the message in progress is emitted marked incomplete (Flow.error, bodyTruncated) and the HTTP
//   parser resyncs on the next start line. Without a SYN (capture started mid-connection) the first
//   segment sets the origin and parsing starts in resync. RST ends a connection at once; FIN ends
//   its direction (until-close responses complete). Closed connections stay as tombstones for 60 s
//   so late copies do not start phantom connections. Connections are capped (50 000; the least
//   recently active are closed early and counted).
// - Protocol by content, on any port: TLS ClientHello (also split across records and segments) →
//   tls-metadata flow; a request line → HTTP (wire's HTTPMessageReader, bare LF accepted);
//   port 53 → DNS over TCP. QUIC Initials (v1, v2) are counted per destination. IP fragments are
//   counted and skipped (noted in warnings).
// - Pairing: requests queue per connection (pipelining), responses answer them in order; HEAD and
//   1xx/204/304 have no body; bodies keep their content coding (gzip stays gzip, as in HAR).
// - Destinations are named by HTTP Host, else SNI, else the last DNS answer for the server address.

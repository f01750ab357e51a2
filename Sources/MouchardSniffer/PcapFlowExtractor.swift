import Foundation
import MouchardFlow
import MouchardWire

/// Turns captured packets (from a file or a live interface) into flows: decodes link, IP and
/// transport layers, reassembles TCP per direction, finds HTTP/1.x on any port by content,
/// pairs requests with responses, reads TLS ClientHellos, DNS answers and QUIC Initials, and keeps
/// the destinations summary.
///
/// Push packets with `process`, then call `finish` once. Flows and DNS observations are handed to
/// the sinks as soon as they complete (live console), and also collected in the result unless
/// `collect` is false (long captures: memory then stays bounded by the reassembly limits).
public final class PcapFlowExtractor {
    public let limits: ReassemblyLimits
    public let collect: Bool
    /// Called with each flow as it completes (after its id is assigned).
    public var onFlow: ((Flow) -> Void)?
    public var onDNS: ((DNSObservation) -> Void)?
    /// TLS secrets to decrypt with (a key log, pcapng secrets blocks). Without them TLS connections
    /// give their handshake metadata only.
    public var keys: TLSKeyStore?

    public internal(set) var statistics = ExtractionStatistics()
    private var flows: [Flow] = []
    private var dnsObservations: [DNSObservation] = []
    private var warnings: [String] = []
    private var suppressedWarnings = 0
    private var nextFlowID = 1
    /// Creation sequence of connections and conversations (their order in the capture).
    private var nextOrder = 0
    private var connections: [ConnectionKey: TCPConnection] = [:]
    private var udp: [ConnectionKey: UDPConversation] = [:]
    private var globalHeld = 0
    private var fragments = IPFragmentReassembler()
    private var gapWarnings = WarningClass()
    private var namesByAddress: [IPAddress: String] = [:]
    private var destinations = DestinationTable()
    private var lastSweep: Double = 0
    private var now: Double = 0
    private var undecryptedTLS: [UndecryptedTLSSession] = []
    static let maxUndecryptedListed = 1000

    /// Warnings kept in the result; the rest are only counted.
    static let maxWarnings = 200

    public init(limits: ReassemblyLimits = ReassemblyLimits(), collect: Bool = true, keys: TLSKeyStore? = nil) {
        self.limits = limits
        self.collect = collect
        self.keys = keys
    }

    /// A pcapng Decryption Secrets Block met while reading: its secrets are used from now on (and
    /// by connections still waiting for theirs).
    public func addSecretsBlock(type: UInt32, data: ArraySlice<UInt8>) {
        let store = keys ?? TLSKeyStore()
        keys = store
        let bad = store.addSecretsBlock(type: type, data: data)
        statistics.keyLogWarnings += bad.count
        for w in bad.prefix(20) { warn("decryption secrets block: \(w)") }
        if type != CaptureFileParser.tlsKeyLogSecretsType {
            warn("decryption secrets block of type 0x\(String(type, radix: 16)) skipped (only TLS key logs are read)")
        }
    }

    // MARK: - Packets

    /// Decodes one captured frame and feeds what it carries to the connection it belongs to.
    public func process(_ packet: CapturedPacket) {
        statistics.packets += 1
        statistics.bytes += packet.data.count
        now = max(now, packet.timestamp)
        if now - lastSweep > 5 {
            if lastSweep > 0 { sweep(olderThan: now - limits.idleTimeout) }
            lastSweep = now
        }
        guard let link = LinkLayerDecoder.decode(packet.data, linkType: packet.linkType) else {
            statistics.undecodableLink += 1
            if !LinkLayerDecoder.supports(packet.linkType) { statistics.unsupportedLinkTypes[packet.linkType, default: 0] += 1 }
            return
        }
        var source: IPAddress, destination: IPAddress, proto: UInt8, payload: ArraySlice<UInt8>
        var reassembledBytes: [UInt8] = []
        switch link.network {
        case .ipv4:
            guard let ip = IPv4Packet(link.bytes) else { statistics.badIP += 1; return }
            (source, destination, proto, payload) = (ip.source, ip.destination, ip.protocolNumber, ip.payload)
            if ip.isFragment {
                let key = IPFragmentReassembler.Key(source: ip.source, destination: ip.destination,
                                                    identification: UInt32(ip.identification), protocolNumber: ip.protocolNumber)
                guard case .complete(let bytes, _) = fragments.add(key, offset: ip.fragmentOffset, more: ip.moreFragments,
                                                                  data: ip.payload, time: packet.timestamp) else { return }
                reassembledBytes = bytes
                payload = reassembledBytes[...]
            }
        case .ipv6:
            guard let ip = IPv6Packet(link.bytes) else { statistics.badIP += 1; return }
            (source, destination, proto, payload) = (ip.source, ip.destination, ip.protocolNumber, ip.payload)
            if ip.isFragment, let f = ip.fragment, let part = ip.fragmentable {
                let key = IPFragmentReassembler.Key(source: ip.source, destination: ip.destination,
                                                    identification: f.identification, protocolNumber: 0)
                guard case .complete(let bytes, let next) = fragments.add(key, offset: f.offset, more: f.more, data: part.bytes,
                                                                         context: part.next, time: packet.timestamp) else { return }
                reassembledBytes = bytes
                guard let whole = ip.reassembled(next: next, bytes: reassembledBytes[...]) else { statistics.badIP += 1; return }
                (proto, payload) = (whole.protocolNumber, whole.payload)
            }
        case .other, .wifi:
            statistics.nonIP += 1
            statistics.nonIPByProtocol[link.network.name, default: 0] += 1
            return
        }
        switch proto {
        case 6:
            guard let tcp = TCPSegment(payload) else { statistics.badTransport += 1; return }
            statistics.tcpSegments += 1
            handleTCP(tcp, source: source, destination: destination, time: packet.timestamp)
        case 17:
            guard let datagram = UDPDatagram(payload) else { statistics.badTransport += 1; return }
            statistics.udpDatagrams += 1
            handleUDP(datagram, source: source, destination: destination, time: packet.timestamp)
        default:
            statistics.otherTransports[proto, default: 0] += 1
        }
    }

    /// Ends every connection (holes become gaps, waiting requests are emitted without response)
    /// and returns everything collected.
    public func finish(readError: CaptureFileError? = nil, format: String? = nil) -> CaptureExtraction {
        sweep(olderThan: .infinity)
        fragments.finish()
        statistics.fragments = fragments.statistics
        statistics.ipFragmentsSkipped = fragments.statistics.dropped.values.reduce(0, +)
        if let gaps = gapWarnings.line({ "\($0) gap\($0 == 1 ? "" : "s") in TCP streams, \($1) bytes lost" }) { warn(gaps) }
        for w in CaptureWarnings.summary(of: statistics) { warn(w) }
        if suppressedWarnings > 0 { warnings.append("... and \(suppressedWarnings) more warnings") }
        if statistics.tlsRecordsFailedAuthentication > 0 || statistics.tlsRecordsTruncated > 0 || statistics.tlsRecordsMalformed > 0 {
            warnings.append("TLS records: \(statistics.tlsRecordsFailedAuthentication) failed authentication, \(statistics.tlsRecordsTruncated) truncated, \(statistics.tlsRecordsMalformed) malformed")
        }
        if statistics.quicPacketsFailedAuthentication > 0 || statistics.quicPacketsMalformed > 0 || statistics.http3Problems > 0 {
            warnings.append("QUIC packets: \(statistics.quicPacketsFailedAuthentication) failed authentication, \(statistics.quicPacketsMalformed) malformed; HTTP/3: \(statistics.http3Problems) problems")
        }
        if statistics.http2Problems > 0 {
            warnings.append("\(statistics.http2Problems) HTTP/2 connections could not be decoded to their end (see the warnings above)")
        }
        if let e = readError { warnings.append("reading stopped: \(e)") }
        var result = CaptureExtraction(flows: flows, dns: dnsObservations, destinations: destinations.summary(),
                                       warnings: warnings, statistics: statistics, readError: readError, format: format)
        result.undecryptedTLS = undecryptedTLS
        return result
    }

    func warn(_ s: String) {
        if warnings.count < PcapFlowExtractor.maxWarnings { warnings.append(s) } else { suppressedWarnings += 1 }
    }

    // MARK: - TCP

    private func handleTCP(_ tcp: TCPSegment, source: IPAddress, destination: IPAddress, time: Double) {
        let (key, d) = ConnectionKey.make(source: source, sourcePort: tcp.sourcePort, destination: destination,
                                          destinationPort: tcp.destinationPort)
        let syn = tcp.flags.contains(.syn)
        var connection = connections[key]
        if let c = connection, c.closed {
            // A new SYN reuses the ports: a new connection. Anything else is a late copy of the old one.
            guard syn && !tcp.flags.contains(.ack) else { return }
            connection = nil
        }
        if connection == nil {
            guard syn || !tcp.payload.isEmpty else { return }
            if connections.count >= limits.connections { evictOldest() }
            let c = TCPConnection(key: key, time: time, order: nextOrder)
            nextOrder += 1
            connections[key] = c
            statistics.tcpConnections += 1
            connection = c
        }
        guard let c = connection else { return }
        c.lastSeen = time
        c.payloadBytes += tcp.payload.count
        if syn && c.clientDirection == nil { c.clientDirection = tcp.flags.contains(.ack) ? 1 - d : d }
        var events: [TCPDirectionReassembler.Event] = []
        c.reassemblers[d].segment(sequence: tcp.sequence, syn: syn, fin: tcp.flags.contains(.fin), payload: tcp.payload,
                                  time: time, limits: limits, globalHeld: &globalHeld, stats: &statistics) { events.append($0) }
        for e in events { deliverStream(e, direction: d, connection: c, time: time) }
        if tcp.flags.contains(.rst) {
            close(c)
            return
        }
        if c.reassemblers[d].finished && !c.ended[d] {
            endDirection(d, of: c, time: time)
            if c.ended[0] && c.ended[1] { close(c) }
        }
    }

    /// Reassembled TCP bytes of direction `d`: through the TLS decryptor when the connection has one,
    /// else straight to the protocol the direction speaks.
    private func deliverStream(_ event: TCPDirectionReassembler.Event, direction d: Int, connection c: TCPConnection, time: Double) {
        guard let tls = c.tls else {
            deliver(event, direction: d, connection: c, time: time)
            return
        }
        switch event {
        case .gap(let length):
            warn("gap of \(length) bytes in \(c.endpoint(d)) → \(c.endpoint(1 - d)) at \(timeText(time))")
            handleTLS(tls.gap(direction: d, length: length), connection: c)
        case .data(let bytes, let t):
            handleTLS(tls.feed(direction: d, bytes: bytes, time: t), connection: c)
        }
    }

    /// What the TLS decryptor gave: the negotiation, then decrypted bytes, handed to the
    /// application protocol the handshake chose (the hook where an HTTP/2 decoder plugs in).
    private func handleTLS(_ events: [TLSConnectionDecryptor.Event], connection c: TCPConnection) {
        for event in events {
            switch event {
            case .established(let n):
                c.negotiation = n
                if n.alpn == "h2" {
                    // Decrypted HTTP/2: the same decoder as cleartext h2.
                    startHTTP2(c, clientDirection: c.tls?.clientDirection ?? (1 - c.serverDirection), initial: [], upgraded: nil, time: c.lastSeen)
                } else {
                    c.protocols = [.undetermined([]), .undetermined([])]
                }
            case .plaintext(let d, let bytes, let t):
                deliver(.data(bytes[...], time: t), direction: d, connection: c, time: t)
            case .skipped(let d, let count, _):
                if case .http(var parser) = c.protocols[d] {
                    c.protocols[d] = .ignored
                    parser.skip(count)
                    c.protocols[d] = .http(parser)
                }
            case .lost(let d, let reason):
                warn("\(c.endpoint(d)) → \(c.endpoint(1 - d)): \(reason); the rest of this direction is not decrypted")
                deliver(.gap(length: 0), direction: d, connection: c, time: c.lastSeen)
            }
        }
    }

    /// The connection ends: keys that came late are tried once more, counters are taken, and a
    /// connection that gave no decrypted exchange is listed (with why) and keeps its metadata flow.
    private func finishTLS(_ tls: TLSConnectionDecryptor, connection c: TCPConnection) {
        handleTLS(tls.retry(time: c.lastSeen), connection: c)
        tls.finish()
        statistics.tlsRecordsDecrypted += tls.counters.decryptedRecords
        statistics.tlsRecordsFailedAuthentication += tls.counters.authenticationFailures
        statistics.tlsRecordsTruncated += tls.counters.truncatedRecords
        statistics.tlsRecordsMalformed += tls.counters.malformedRecords
        statistics.tlsRecordsSkipped += tls.counters.skippedRecords
        let d = tls.clientDirection
        if tls.established {
            statistics.tlsSessionsDecrypted += 1
        } else {
            noteUndecrypted(c, client: d, reason: tls.failure ?? "not decrypted")
        }
        if c.httpFlows == 0, let hello = c.tlsHello {
            let why = tls.established ? (c.negotiation?.alpn == "h2" ? "decrypted; no HTTP/2 stream in it" : nil)
                : "not decrypted: \(tls.failure ?? "unknown reason")"
            emitTLS(hello, direction: d, connection: c, time: c.firstSeen, error: why)
        }
        c.tls = nil
    }

    private func noteUndecrypted(_ c: TCPConnection, client d: Int, reason: String) {
        statistics.tlsSessionsNotDecrypted += 1
        guard undecryptedTLS.count < PcapFlowExtractor.maxUndecryptedListed else { return }
        undecryptedTLS.append(UndecryptedTLSSession(client: c.endpoint(d), server: c.endpoint(1 - d),
                                                    serverName: c.tlsHello?.serverName, reason: reason))
    }

    /// Hands reassembled (or decrypted) bytes, or a gap, of direction `d` to whatever protocol it speaks.
    private func deliver(_ event: TCPDirectionReassembler.Event, direction d: Int, connection c: TCPConnection, time: Double) {
        switch event {
        case .gap(let length):
            gapWarnings.add("\(length) bytes in \(c.endpoint(d)) → \(c.endpoint(1 - d)) at \(timeText(time))", amount: length)
            switch c.protocols[d] {
            case .http(var parser):
                c.protocols[d] = .ignored
                let messages = parser.gap(length: length, time: time)
                c.protocols[d] = .http(parser)
                handle(messages, direction: d, connection: c)
            case .undetermined:
                // Whatever started this direction is lost: look for an HTTP message start from here.
                startHTTP(direction: d, connection: c, request: nil, synchronized: false, initial: [], time: time)
            case .dns:
                c.protocols[d] = .dns([])
            case .webSocket:
                // Frames cannot be found again after a hole: what was read is kept.
                stopWebSocket(c, reason: "capture gap of \(length) bytes")
            case .http2:
                stopHTTP2(c, reason: "capture gap of \(length) bytes")
            case .ignored:
                break
            }
        case .data(let bytes, let t):
            switch c.protocols[d] {
            case .http(var parser):
                c.protocols[d] = .ignored  // keep the parser uniquely referenced while it is mutated
                let messages = parser.feed(bytes, time: t)
                c.protocols[d] = .http(parser)
                handle(messages, direction: d, connection: c)
            case .http2:
                readHTTP2(bytes, direction: d, connection: c, time: t)
            case .undetermined(var buffer):
                c.protocols[d] = .ignored
                buffer.append(contentsOf: bytes)
                classify(buffer, direction: d, connection: c, time: t)
            case .dns(var buffer):
                c.protocols[d] = .ignored
                buffer.append(contentsOf: bytes)
                c.protocols[d] = .dns(readTCPDNS(&buffer, direction: d, connection: c, time: t))
            case .webSocket:
                readWebSocket(bytes, direction: d, connection: c, time: t)
            case .ignored:
                break
            }
        }
    }

    /// Decides what a direction speaks from its first bytes.
    private func classify(_ buffer: [UInt8], direction d: Int, connection c: TCPConnection, time: Double) {
        let bytes = buffer[...]
        if c.negotiation != nil {
            classifyDecrypted(buffer, direction: d, connection: c, time: time)
            return
        }
        if c.key.lowPort == 53 || c.key.highPort == 53 {
            var b = buffer
            c.protocols[d] = .dns(readTCPDNS(&b, direction: d, connection: c, time: time))
            return
        }
        let synchronized = c.reassemblers[d].sawSYN
        if stripSOCKS5(buffer, direction: d, connection: c, time: time) { return }
        switch TLSClientHello.parse(stream: bytes) {
        case .needMore:
            if buffer.count < TLSClientHello.maxHelloLength { c.protocols[d] = .undetermined(buffer) }
            return
        case .clientHello(let hello):
            c.protocols = [.ignored, .ignored]
            if let keys {
                startTLS(hello, keys: keys, buffered: buffer, direction: d, connection: c, time: time)
            } else {
                emitTLS(hello, direction: d, connection: c, time: time)
            }
            return
        case .malformed:
            return  // stays ignored
        case .notTLS:
            if keys != nil, !synchronized, PcapFlowExtractor.looksLikeTLSRecord(bytes) {
                c.protocols = [.ignored, .ignored]
                c.sawTLS = true
                noteUndecrypted(c, client: 1 - c.serverDirection, reason: "capture started mid-session (no handshake seen)")
                return
            }
        }
        let preface = Self.http2Preface
        if bytes.count < preface.count, bytes.elementsEqual(preface.prefix(bytes.count)) {
            c.protocols[d] = .undetermined(buffer)
            return
        }
        if bytes.hasBytePrefix(preface) {
            markCleartextHTTP2(c)
            startHTTP2(c, clientDirection: d, initial: Array(bytes), upgraded: nil, time: time)
            return
        }
        if HTTPStreamParser.looksLikeRequestLine(bytes) {
            startHTTP(direction: d, connection: c, request: true, synchronized: true, initial: bytes, time: time)
            return
        }
        if HTTPStreamParser.looksLikeStatusLine(bytes) {
            startHTTP(direction: d, connection: c, request: false, synchronized: true, initial: bytes, time: time)
            return
        }
        let waiting = !bytes.contains(0x0A) && bytes.count < 8192 && (bytes.first.map { $0 >= 0x41 && $0 <= 0x5A } ?? true)
        if waiting {
            c.protocols[d] = .undetermined(buffer)
        } else if !synchronized {
            // Capture started mid-connection: an HTTP message may start further on.
            startHTTP(direction: d, connection: c, request: nil, synchronized: false, initial: bytes, time: time)
        }
        // else: a stream seen from its start that is neither HTTP nor TLS: ignored.
    }

    /// A ClientHello with keys to try: both directions go through a decryptor from now on, starting
    /// with the bytes already buffered. The metadata flow waits for the outcome.
    private func startTLS(_ hello: TLSClientHello, keys: TLSKeyStore, buffered: [UInt8], direction d: Int,
                          connection c: TCPConnection, time: Double) {
        statistics.tlsClientHellos += 1
        c.sawTLS = true
        c.requestDirection = d
        if c.hostName == nil { c.hostName = hello.serverName }
        c.tlsHello = hello
        let tls = TLSConnectionDecryptor(clientDirection: d, keys: keys)
        // Events are handled as they happen, so that the HTTP parser's state (how much of a body it
        // would drop) is current when the decryptor asks before each record.
        tls.sink = { [weak self, weak c] event in
            guard let self, let c else { return }
            self.handleTLS([event], connection: c)
        }
        tls.discardable = { [weak c] direction in
            guard let c, case .http(let parser) = c.protocols[direction] else { return 0 }
            return parser.discardableBytes
        }
        c.tls = tls
        handleTLS(tls.feed(direction: d, bytes: buffered[...], time: time), connection: c)
    }

    /// Decrypted bytes start: HTTP/1 is recognised by its start line; the stream was seen from its
    /// start, so anything else is not HTTP/1 and is ignored.
    private func classifyDecrypted(_ buffer: [UInt8], direction d: Int, connection c: TCPConnection, time: Double) {
        let bytes = buffer[...]
        if HTTPStreamParser.looksLikeRequestLine(bytes) {
            startHTTP(direction: d, connection: c, request: true, synchronized: true, initial: bytes, time: time)
        } else if HTTPStreamParser.looksLikeStatusLine(bytes) {
            startHTTP(direction: d, connection: c, request: false, synchronized: true, initial: bytes, time: time)
        } else if !bytes.contains(0x0A) && bytes.count < 8192 {
            c.protocols[d] = .undetermined(buffer)
        }
    }

    /// A TLS record header (content type 20-23, version 3.x, a possible length): a stream caught
    /// after its handshake.
    static func looksLikeTLSRecord(_ b: ArraySlice<UInt8>) -> Bool {
        guard b.count >= 5, let type = b.u8(at: 0), let major = b.u8(at: 1), let minor = b.u8(at: 2),
              let length = b.be16(at: 3) else { return false }
        return (20...23).contains(type) && major == 3 && minor <= 4 && Int(length) <= TLSRecordSplitter.maxFragmentLength
    }
    /// A SOCKS5 handshake at the start of a stream seen from its SYN: its bytes are skipped, and
    /// what follows (the proxied protocol) is classified as if the stream started there. True when
    /// the bytes were taken (skipped, or kept waiting for the rest of the handshake).
    private func stripSOCKS5(_ buffer: [UInt8], direction d: Int, connection c: TCPConnection, time: Double) -> Bool {
        guard !c.socksDone[d] else { return false }
        let length: SOCKS5Handshake.Length
        if let client = c.socksClient {
            length = client == d ? SOCKS5Handshake.clientLength(buffer[...]) : SOCKS5Handshake.serverLength(buffer[...])
        } else {
            guard c.reassemblers[d].sawSYN, c.clientDirection == d, SOCKS5Handshake.looksLikeGreeting(buffer[...]) else { return false }
            length = SOCKS5Handshake.clientLength(buffer[...])
        }
        switch length {
        case .notSOCKS:
            c.socksDone[d] = true
            return false
        case .needMore:
            if buffer.count < Self.maxSOCKS5Handshake { c.protocols[d] = .undetermined(buffer) }
            return true
        case .complete(let n):
            if c.socksClient == nil {
                c.socksClient = d
                statistics.socks5Connections += 1
            }
            c.socksDone[d] = true
            c.protocols[d] = .undetermined([])
            if n < buffer.count { classify(Array(buffer[n...]), direction: d, connection: c, time: time) }
            return true
        }
    }

    /// A SOCKS5 handshake longer than this (user name and password of 255 bytes each, a long host) is garbage.
    static let maxSOCKS5Handshake = 1024

    /// Switches direction `d` (and, when known, the opposite one) to HTTP parsing.
    /// `request` nil means "unknown role": the client side or the lower-port side decides.
    private func startHTTP(direction d: Int, connection c: TCPConnection, request: Bool?, synchronized: Bool,
                           initial: ArraySlice<UInt8>, time: Double) {
        let isRequest = request ?? (c.requestDirection.map { $0 == d } ?? (c.serverDirection != d))
        if isRequest { c.requestDirection = d } else if c.requestDirection == nil { c.requestDirection = 1 - d }
        var parser = HTTPStreamParser(role: isRequest ? .request : .response, synchronized: synchronized,
                                      bodyLimit: isRequest ? limits.requestBodyBytes : limits.responseBodyBytes)
        if !isRequest { for m in c.pendingRequests { parser.expectResponse(to: m.requestHead?.method ?? "GET") } }
        c.protocols[d] = .http(parser)
        if !initial.isEmpty { deliver(.data(initial, time: time), direction: d, connection: c, time: time) }
        // The other direction answers (or asks) in HTTP too.
        let o = 1 - d
        if case .undetermined(let buffered) = c.protocols[o] {
            let oppositeSynchronized = c.reassemblers[o].sawSYN
            c.protocols[o] = .http(HTTPStreamParser(role: isRequest ? .response : .request, synchronized: oppositeSynchronized,
                                                    bodyLimit: isRequest ? limits.responseBodyBytes : limits.requestBodyBytes))
            if !buffered.isEmpty { deliver(.data(buffered[...], time: time), direction: o, connection: c, time: time) }
        }
    }

    private func handle(_ messages: [HTTPStreamParser.Message], direction d: Int, connection c: TCPConnection) {
        for m in messages {
            if let head = m.requestHead {
                statistics.httpRequests += 1
                statistics.droppedBytes += max(0, m.bodyLength - m.body.count)
                c.sawHTTP = true
                c.requestDirection = d
                if c.hostName == nil, let h = head.headers["Host"], !h.isEmpty {
                    c.hostName = URLParts.hostOnly(authority: h).lowercased()
                }
                c.pendingRequests.append(m)
                if case .http(var responses) = c.protocols[1 - d] {
                    c.protocols[1 - d] = .ignored
                    responses.expectResponse(to: head.method)
                    c.protocols[1 - d] = .http(responses)
                } else if case .undetermined(let buffered) = c.protocols[1 - d] {
                    // The server's side has not spoken yet: it will answer in HTTP.
                    var p = HTTPStreamParser(role: .response, synchronized: c.reassemblers[1 - d].sawSYN || buffered.isEmpty,
                                             bodyLimit: limits.responseBodyBytes)
                    p.expectResponse(to: head.method)
                    c.protocols[1 - d] = .http(p)
                    if !buffered.isEmpty { deliver(.data(buffered[...], time: m.ended), direction: 1 - d, connection: c, time: m.ended) }
                }
                if c.pendingRequests.count > limits.pendingRequestsPerConnection {
                    let oldest = c.pendingRequests.removeFirst()
                    emitHTTP(request: oldest, response: nil, connection: c)
                }
            } else if m.responseHead != nil {
                statistics.httpResponses += 1
                guard !c.pendingRequests.isEmpty else {
                    statistics.unpairedResponses += 1
                    continue
                }
                let request = c.pendingRequests.removeFirst()
                if startWebSocket(request: request, response: m, direction: d, connection: c) { return }
                emitHTTP(request: request, response: m, connection: c)
                if m.responseHead?.status == 101, let upgrade = request.requestHead?.headers["Upgrade"],
                   upgrade.lowercased().split(separator: ",").contains(where: { $0.trimmingCharacters(in: .whitespaces) == "h2c" }) {
                    // Switched to HTTP/2 (RFC 7540 §3.2): the rest of the connection is binary frames,
                    // the upgraded request being stream 1.
                    markCleartextHTTP2(c)
                    startH2CUpgrade(request: request, serverDirection: d, connection: c, time: m.ended)
                    return
                }
            }
        }
    }

    /// The client speaks HTTP/2 without TLS: counted and named (the frames are decoded by `startHTTP2`).
    private func markCleartextHTTP2(_ c: TCPConnection) {
        if !c.sawH2C {
            c.sawH2C = true
            statistics.cleartextHTTP2Connections += 1
        }
    }

    /// The client connection preface of HTTP/2 (RFC 9113 §3.4).
    static let http2Preface = Array("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n".utf8)

    private func endDirection(_ d: Int, of c: TCPConnection, time: Double) {
        c.ended[d] = true
        // Body bytes the decryptor passed over and has not told yet are counted before the end.
        if let tls = c.tls { handleTLS(tls.flushSkipped(direction: d), connection: c) }
        if case .http(var parser) = c.protocols[d] {
            c.protocols[d] = .ignored
            let messages = parser.end(time: time)
            c.protocols[d] = .http(parser)
            handle(messages, direction: d, connection: c)
        }
    }

    /// Ends a connection: flushes holes, ends parsers, emits waiting requests, records the destination.
    private func close(_ c: TCPConnection) {
        guard !c.closed else { return }
        for d in 0..<2 {
            var events: [TCPDirectionReassembler.Event] = []
            c.reassemblers[d].flush(globalHeld: &globalHeld, stats: &statistics) { events.append($0) }
            for e in events { deliverStream(e, direction: d, connection: c, time: c.lastSeen) }
        }
        if let tls = c.tls { finishTLS(tls, connection: c) }
        for d in 0..<2 where !c.ended[d] { endDirection(d, of: c, time: c.lastSeen) }
        if c.http2 != nil { stopHTTP2(c, reason: "connection ended") }
        if let ws = c.webSocket {
            ws.conversation.finish(at: Date(timeIntervalSince1970: c.lastSeen))
            emitWebSocket(ws, final: true, connection: c)
            c.webSocket = nil
        }
        while !c.pendingRequests.isEmpty {
            emitHTTP(request: c.pendingRequests.removeFirst(), response: nil, connection: c)
        }
        for d in 0..<2 { c.reassemblers[d].discard(globalHeld: &globalHeld) }
        c.protocols = [.ignored, .ignored]
        c.closed = true
        c.closedAt = c.lastSeen
        let server = c.serverDirection
        let address = c.key.address(server)
        let host = c.hostName ?? namesByAddress[address] ?? address.description
        let transport = c.sawH2C ? "h2c" : (c.negotiation != nil || (c.sawTLS && !c.sawHTTP)) ? "tls" : (c.sawHTTP ? "http" : "other")
        let flowCount = c.sawHTTP || c.sawTLS ? 0 : 1  // HTTP and TLS flows are counted as they are emitted
        destinations.record(host: host, address: address.description, transport: transport, flows: flowCount,
                            bytes: c.payloadBytes)
    }

    /// Closes connections idle since before `limit`, and forgets closed ones.
    private func sweep(olderThan limit: Double) {
        // Closed in the order the connections were first seen, so flow ids do not depend on
        // the hash order of the table (the same capture gives the same ids every run).
        var closing: [TCPConnection] = []
        var stale: [ConnectionKey] = []
        for (k, c) in connections {
            if c.closed {
                if c.closedAt < now - 60 || limit == .infinity { stale.append(k) }
            } else if c.lastSeen < limit {
                closing.append(c)
                stale.append(k)
            }
        }
        for c in closing.sorted(by: { $0.order < $1.order }) { close(c) }
        for k in stale { connections[k] = nil }
        let staleUDP = udp.values.filter { $0.lastSeen < limit || limit == .infinity }.sorted { $0.order < $1.order }
        for u in staleUDP {
            closeUDP(u)
            udp[u.key] = nil
        }
    }

    private func evictOldest() {
        let open = connections.values.filter { !$0.closed }
            .sorted { $0.lastSeen != $1.lastSeen ? $0.lastSeen < $1.lastSeen : $0.order < $1.order }
        for c in open.prefix(max(1, limits.connections / 10)) {
            close(c)
            statistics.connectionsEvicted += 1
        }
        for (k, c) in connections where c.closed { connections[k] = nil }
    }

    // MARK: - Flows

    private func emitHTTP(request: HTTPStreamParser.Message, response: HTTPStreamParser.Message?, connection c: TCPConnection) {
        guard let flow = httpFlow(request: request, response: response, connection: c) else { return }
        publish(flow)
    }

    /// The flow of one exchange, numbered and counted (nil for a message without a request head).
    func httpFlow(request: HTTPStreamParser.Message, response: HTTPStreamParser.Message?, connection c: TCPConnection,
                  authority: String? = nil) -> Flow? {
        guard let head = request.requestHead else { return nil }
        let d = c.requestDirection ?? (1 - c.serverDirection)
        let server = c.endpoint(1 - d)
        let decrypted = c.negotiation != nil
        let req = HTTPRequest(head: head, scheme: decrypted ? "https" : "http", fallbackAuthority: authority ?? "\(server.description)",
                              body: request.body, bodyTruncated: request.bodyTruncated)
        var resp: HTTPResponse?
        var timings = FlowTimings(started: Date(timeIntervalSince1970: request.started),
                                  send: max(0, (request.ended - request.started) * 1000))
        if let r = response, let rh = r.responseHead {
            resp = HTTPResponse(head: rh, body: r.body, bodyTruncated: r.bodyTruncated)
            timings.wait = max(0, (r.started - request.ended) * 1000)
            timings.receive = max(0, (r.ended - r.started) * 1000)
        }
        var error = request.incomplete.map { "request incomplete: \($0)" }
        if let why = response?.incomplete { error = (error.map { $0 + "; " } ?? "") + "response incomplete: \(why)" }
        var flow = Flow(id: nextFlowID, source: .pcap, transport: decrypted ? .https : .http, request: req, response: resp,
                        timings: timings, client: c.endpoint(d), server: server, error: error)
        if decrypted, let n = c.negotiation {
            flow.tls = TLSFacts(serverName: c.tlsHello?.serverName, alpn: n.alpn.map { [$0] } ?? [],
                                version: TLSClientHello.versionName(n.version))
            flow.isDecryptedFromCapture = true
        }
        nextFlowID += 1
        c.httpFlows += 1
        destinations.record(host: req.host.isEmpty ? server.address : req.host, address: server.address,
                            transport: decrypted ? "tls" : "http", flows: 1)
        return flow
    }

    private func emitTLS(_ hello: TLSClientHello, direction d: Int, connection c: TCPConnection, time: Double,
                         error: String? = nil) {
        if c.tls == nil {
            statistics.tlsClientHellos += 1
            c.sawTLS = true
            c.requestDirection = d
            if c.hostName == nil { c.hostName = hello.serverName }
        }
        let server = c.endpoint(1 - d)
        let flow = Flow(id: nextFlowID, source: .pcap, transport: .tlsMetadata,
                        timings: FlowTimings(started: Date(timeIntervalSince1970: time)), client: c.endpoint(d), server: server,
                        tls: TLSFacts(serverName: hello.serverName, alpn: hello.alpn, version: hello.versionName), error: error)
        nextFlowID += 1
        let host = hello.serverName ?? namesByAddress[c.key.address(1 - d)] ?? server.address
        destinations.record(host: host, address: server.address, transport: "tls", flows: 1)
        publish(flow)
    }

    func publish(_ flow: Flow) {
        if collect { flows.append(flow) }
        onFlow?(flow)
    }

    // MARK: - DNS

    /// Reads complete length-prefixed DNS messages from a TCP direction; returns what is left.
    private func readTCPDNS(_ buffer: inout [UInt8], direction d: Int, connection c: TCPConnection, time: Double) -> [UInt8] {
        var o = 0
        while let len = buffer[...].be16(at: o), o + 2 + Int(len) <= buffer.count {
            handleDNS(buffer[(o + 2)..<(o + 2 + Int(len))], client: c.endpoint(1 - d), server: c.endpoint(d), time: time)
            o += 2 + Int(len)
        }
        if buffer.count - o > 70_000 { return [] }
        return Array(buffer[o...])
    }

    /// Records a DNS message: queried names become destinations, answers name server addresses.
    private func handleDNS(_ bytes: ArraySlice<UInt8>, client: Endpoint, server: Endpoint, time: Double) {
        let message: DNSMessage
        do { message = try DNSMessage(bytes) } catch {
            statistics.dnsMalformed += 1
            return
        }
        statistics.dnsMessages += 1
        guard let r = message.resolution(), !r.name.isEmpty else { return }
        destinations.record(host: r.name, address: nil, transport: "dns")
        guard message.isResponse else { return }
        for a in r.addresses {
            namesByAddress[a] = r.name
            destinations.record(host: r.name, address: a.description, transport: nil)
        }
        let observation = DNSObservation(time: Date(timeIntervalSince1970: time), name: r.name,
                                         queryType: DNSMessage.typeName(r.type), addresses: r.addresses.map(\.description),
                                         cnames: r.cnames, client: client, server: server)
        if collect { dnsObservations.append(observation) }
        onDNS?(observation)
    }

    // MARK: - UDP

    private func handleUDP(_ datagram: UDPDatagram, source: IPAddress, destination: IPAddress, time: Double) {
        let sp = datagram.sourcePort, dp = datagram.destinationPort
        if sp == 53 || dp == 53 {
            let client = Endpoint(address: (sp == 53 ? destination : source).description, port: Int(sp == 53 ? dp : sp))
            let server = Endpoint(address: (sp == 53 ? source : destination).description, port: 53)
            handleDNS(datagram.payload, client: client, server: server, time: time)
            return
        }
        let (key, d) = ConnectionKey.make(source: source, sourcePort: sp, destination: destination, destinationPort: dp)
        var conversation = udp[key]
        if conversation == nil {
            if udp.count >= limits.connections { sweep(olderThan: now - 30) }
            let u = UDPConversation(key: key, firstSender: d, time: time, order: nextOrder)
            nextOrder += 1
            udp[key] = u
            conversation = u
        }
        guard let u = conversation else { return }
        u.lastSeen = time
        u.bytes += datagram.payload.count
        if let initial = QUICInitialPacket(datagram.payload) {
            if !u.isQUIC {
                u.isQUIC = true
                u.clientDirection = d
                if let keys { startQUIC(u, client: d, keys: keys) }
            }
            if u.clientDirection == d {
                u.initials += 1
                u.version = initial.version
                statistics.quicInitials += 1
            }
        }
        if let quic = u.quic { handleQUIC(quic.datagram(direction: d, bytes: datagram.payload, time: time), conversation: u) }
    }

    // MARK: - QUIC with keys

    /// A QUIC connection whose first Initial was seen, with keys to try: every datagram of the
    /// conversation goes through a decryptor, and its streams through HTTP/3.
    private func startQUIC(_ u: UDPConversation, client d: Int, keys: TLSKeyStore) {
        u.quic = QUICConnectionDecryptor(clientDirection: d, keys: keys)
        let http3 = HTTP3Assembler(clientDirection: d, bodyLimits: d == 0 ? [limits.requestBodyBytes, limits.responseBodyBytes]
                                                                         : [limits.responseBodyBytes, limits.requestBodyBytes])
        http3.onExchange = { [weak self, weak u] exchange in
            guard let self, let u else { return }
            self.emitHTTP3(exchange, conversation: u)
        }
        u.http3 = http3
    }

    private func handleQUIC(_ events: [QUICConnectionDecryptor.Event], conversation u: UDPConversation) {
        for event in events {
            switch event {
            case .established(let alpn):
                u.alpn = alpn
            case .stream(let d, let id, let offset, let data, let fin, let time):
                u.http3?.data(direction: d, id: id, offset: offset, bytes: data, fin: fin, time: time)
            }
        }
    }

    /// The conversation ends: keys that came late are tried, open exchanges go out, counters are
    /// taken, and a connection that was not decrypted is listed with why.
    private func finishQUIC(_ quic: QUICConnectionDecryptor, conversation u: UDPConversation) {
        handleQUIC(quic.retry(time: u.lastSeen), conversation: u)
        u.http3?.finish()
        quic.finish()
        statistics.quicPacketsDecrypted += quic.counters.packetsDecrypted
        statistics.quicPacketsFailedAuthentication += quic.counters.packetsFailed
        statistics.quicPacketsMalformed += quic.counters.packetsMalformed
        statistics.http3Problems += u.http3?.problems ?? 0
        let client = u.clientDirection ?? u.firstSender
        if quic.established {
            statistics.quicConnectionsDecrypted += 1
        } else {
            statistics.tlsSessionsNotDecrypted += 1
            if undecryptedTLS.count < PcapFlowExtractor.maxUndecryptedListed {
                undecryptedTLS.append(UndecryptedTLSSession(client: u.endpoint(client), server: u.endpoint(1 - client),
                                                            serverName: quic.clientHello?.serverName,
                                                            reason: "QUIC: \(quic.failure ?? "not decrypted")"))
            }
        }
        u.quic = nil
        u.http3 = nil
    }

    private func emitHTTP3(_ e: HTTP3Assembler.Exchange, conversation u: UDPConversation) {
        let d = u.clientDirection ?? u.firstSender
        let client = u.endpoint(d), server = u.endpoint(1 - d)
        func regular(_ fields: [QPACKDecoder.Field]) -> HTTPHeaders {
            HTTPHeaders(fields.filter { !$0.name.hasPrefix(":") }.map { HTTPField(name: $0.name, valueBytes: $0.value) })
        }
        let http3 = HTTPVersion(major: 3, minor: 0)
        let m = e.request
        let head = HTTPRequestHead(method: m.field(":method") ?? "", target: m.field(":path") ?? m.field(":authority") ?? "", version: http3,
                                   headers: regular(m.fields))
        let req = HTTPRequest(head: head, scheme: m.field(":scheme") ?? "https", fallbackAuthority: m.field(":authority") ?? server.description,
                              body: m.body, bodyTruncated: m.bodyLength > m.body.count || !m.complete)
        var resp: HTTPResponse?
        var timings = FlowTimings(started: Date(timeIntervalSince1970: m.started), send: max(0, (m.ended - m.started) * 1000))
        if let r = e.response, let status = r.field(":status").flatMap({ Int($0) }) {
            resp = HTTPResponse(head: HTTPResponseHead(version: http3, status: status, headers: regular(r.fields)), body: r.body,
                                bodyTruncated: r.bodyLength > r.body.count || !r.complete)
            timings.wait = max(0, (r.started - m.ended) * 1000)
            timings.receive = max(0, (r.ended - r.started) * 1000)
        }
        let problems = [m.problem.map { "request: \($0)" }, e.response?.problem.map { "response: \($0)" }].compactMap { $0 }
        statistics.httpRequests += 1
        if resp != nil { statistics.httpResponses += 1 }
        var flow = Flow(id: nextFlowID, source: .pcap, transport: .https, request: req, response: resp, timings: timings,
                        client: client, server: server, error: problems.isEmpty ? nil : problems.joined(separator: "; "))
        flow.tls = TLSFacts(serverName: u.quic?.clientHello?.serverName, alpn: u.alpn.map { [$0] } ?? [], version: "TLSv1.3")
        flow.isDecryptedFromCapture = true
        flow.extras["_transport"] = "\"quic\""
        nextFlowID += 1
        u.httpFlows += 1
        destinations.record(host: req.host.isEmpty ? server.address : req.host, address: server.address, transport: "quic", flows: 1)
        publish(flow)
    }

    private func closeUDP(_ u: UDPConversation) {
        if let quic = u.quic { finishQUIC(quic, conversation: u) }
        let server = u.serverDirection
        let address = u.key.address(server)
        let host = namesByAddress[address] ?? address.description
        destinations.record(host: host, address: address.description, transport: u.isQUIC ? "quic" : "other",
                            flows: u.httpFlows > 0 ? 0 : 1, bytes: u.bytes, quicInitials: u.initials)
    }

    private func timeText(_ t: Double) -> String {
        String(format: "t=%.6f", t)
    }
}

/// A UDP conversation (other than DNS): QUIC when a client sent an Initial, else `other`.
final class UDPConversation {
    let key: ConnectionKey
    let firstSender: Int
    var clientDirection: Int?
    var isQUIC = false
    var initials = 0
    var version: UInt32 = 0
    var bytes = 0
    var lastSeen: Double
    /// Position in the capture (first seen), for a deterministic closing order.
    let order: Int
    /// With keys: the QUIC decryptor, the HTTP/3 reader of its streams, the ALPN, the flows given.
    var quic: QUICConnectionDecryptor?
    var http3: HTTP3Assembler?
    var alpn: String?
    var httpFlows = 0

    init(key: ConnectionKey, firstSender: Int, time: Double, order: Int) {
        self.key = key
        self.order = order
        self.firstSender = firstSender
        self.lastSeen = time
    }

    func endpoint(_ d: Int) -> Endpoint {
        Endpoint(address: key.address(d).description, port: Int(key.port(d)))
    }

    /// The side that did not send the first Initial, else the lower port, else the first receiver.
    var serverDirection: Int {
        if let c = clientDirection { return 1 - c }
        if key.lowPort != key.highPort { return key.lowPort < key.highPort ? 0 : 1 }
        return 1 - firstSender
    }
}

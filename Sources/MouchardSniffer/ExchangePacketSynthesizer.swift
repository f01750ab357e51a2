import Foundation
import MouchardFlow
import MouchardWire

/// Packets for exchanges that were recorded without packets (proxy sessions): each flow becomes
/// one TCP connection between its client and server addresses (Ethernet, IPv4, TCP with valid
/// checksums: handshake, data segments, FIN), carrying the HTTP/1.1 bytes of the request and the
/// response. HTTPS flows travel as real TLS 1.2 records (`TLSExchangeSealer`) under fresh secrets
/// that `keyLog` lists, so Wireshark shows TLS with the HTTP decrypted inside, as it would for the
/// real connection; cleartext flows travel as is.
///
/// Endpoints that are not IPv4 literals (host names, IPv6) get documentation addresses
/// (192.0.2.x clients, 198.51.100.x / 203.0.113.x servers), one per name.
public struct ExchangePacketSynthesizer {
    public struct Packet: Sendable {
        public var timestamp: Double
        public var frame: [UInt8]
    }

    /// NSS key log lines for the synthesised TLS connections.
    public private(set) var keyLog = ""
    /// Flows with no request (TLS metadata only): nothing to write.
    public private(set) var skippedFlows = 0
    private var placeholders: [String: UInt32] = [:]
    private var nextClientPort = 0
    /// Client and server address and port of each connection synthesised so far.
    private var usedEndpoints: Set<[UInt64]> = []

    /// Client ports given when a flow has none or its own is taken: 40000 and up.
    static let ephemeralPorts = 20000
    /// Payload bytes per TCP segment (a 1500-byte Ethernet MTU).
    static let segmentPayload = 1448
    static let clientInitialSequence: UInt32 = 0x1000_0000
    static let serverInitialSequence: UInt32 = 0x2000_0000

    public init() {}

    /// The packets of one flow, in time order.
    public mutating func packets(for flow: Flow) -> [Packet] {
        guard let request = flow.request else {
            skippedFlows += 1
            return []
        }
        let https = flow.transport == .https || request.scheme == "https"
        let clientAddress = address(flow.client?.address, placeholderBase: 0xC000_0201)
        let serverAddress = address(flow.server?.address ?? request.host, placeholderBase: 0xC633_6401)
        var clientPort = UInt16(flow.client.map { $0.port > 0 && $0.port < 65536 ? $0.port : 0 } ?? 0).nonZero
            ?? UInt16(40000 + (nextClientPort % Self.ephemeralPorts))
        nextClientPort += 1
        let serverPort = UInt16(flow.server.map { $0.port > 0 && $0.port < 65536 ? $0.port : 0 } ?? 0).nonZero ?? (https ? 443 : 80)
        // Exchanges that shared one connection (keep-alive, HTTP/2 or HTTP/3 streams) become
        // connections of their own: each gets a client port not used yet with this server, so
        // that readers see separate TCP streams (the same ports and sequence numbers again
        // would read as one stream).
        var tries = 0
        while !usedEndpoints.insert([UInt64(clientAddress), UInt64(clientPort), UInt64(serverAddress), UInt64(serverPort)]).inserted,
              tries < Self.ephemeralPorts {
            clientPort = UInt16(40000 + (nextClientPort % Self.ephemeralPorts))
            nextClientPort += 1
            tries += 1
        }

        var requestBytes = Self.serialized(request)
        var responseBytes = flow.response.map { Self.serialized($0) } ?? []
        var clientFlight: [[UInt8]] = []
        var serverFlight: [[UInt8]] = []
        if https {
            var sealer = TLSExchangeSealer(serverName: request.host)
            keyLog += sealer.keyLogLine
            clientFlight.append(sealer.clientHello())
            serverFlight.append(sealer.serverHelloFlight())
            clientFlight.append(sealer.clientFinishedFlight())
            requestBytes = sealer.seal(requestBytes, fromClient: true)
            responseBytes = responseBytes.isEmpty ? [] : sealer.seal(responseBytes, fromClient: false)
        }

        let start = flow.timings.started.timeIntervalSince1970
        let sent = start + (flow.timings.send ?? 0) / 1000
        let answered = sent + (flow.timings.wait ?? 0) / 1000
        let done = answered + (flow.timings.receive ?? 0) / 1000
        var tcp = TCPFrameBuilder(client: clientAddress, clientPort: clientPort, server: serverAddress, serverPort: serverPort,
                                  clientSequence: Self.clientInitialSequence, serverSequence: Self.serverInitialSequence)
        var out: [Packet] = []
        let step = 0.000_01
        var t = start
        func emit(_ frame: [UInt8]) {
            out.append(Packet(timestamp: t, frame: frame))
            t += step
        }
        emit(tcp.frame(fromClient: true, flags: .syn, payload: []))
        emit(tcp.frame(fromClient: false, flags: [.syn, .ack], payload: []))
        emit(tcp.frame(fromClient: true, flags: .ack, payload: []))
        if https {
            for f in tcp.segments(fromClient: true, clientFlight[0]) { emit(f) }
            for f in tcp.segments(fromClient: false, serverFlight[0]) { emit(f) }
            for f in tcp.segments(fromClient: true, clientFlight[1]) { emit(f) }
        }
        t = max(t, sent)
        for f in tcp.segments(fromClient: true, requestBytes) { emit(f) }
        t = max(t, answered)
        for f in tcp.segments(fromClient: false, responseBytes) { emit(f) }
        t = max(t, done)
        emit(tcp.frame(fromClient: true, flags: [.fin, .ack], payload: []))
        emit(tcp.frame(fromClient: false, flags: [.fin, .ack], payload: []))
        emit(tcp.frame(fromClient: true, flags: .ack, payload: []))
        return out
    }

    /// An IPv4 literal as a number; anything else gets a documentation address, stable per name.
    private mutating func address(_ text: String?, placeholderBase: UInt32) -> UInt32 {
        if let text, let v = Self.ipv4(text) { return v }
        let key = "\(placeholderBase):\(text ?? "")"
        if let known = placeholders[key] { return known }
        let n = UInt32(placeholders.filter { $0.key.hasPrefix("\(placeholderBase):") }.count)
        let v = placeholderBase + n % 250
        placeholders[key] = v
        return v
    }

    static func ipv4(_ text: String) -> UInt32? {
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 4 else { return nil }
        var v: UInt32 = 0
        for p in parts {
            guard let b = UInt8(p) else { return nil }
            v = v << 8 | UInt32(b)
        }
        return v
    }

    /// HTTP/1.1 bytes of a recorded message: its head as recorded, framed by Content-Length over the
    /// body as stored (chunked framing and content length of the original are replaced).
    static func serialized(_ request: HTTPRequest) -> [UInt8] {
        var head = request.head
        head.headers = reframed(head.headers, bodyLength: request.body.count, always: !request.body.isEmpty)
        if head.version.major >= 2 {
            // An HTTP/2 or HTTP/3 exchange travels as HTTP/1.1 here: its authority becomes the Host header.
            head.version = .http11
            if head.headers["Host"] == nil, !request.authority.isEmpty {
                head.headers = HTTPHeaders([HTTPField(name: "Host", value: request.authority)] + head.headers.fields)
            }
        }
        var out: [UInt8] = []
        HTTPSerializer.appendHead(head, to: &out)
        out += request.body
        return out
    }

    static func serialized(_ response: HTTPResponse) -> [UInt8] {
        var head = response.head
        head.headers = reframed(head.headers, bodyLength: response.body.count, always: true)
        if head.version.major >= 2 { head.version = .http11 }
        // A HAR keeps bodies decoded under their original Content-Encoding: say what the bytes are.
        if head.headers["Content-Encoding"]?.lowercased() == "gzip", !response.body.starts(with: [0x1F, 0x8B]) {
            head.headers = HTTPHeaders(head.headers.fields.filter { $0.name.lowercased() != "content-encoding" })
        }
        var out: [UInt8] = []
        HTTPSerializer.appendHead(head, to: &out)
        out += response.body
        return out
    }

    private static func reframed(_ headers: HTTPHeaders, bodyLength: Int, always: Bool) -> HTTPHeaders {
        var fields = headers.fields.filter {
            let n = $0.name.lowercased()
            return n != "content-length" && n != "transfer-encoding"
        }
        if always || bodyLength > 0 { fields.append(HTTPField(name: "Content-Length", value: String(bodyLength))) }
        return HTTPHeaders(fields)
    }
}

extension UInt16 {
    fileprivate var nonZero: UInt16? { self == 0 ? nil : self }
}

/// Ethernet + IPv4 + TCP frames of one connection, sequence and acknowledgement numbers tracked.
struct TCPFrameBuilder {
    struct Flags: OptionSet {
        let rawValue: UInt8
        static let fin = Flags(rawValue: 0x01)
        static let syn = Flags(rawValue: 0x02)
        static let psh = Flags(rawValue: 0x08)
        static let ack = Flags(rawValue: 0x10)
    }

    let client: UInt32, clientPort: UInt16, server: UInt32, serverPort: UInt16
    var clientSequence: UInt32
    var serverSequence: UInt32
    private var ipIdentification: UInt16 = 1

    init(client: UInt32, clientPort: UInt16, server: UInt32, serverPort: UInt16, clientSequence: UInt32, serverSequence: UInt32) {
        self.client = client
        self.clientPort = clientPort
        self.server = server
        self.serverPort = serverPort
        self.clientSequence = clientSequence
        self.serverSequence = serverSequence
    }

    static let clientMAC: [UInt8] = [0x02, 0x00, 0x00, 0x00, 0x00, 0x01]
    static let serverMAC: [UInt8] = [0x02, 0x00, 0x00, 0x00, 0x00, 0x02]

    mutating func segments(fromClient: Bool, _ bytes: [UInt8]) -> [[UInt8]] {
        var out: [[UInt8]] = []
        var offset = 0
        while offset < bytes.count {
            let end = min(bytes.count, offset + ExchangePacketSynthesizer.segmentPayload)
            out.append(frame(fromClient: fromClient, flags: [.ack, .psh], payload: bytes[offset..<end]))
            offset = end
        }
        return out
    }

    mutating func frame(fromClient: Bool, flags: Flags, payload: ArraySlice<UInt8>) -> [UInt8] {
        let (src, dst, sport, dport) = fromClient ? (client, server, clientPort, serverPort) : (server, client, serverPort, clientPort)
        let seq = fromClient ? clientSequence : serverSequence
        let ack = flags.contains(.ack) ? (fromClient ? serverSequence : clientSequence) : 0
        let advance = UInt32(payload.count) + (flags.contains(.syn) || flags.contains(.fin) ? 1 : 0)
        if fromClient { clientSequence &+= advance } else { serverSequence &+= advance }

        var tcp: [UInt8] = []
        tcp.reserveCapacity(20 + payload.count)
        put16(sport, &tcp); put16(dport, &tcp)
        put32(seq, &tcp); put32(ack, &tcp)
        tcp.append(0x50)  // data offset 5 words
        tcp.append(flags.rawValue)
        put16(65535, &tcp)  // window
        put16(0, &tcp)      // checksum, below
        put16(0, &tcp)      // urgent
        tcp += payload
        var pseudo: [UInt8] = []
        put32(src, &pseudo); put32(dst, &pseudo)
        pseudo.append(0); pseudo.append(6)
        put16(UInt16(tcp.count), &pseudo)
        let tcpSum = Self.checksum(pseudo + tcp)
        tcp[16] = UInt8(tcpSum >> 8); tcp[17] = UInt8(tcpSum & 0xFF)

        var ip: [UInt8] = [0x45, 0]
        put16(UInt16(20 + tcp.count), &ip)
        put16(ipIdentification, &ip)
        ipIdentification &+= 1
        put16(0x4000, &ip)  // don't fragment
        ip.append(64); ip.append(6)
        put16(0, &ip)
        put32(src, &ip); put32(dst, &ip)
        let ipSum = Self.checksum(ip)
        ip[10] = UInt8(ipSum >> 8); ip[11] = UInt8(ipSum & 0xFF)

        var frame = fromClient ? Self.serverMAC + Self.clientMAC : Self.clientMAC + Self.serverMAC
        frame += [0x08, 0x00]
        frame += ip
        frame += tcp
        return frame
    }

    mutating func frame(fromClient: Bool, flags: Flags, payload: [UInt8]) -> [UInt8] {
        frame(fromClient: fromClient, flags: flags, payload: payload[...])
    }

    /// The Internet checksum (RFC 1071).
    static func checksum(_ bytes: [UInt8]) -> UInt16 {
        var sum: UInt32 = 0
        var i = 0
        while i + 1 < bytes.count {
            sum += UInt32(bytes[i]) << 8 | UInt32(bytes[i + 1])
            i += 2
        }
        if i < bytes.count { sum += UInt32(bytes[i]) << 8 }
        while sum >> 16 != 0 { sum = (sum & 0xFFFF) + (sum >> 16) }
        return ~UInt16(sum)
    }

    private func put16(_ v: UInt16, _ out: inout [UInt8]) { out.append(UInt8(v >> 8)); out.append(UInt8(v & 0xFF)) }
    private func put32(_ v: UInt32, _ out: inout [UInt8]) { for s in [24, 16, 8, 0] { out.append(UInt8(truncatingIfNeeded: v >> UInt32(s))) } }
}

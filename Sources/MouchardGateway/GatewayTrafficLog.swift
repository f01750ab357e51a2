import Foundation
import MouchardFlow
import MouchardProxy
import MouchardTLS
import MouchardWire

/// The part of the phone's traffic no other layer records as a flow, taken from the phone-side
/// capture: TCP connections to ports that are not redirected and that carry neither HTTP nor TLS
/// (those are flows of the capture's HTTP/TLS extraction), and every UDP conversation (DNS, QUIC,
/// anything else). Each becomes one `tls-metadata` flow without a request: endpoints, bytes each
/// way, a protocol guess from the first bytes, and for QUIC the SNI and ALPN of the ClientHello
/// read from the client's Initial packets (their keys derive from the connection ID: RFC 9001 §5).
///
/// Pure apart from time (packets carry their own): packets in, flows out through `onFlow`.
public final class GatewayTrafficLog {
    public var onFlow: ((Flow) -> Void)?
    /// Ports the transparent listener handles (its flows come from the proxy).
    public let redirectedPorts: Set<Int>
    /// A conversation silent for this long is over.
    public let idleSeconds: Double
    /// Conversations followed at once; beyond it the oldest are emitted early.
    public let maxConversations: Int

    struct Key: Hashable {
        var client: IPAddress
        var clientPort: UInt16
        var server: IPAddress
        var serverPort: UInt16
        var tcp: Bool
    }

    final class Conversation {
        let key: Key
        let started: Double
        var lastSeen: Double
        var bytesUp = 0
        var bytesDown = 0
        var clientPrefix: [UInt8] = []
        var serverPrefix: [UInt8] = []
        var serverSpokeFirst = false
        var finSeen: (client: Bool, server: Bool) = (false, false)
        var quic = false
        var serverName: String?
        var alpn: [String] = []
        /// The client's CRYPTO stream, until its ClientHello is read (or given up on).
        var crypto: QUICCryptoStream?
        var initialsRead = 0

        init(key: Key, time: Double) {
            self.key = key
            started = time
            lastSeen = time
        }
    }

    private var conversations: [Key: Conversation] = [:]
    private var lastSweep: Double = 0
    static let prefixLength = 16

    public init(redirectedPorts: [Int], idleSeconds: Double = 30, maxConversations: Int = 20_000) {
        self.redirectedPorts = Set(redirectedPorts)
        self.idleSeconds = idleSeconds
        self.maxConversations = maxConversations
    }

    /// Follows one packet. Returns true when it belongs to a TCP connection on a redirected port:
    /// the transparent proxy records those, so no other layer needs to parse it.
    @discardableResult
    public func process(_ packet: CapturedPacket) -> Bool {
        guard let link = LinkLayerDecoder.decode(packet.data, linkType: packet.linkType) else { return false }
        let source: IPAddress, destination: IPAddress, proto: UInt8, payload: ArraySlice<UInt8>
        switch link.network {
        case .ipv4:
            guard let ip = IPv4Packet(link.bytes), !ip.isFragment else { return false }
            (source, destination, proto, payload) = (ip.source, ip.destination, ip.protocolNumber, ip.payload)
        case .ipv6:
            guard let ip = IPv6Packet(link.bytes), !ip.isFragment else { return false }
            (source, destination, proto, payload) = (ip.source, ip.destination, ip.protocolNumber, ip.payload)
        case .other, .wifi:
            return false
        }
        let time = packet.timestamp
        if time - lastSweep > 1 {
            sweep(before: time - idleSeconds)
            lastSweep = time
        }
        switch proto {
        case 6:
            guard let tcp = TCPSegment(payload) else { return false }
            if redirectedPorts.contains(Int(tcp.destinationPort)) || redirectedPorts.contains(Int(tcp.sourcePort)) { return true }
            handleTCP(tcp, source: source, destination: destination, time: time)
        case 17:
            guard let udp = UDPDatagram(payload) else { return false }
            handleUDP(udp, source: source, destination: destination, time: time)
        default:
            break
        }
        return false
    }

    /// Emits every conversation still open (end of capture).
    public func finish() { sweep(before: .infinity) }

    private func handleTCP(_ tcp: TCPSegment, source: IPAddress, destination: IPAddress, time: Double) {
        let forward = Key(client: source, clientPort: tcp.sourcePort, server: destination, serverPort: tcp.destinationPort, tcp: true)
        let backward = Key(client: destination, clientPort: tcp.destinationPort, server: source, serverPort: tcp.sourcePort, tcp: true)
        var conversation = conversations[forward]
        var fromClient = true
        if conversation == nil, let c = conversations[backward] {
            conversation = c
            fromClient = false
        }
        if conversation == nil {
            // Only a connection seen from its SYN, to a port the proxy does not handle.
            guard tcp.flags.contains(.syn), !tcp.flags.contains(.ack),
                  !redirectedPorts.contains(Int(tcp.destinationPort)) else { return }
            conversation = open(forward, time: time)
        }
        guard let c = conversation else { return }
        note(c, payload: tcp.payload, fromClient: fromClient, time: time)
        if tcp.flags.contains(.fin) {
            if fromClient { c.finSeen.client = true } else { c.finSeen.server = true }
        }
        if tcp.flags.contains(.rst) || (c.finSeen.client && c.finSeen.server) { emit(c) }
    }

    private func handleUDP(_ udp: UDPDatagram, source: IPAddress, destination: IPAddress, time: Double) {
        let forward = Key(client: source, clientPort: 0, server: destination, serverPort: udp.destinationPort, tcp: false)
        let backward = Key(client: destination, clientPort: 0, server: source, serverPort: udp.sourcePort, tcp: false)
        var fromClient = true
        var conversation = conversations[forward]
        if conversation == nil, let c = conversations[backward] {
            conversation = c
            fromClient = false
        }
        let c = conversation ?? open(forward, time: time)
        if fromClient, c.bytesUp == 0, QUICInitialPacket(udp.payload) != nil {
            c.quic = true
            c.crypto = QUICCryptoStream()
        }
        if fromClient, c.quic, c.crypto != nil { readClientHello(c, udp.payload) }
        note(c, payload: udp.payload, fromClient: fromClient, time: time)
    }

    /// Initials read per conversation for its ClientHello (a post-quantum one spans two or three).
    static let maxInitialsRead = 8

    private func readClientHello(_ c: Conversation, _ datagram: ArraySlice<UInt8>) {
        guard let opened = QUICInitialProtection.openClientInitial(datagram) else { return }
        c.initialsRead += 1
        c.crypto?.add(frames: opened.payload)
        if let hello = c.crypto?.clientHello {
            c.serverName = hello.serverName
            c.alpn = hello.alpn
            c.crypto = nil
        } else if c.initialsRead >= Self.maxInitialsRead {
            c.crypto = nil
        }
    }

    private func open(_ key: Key, time: Double) -> Conversation {
        if conversations.count >= maxConversations {
            for c in conversations.values.sorted(by: { $0.lastSeen < $1.lastSeen }).prefix(maxConversations / 10) { emit(c) }
        }
        let c = Conversation(key: key, time: time)
        conversations[key] = c
        return c
    }

    private func note(_ c: Conversation, payload: ArraySlice<UInt8>, fromClient: Bool, time: Double) {
        c.lastSeen = time
        guard !payload.isEmpty else { return }
        if fromClient {
            c.bytesUp += payload.count
            if c.clientPrefix.count < Self.prefixLength { c.clientPrefix += payload.prefix(Self.prefixLength - c.clientPrefix.count) }
        } else {
            if c.bytesUp == 0 { c.serverSpokeFirst = true }
            c.bytesDown += payload.count
            if c.serverPrefix.count < Self.prefixLength { c.serverPrefix += payload.prefix(Self.prefixLength - c.serverPrefix.count) }
        }
    }

    private func sweep(before limit: Double) {
        for c in conversations.values.filter({ $0.lastSeen < limit }).sorted(by: { $0.started < $1.started }) { emit(c) }
    }

    private func emit(_ c: Conversation) {
        guard conversations.removeValue(forKey: c.key) != nil else { return }
        let guess = Self.protocolGuess(c)
        // HTTP and TLS over TCP are flows of the capture's extraction already.
        if c.key.tcp && (guess == "http" || guess == "tls") { return }
        let server = Endpoint(address: c.key.server.description, port: Int(c.key.serverPort))
        var flow = Flow(id: 0, source: .pcap, transport: .tlsMetadata,
                        timings: FlowTimings(started: Date(timeIntervalSince1970: c.started),
                                             receive: max(0, (c.lastSeen - c.started) * 1000)),
                        client: Endpoint(address: c.key.client.description, port: Int(c.key.clientPort)), server: server,
                        tls: c.quic ? TLSFacts(serverName: c.serverName, alpn: c.alpn, version: "QUIC") : nil)
        flow.extras["_transport"] = "\"\(c.quic ? "quic" : (c.key.tcp ? "tcp" : "udp"))\""
        flow.extras["_protocol"] = "\"\(guess)\""
        flow.extras["_bytesUp"] = String(c.bytesUp)
        flow.extras["_bytesDown"] = String(c.bytesDown)
        onFlow?(flow)
    }

    /// A name for what the conversation spoke (the proxy's first-bytes guesses, plus UDP ones).
    static func protocolGuess(_ c: Conversation) -> String {
        if c.quic { return "quic" }
        if !c.key.tcp {
            if c.key.serverPort == 53 { return "dns" }
            if c.key.serverPort == 123 { return "ntp" }
            if c.key.serverPort == 443 { return "udp/443" }
            return "udp"
        }
        if c.bytesUp == 0 && c.bytesDown == 0 { return "no data" }
        return FirstBytes.protocolGuess(client: c.clientPrefix, server: c.serverPrefix, serverSpokeFirst: c.serverSpokeFirst)
    }
}

import MouchardCodec
import MouchardWire

/// Decrypts one QUIC connection seen in a capture (RFC 9000, RFC 9001), sans I/O: the UDP
/// payloads of each direction go in (`datagram`), events come out: the connection's keys found,
/// then the STREAM data each side sent.
///
/// Initial packets open with keys every observer can derive (the client's first Destination
/// Connection ID); their CRYPTO frames give the ClientHello (client random, server name, offered
/// ALPN) and the ServerHello (suite). Handshake and 1-RTT packets open with the TLS 1.3 traffic
/// secrets of the key log (`CLIENT_/SERVER_HANDSHAKE_TRAFFIC_SECRET`,
/// `CLIENT_/SERVER_TRAFFIC_SECRET_0`), found by client random; key updates (`quic ku`) are
/// followed. Packets that arrive before their keys are held (bounded) and opened when the keys
/// come (a later key log line). 0-RTT packets are counted, not opened.
final class QUICConnectionDecryptor {
    enum Event {
        /// 1-RTT keys found; the ALPN the server chose (EncryptedExtensions), else the client's first offer.
        case established(alpn: String?)
        case stream(direction: Int, id: UInt64, offset: UInt64, data: ArraySlice<UInt8>, fin: Bool, time: Double)
    }

    struct Counters {
        var packetsDecrypted = 0
        /// Packets that did not open under their keys (damaged, or a wrong secret).
        var packetsFailed = 0
        /// Packets whose header could not be read, or whose frames were malformed.
        var packetsMalformed = 0
        var zeroRTTPackets = 0
    }

    let clientDirection: Int
    private let keys: TLSKeyStore
    private(set) var clientHello: TLSClientHello?
    private(set) var serverHello: TLSServerHello?
    private(set) var counters = Counters()
    /// Why this connection is not decrypted; nil while all is well.
    private(set) var failure: String?
    private(set) var established = false
    private(set) var alpn: String?

    private var version = QUICInitialPacket.version1
    private var initial: [QUICPacketProtection?] = [nil, nil]
    private var handshake: [QUICPacketProtection?] = [nil, nil]
    private var application: [QUICPacketProtection?] = [nil, nil]
    /// Length of the Destination Connection ID in short headers sent in each direction (the
    /// receiver's Source Connection ID, from its long headers); nil until seen.
    private var connectionIDLength: [Int?] = [nil, nil]
    private var initialCrypto = [QUICOrderedBytes(), QUICOrderedBytes()]
    private var handshakeCrypto = [QUICOrderedBytes(), QUICOrderedBytes()]
    private var initialMessages = [TLSHandshakeReassembler(), TLSHandshakeReassembler()]
    private var handshakeMessages = [TLSHandshakeReassembler(), TLSHandshakeReassembler()]
    private var keysResolved = false
    private var keysGeneration = -1
    /// Packets waiting for keys: direction, the datagram from the packet's first byte, time.
    private var held: [(direction: Int, bytes: [UInt8], time: Double)] = []
    private var heldBytes = 0
    private var events: [Event] = []

    static let maxHeldBytes = 4 << 20

    init(clientDirection: Int, keys: TLSKeyStore) {
        self.clientDirection = clientDirection
        self.keys = keys
    }

    private var serverDirection: Int { 1 - clientDirection }

    // MARK: - Input

    /// One UDP payload of direction `d`; returns the events it caused.
    func datagram(direction d: Int, bytes: ArraySlice<UInt8>, time: Double) -> [Event] {
        if !keysResolved, serverHello != nil, keys.generation != keysGeneration { resolveKeys(time: time) }
        packets(direction: d, bytes: Array(bytes)[...], time: time)
        return takeEvents()
    }

    /// Looks again for keys that were missing, and opens what waited for them.
    func retry(time: Double) -> [Event] {
        if !keysResolved, serverHello != nil, keys.generation != keysGeneration { resolveKeys(time: time) }
        return takeEvents()
    }

    /// The connection ended: a connection whose keys never came gets its reason.
    func finish() {
        guard failure == nil, !established else { return }
        if clientHello == nil {
            failure = "no QUIC ClientHello seen (capture started mid-connection)"
        } else if serverHello == nil {
            failure = "no ServerHello seen (the handshake did not complete in the capture)"
        } else {
            failure = "no key for client random \(shortHex(clientHello?.random ?? []))"
        }
    }

    private func takeEvents() -> [Event] {
        defer { events.removeAll(keepingCapacity: true) }
        return events
    }

    private func packets(direction d: Int, bytes: ArraySlice<UInt8>, time: Double) {
        var offset = 0
        while offset < bytes.count {
            // A short header's connection ID length is known once the receiver's long headers were seen.
            guard let header = QUICPacketHeader.parse(bytes, at: offset, shortHeaderConnectionIDLength: connectionIDLength[d] ?? 0) else {
                // Zero bytes after the last packet pad the datagram (some stacks pad that way); anything else is malformed.
                if bytes.dropFirst(offset).contains(where: { $0 != 0 }) { counters.packetsMalformed += 1 }
                return
            }
            let rest = bytes[(bytes.startIndex + offset)...]
            offset = header.end
            switch header.kind {
            case .initial:
                initialPacket(header, bytes, direction: d, time: time)
            case .handshake:
                guard handshake[d] != nil else { hold(d, rest, time); return }
                protectedPacket(header, bytes, direction: d, space: .handshake, time: time)
            case .oneRTT:
                guard application[d] != nil, connectionIDLength[d] != nil else { hold(d, rest, time); return }
                protectedPacket(header, bytes, direction: d, space: .application, time: time)
            case .zeroRTT:
                counters.zeroRTTPackets += 1
            case .retry, .versionNegotiation:
                return
            }
        }
    }

    private func hold(_ d: Int, _ bytes: ArraySlice<UInt8>, _ time: Double) {
        guard heldBytes + bytes.count <= QUICConnectionDecryptor.maxHeldBytes else {
            if failure == nil {
                failure = "no key for client random \(shortHex(clientHello?.random ?? [])) (more than \(QUICConnectionDecryptor.maxHeldBytes >> 20) MiB of packets waited for it)"
            }
            return
        }
        held.append((d, Array(bytes), time))
        heldBytes += bytes.count
    }

    // MARK: - Initial packets and the handshake in the clear

    private func initialPacket(_ header: QUICPacketHeader, _ bytes: ArraySlice<UInt8>, direction d: Int, time: Double) {
        if initial[clientDirection] == nil {
            guard d == clientDirection else { return }  // a server Initial before any client one: not ours to read
            version = header.version
            initial[clientDirection] = QUICPacketProtection.initial(destinationConnectionID: header.destinationConnectionID,
                                                                    version: version, client: true)
            initial[serverDirection] = QUICPacketProtection.initial(destinationConnectionID: header.destinationConnectionID,
                                                                    version: version, client: false)
        }
        // Short headers sent to this side carry the connection ID it chose (its Source Connection ID).
        if connectionIDLength[1 - d] == nil { connectionIDLength[1 - d] = header.sourceConnectionID.count }
        guard let frames = open(header, bytes, direction: d, space: .initial) else { return }
        for case .crypto(let offset, let data) in frames {
            initialCrypto[d].add(offset: offset, data: data)
        }
        initialMessages[d].append(initialCrypto[d].takeContiguous()[...])
        while let message = initialMessages[d].next() {
            handshakeMessage(message.type, message.body, direction: d, time: time)
        }
    }

    private func handshakeMessage(_ type: UInt8, _ body: ArraySlice<UInt8>, direction d: Int, time: Double) {
        if type == 1, d == clientDirection, clientHello == nil {
            var whole: [UInt8] = [type, UInt8(body.count >> 16 & 0xFF), UInt8(body.count >> 8 & 0xFF), UInt8(body.count & 0xFF)]
            whole += body
            clientHello = TLSClientHello.parse(handshakeMessage: whole[...])
        } else if type == 2, d == serverDirection, serverHello == nil {
            guard let hello = try? TLSServerHello.parse(body: body), !hello.isHelloRetryRequest else { return }
            serverHello = hello
            resolveKeys(time: time)
        } else if type == 8, d == serverDirection {
            if let chosen = TLSServerHello.alpn(encryptedExtensions: body) { alpn = chosen }
        }
    }

    // MARK: - Keys

    private func resolveKeys(time: Double) {
        keysGeneration = keys.generation
        guard !keysResolved, failure == nil, let ch = clientHello, let sh = serverHello else { return }
        guard let suite = TLSCipherSuite.named(sh.cipherSuite), suite.isTLS13 else {
            failure = "unsupported cipher suite 0x\(String(sh.cipherSuite, radix: 16)) for QUIC"
            return
        }
        guard let secrets = keys.secrets(clientRandom: ch.random),
              let client = secrets[.clientTrafficSecret0], let server = secrets[.serverTrafficSecret0] else { return }
        for s in [client, server] + [secrets[.clientHandshakeTrafficSecret], secrets[.serverHandshakeTrafficSecret]].compactMap({ $0 })
        where s.count != suite.hash.length {
            failure = "key log secret of \(s.count) bytes for \(suite.name) (expected \(suite.hash.length))"
            return
        }
        keysResolved = true
        application[clientDirection] = QUICPacketProtection(suite: suite, secret: client, version: version)
        application[serverDirection] = QUICPacketProtection(suite: suite, secret: server, version: version)
        if let c = secrets[.clientHandshakeTrafficSecret] {
            handshake[clientDirection] = QUICPacketProtection(suite: suite, secret: c, version: version)
        }
        if let s = secrets[.serverHandshakeTrafficSecret] {
            handshake[serverDirection] = QUICPacketProtection(suite: suite, secret: s, version: version)
        }
        // Replay what waited, in order; Handshake packets first give the ALPN.
        let waiting = held
        held = []
        heldBytes = 0
        for w in waiting where handshakeFirst(w.bytes) { packets(direction: w.direction, bytes: w.bytes[...], time: w.time) }
        announce()
        for w in waiting where !handshakeFirst(w.bytes) { packets(direction: w.direction, bytes: w.bytes[...], time: w.time) }
    }

    private func handshakeFirst(_ bytes: [UInt8]) -> Bool { (bytes.first ?? 0) & 0x80 != 0 }

    private func announce() {
        guard !established, keysResolved else { return }
        established = true
        events.append(.established(alpn: alpn ?? clientHello?.alpn.first))
    }

    // MARK: - Protected packets

    private enum Space { case initial, handshake, application }

    private func protectedPacket(_ header: QUICPacketHeader, _ bytes: ArraySlice<UInt8>, direction d: Int, space: Space, time: Double) {
        guard let frames = open(header, bytes, direction: d, space: space) else { return }
        for frame in frames {
            switch frame {
            case .crypto(let offset, let data) where space == .handshake:
                handshakeCrypto[d].add(offset: offset, data: data)
                handshakeMessages[d].append(handshakeCrypto[d].takeContiguous()[...])
                while let message = handshakeMessages[d].next() {
                    handshakeMessage(message.type, message.body, direction: d, time: time)
                }
            case .stream(let id, let offset, let data, let fin) where space == .application:
                if !established { announce() }
                events.append(.stream(direction: d, id: id, offset: offset, data: data, fin: fin, time: time))
            default:
                break
            }
        }
    }

    /// Opens a packet with its space's keys (1-RTT: trying the next key phase when it fails) and
    /// returns its frames; nil when it does not open.
    private func open(_ header: QUICPacketHeader, _ bytes: ArraySlice<UInt8>, direction d: Int, space: Space) -> [QUICFrame]? {
        var opened: QUICPacketProtection.Opened?
        switch space {
        case .initial:
            opened = initial[d]?.open(bytes, header)
            if let o = opened { initial[d]?.accept(o.packetNumber) }
        case .handshake:
            opened = handshake[d]?.open(bytes, header)
            if let o = opened { handshake[d]?.accept(o.packetNumber) }
        case .application:
            opened = application[d]?.open(bytes, header)
            if opened == nil, var next = application[d]?.updated(version: version) {
                next.largest = application[d]?.largest
                if let o = next.open(bytes, header) {
                    opened = o
                    application[d] = next
                }
            }
            if let o = opened { application[d]?.accept(o.packetNumber) }
        }
        guard let o = opened else {
            counters.packetsFailed += 1
            return nil
        }
        counters.packetsDecrypted += 1
        let parsed = QUICFrame.frames(in: o.payload[...])
        if parsed.malformed { counters.packetsMalformed += 1 }
        return parsed.frames
    }
}

/// Bytes of a stream given as (offset, data) pieces in any order, handed out in order once
/// contiguous. Bounded: pieces beyond `maxAhead` of the next expected offset are dropped.
struct QUICOrderedBytes {
    private(set) var next: UInt64 = 0
    private var pieces: [UInt64: ArraySlice<UInt8>] = [:]
    private var heldBytes = 0
    private var ready: [UInt8] = []

    static let maxAhead = 1 << 20

    mutating func add(offset: UInt64, data: ArraySlice<UInt8>) {
        let end = offset + UInt64(data.count)
        guard end > next else { return }  // a retransmission of what was delivered
        if offset <= next {
            ready += data.dropFirst(Int(next - offset))
            next = end
            while let (o, piece) = pieces.first(where: { $0.key <= next }) {
                pieces[o] = nil
                heldBytes -= piece.count
                let pieceEnd = o + UInt64(piece.count)
                if pieceEnd > next {
                    ready += piece.dropFirst(Int(next - o))
                    next = pieceEnd
                }
            }
        } else if offset - next <= UInt64(QUICOrderedBytes.maxAhead), heldBytes + data.count <= QUICOrderedBytes.maxAhead,
                  pieces[offset].map({ $0.count < data.count }) ?? true {
            heldBytes += data.count - (pieces[offset]?.count ?? 0)
            pieces[offset] = data
        }
    }

    /// The bytes that became contiguous since the last call.
    mutating func takeContiguous() -> [UInt8] {
        defer { ready = [] }
        return ready
    }
}

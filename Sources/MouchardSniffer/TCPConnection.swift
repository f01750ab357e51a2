import MouchardFlow
import MouchardMessages
import MouchardWire

/// Everything tracked for one TCP connection: both directions' reassembly, what application
/// protocol each direction speaks (decided by content, on any port), the HTTP requests waiting for
/// their responses, and what the destination summary needs.
final class TCPConnection {
    /// What a direction's bytes turned out to be.
    enum DirectionProtocol {
        /// Not decided yet: the first bytes are kept until they say.
        case undetermined([UInt8])
        case http(HTTPStreamParser)
        /// DNS over TCP: 2-byte length-prefixed messages.
        case dns([UInt8])
        /// WebSocket frames after a 101 (`webSocket` reads both directions).
        case webSocket
        /// HTTP/2 frames (`http2` reads both directions).
        case http2
        /// Not interesting (encrypted after the ClientHello, unknown protocol): bytes only counted.
        case ignored
    }

    let key: ConnectionKey
    var reassemblers = [TCPDirectionReassembler(), TCPDirectionReassembler()]
    var protocols: [DirectionProtocol] = [.undetermined([]), .undetermined([])]
    var ended = [false, false]
    /// Direction 0 or 1 that opened the connection (sent the SYN), when known.
    var clientDirection: Int?
    /// Requests waiting for a response, oldest first, with the direction they travelled.
    var pendingRequests: [HTTPStreamParser.Message] = []
    var requestDirection: Int?
    var sawTLS = false
    var sawHTTP = false
    /// The direction that opened a SOCKS5 handshake, and per direction whether the handshake is behind.
    var socksClient: Int?
    var socksDone = [false, false]
    /// Cleartext HTTP/2 (prior-knowledge preface or h2c upgrade) was seen.
    var sawH2C = false
    /// The WebSocket the connection switched to: its upgrade exchange, held back to be emitted with
    /// the messages, and the conversation reading the frames.
    var webSocket: CapturedWebSocket?
    /// The HTTP/2 decoder of a cleartext h2 or decrypted h2 connection.
    var http2: HTTP2CaptureDecoder?
    var httpFlows = 0
    var tlsFlows = 0
    /// First HTTP Host or SNI, to name the destination.
    var hostName: String?
    /// TLS with keys to try: the decryptor both directions' bytes go through, the ClientHello, what
    /// the handshake chose, and whether the handshake's metadata flow is still to be emitted.
    var tls: TLSConnectionDecryptor?
    var tlsHello: TLSClientHello?
    var negotiation: TLSConnectionDecryptor.Negotiation?
    var payloadBytes = 0
    let firstSeen: Double
    var lastSeen: Double
    var closed = false
    /// When the connection was closed (capture time), for removing its tombstone.
    var closedAt: Double = 0

    /// Position in the capture (first seen), for a deterministic closing order.
    let order: Int

    init(key: ConnectionKey, time: Double, order: Int) {
        self.key = key
        self.order = order
        self.firstSeen = time
        self.lastSeen = time
    }

    /// The server side: the side that did not send the SYN, else the side that received the
    /// request, else the lower port.
    var serverDirection: Int {
        if let c = clientDirection { return 1 - c }
        if let r = requestDirection { return 1 - r }
        return key.lowPort < key.highPort ? 0 : 1
    }

    func endpoint(_ d: Int) -> Endpoint {
        Endpoint(address: key.address(d).description, port: Int(key.port(d)))
    }
}

/// A WebSocket in a capture: the upgrade's request and 101, and both directions' frames.
final class CapturedWebSocket {
    let request: HTTPStreamParser.Message
    let response: HTTPStreamParser.Message
    let conversation: WebSocketConversation
    /// Why the frames stopped being read (a gap, a frame breaking the protocol).
    var stopped: String?

    init(request: HTTPStreamParser.Message, response: HTTPStreamParser.Message, conversation: WebSocketConversation) {
        self.request = request
        self.response = response
        self.conversation = conversation
    }
}

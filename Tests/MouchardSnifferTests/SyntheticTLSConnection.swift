import MouchardCodec
import MouchardTestSupport
import MouchardWire

@testable import MouchardSniffer

/// A TLS connection made up for the hostile-input tests, deterministic from its seed: both
/// directions' bytes (ClientHello and ServerHello in the clear, then records protected as a real
/// peer protects them), the key log lines that open them, and the application data each side
/// sent, record by record. TLS 1.3 (EncryptedExtensions with ALPN, Finished both ways, a
/// NewSessionTicket, and a KeyUpdate from the client halfway) and TLS 1.2 (ChangeCipherSpec,
/// Finished, explicit GCM nonces) with each AEAD suite the decryptor reads.
struct SyntheticTLSConnection {
    enum Kind: CaseIterable, Sendable {
        case tls13AES128, tls13AES256, tls13ChaCha, tls12AES128, tls12AES256, tls12ChaCha

        var code: UInt16 {
            switch self {
            case .tls13AES128: 0x1301
            case .tls13AES256: 0x1302
            case .tls13ChaCha: 0x1303
            case .tls12AES128: 0xC02F
            case .tls12AES256: 0xC030
            case .tls12ChaCha: 0xCCA8
            }
        }
    }

    static let serverName = "fuzz.example.test"
    static let idfa = "6D92078A-8246-4BA4-AE5B-76104861E7DC"

    let kind: Kind
    let suite: TLSCipherSuite
    private(set) var client: [UInt8] = []
    private(set) var server: [UInt8] = []
    private(set) var keyLog = ""
    /// The application data of each record, per side, in order.
    private(set) var clientRecords: [[UInt8]] = []
    private(set) var serverRecords: [[UInt8]] = []
    /// The HTTP requests sent (`METHOD /path?query`).
    private(set) var requests: [String] = []
    /// Protected records of each side (handshake ones included).
    private(set) var protectedRecords = 0

    init(_ kind: Kind, seed: UInt64, requestCount: Int = 3) {
        self.kind = kind
        // The table knows every kind's suite.
        suite = TLSCipherSuite.named(kind.code)!
        var random = SplitMix64(seed: seed)
        func bytes(_ n: Int) -> [UInt8] { (0..<n).map { _ in UInt8(truncatingIfNeeded: random.next()) } }
        let clientRandom = bytes(32), serverRandom = bytes(32), sessionID = bytes(32)
        client += Self.record(22, Self.handshake(1, clientHelloBody(random: clientRandom, sessionID: sessionID)))
        server += Self.record(22, Self.handshake(2, serverHelloBody(random: serverRandom, sessionID: sessionID)))

        var requestTexts: [[UInt8]] = []
        var responseTexts: [[UInt8]] = []
        for i in 0..<requestCount {
            let path = "/r\(i)?idfa=\(Self.idfa)&n=\(random.below(1000))"
            requests.append("GET \(path)")
            requestTexts.append(Array("GET \(path) HTTP/1.1\r\nHost: \(Self.serverName)\r\nX-IDFA: \(Self.idfa)\r\n\r\n".utf8))
            let body = bytes(50 + random.below(3000))
            responseTexts.append(Array("HTTP/1.1 200 OK\r\nContent-Length: \(body.count)\r\n\r\n".utf8) + body)
        }

        if suite.isTLS13 {
            let h = suite.hash.length
            let secrets = (clientHandshake: bytes(h), serverHandshake: bytes(h), client: bytes(h), server: bytes(h))
            for (label, secret) in [("CLIENT_HANDSHAKE_TRAFFIC_SECRET", secrets.clientHandshake),
                                    ("SERVER_HANDSHAKE_TRAFFIC_SECRET", secrets.serverHandshake),
                                    ("CLIENT_TRAFFIC_SECRET_0", secrets.client), ("SERVER_TRAFFIC_SECRET_0", secrets.server)] {
                keyLog += "\(label) \(hexString(clientRandom)) \(hexString(secret))\n"
            }
            server += Self.record(20, [1])
            var serverSealer = Sealer(suite: suite, trafficSecret: secrets.serverHandshake)
            let alpn = Array("http/1.1".utf8)
            let alpnExtension: [UInt8] = [0x00, 0x10] + Self.u16(alpn.count + 3) + Self.u16(alpn.count + 1) + [UInt8(alpn.count)] + alpn
            let flight = Self.handshake(8, Self.u16(alpnExtension.count) + alpnExtension) + Self.handshake(20, bytes(h))
            server += seal(&serverSealer, type: 22, flight)
            client += Self.record(20, [1])
            var clientSealer = Sealer(suite: suite, trafficSecret: secrets.clientHandshake)
            client += seal(&clientSealer, type: 22, Self.handshake(20, bytes(h)))
            clientSealer = Sealer(suite: suite, trafficSecret: secrets.client)
            serverSealer = Sealer(suite: suite, trafficSecret: secrets.server)
            server += seal(&serverSealer, type: 22, Self.handshake(4, bytes(40)))  // NewSessionTicket
            var clientSecret = secrets.client
            for (i, request) in requestTexts.enumerated() {
                if i == requestTexts.count / 2 && i > 0 {
                    // KeyUpdate (RFC 8446 §4.6.3): the client's next records use the next secret.
                    client += seal(&clientSealer, type: 22, Self.handshake(24, [0]))
                    clientSecret = TLSKeyDerivation.expandLabel(suite.hash, secret: clientSecret, label: "traffic upd", length: h)
                    clientSealer = Sealer(suite: suite, trafficSecret: clientSecret)
                }
                client += application(&clientSealer, request, fromClient: true, random: &random)
                server += application(&serverSealer, responseTexts[i], fromClient: false, random: &random)
            }
        } else {
            let master = bytes(48)
            keyLog += "CLIENT_RANDOM \(hexString(clientRandom)) \(hexString(master))\n"
            let keyLength = suite.algorithm.keyLength, ivLength = suite.fixedIVLength
            let block = TLSKeyDerivation.prf(suite.hash, secret: master, label: "key expansion", seed: serverRandom + clientRandom,
                                             length: 2 * keyLength + 2 * ivLength)
            var clientSealer = Sealer(suite: suite, key: Array(block[0..<keyLength]),
                                      iv: Array(block[(2 * keyLength)..<(2 * keyLength + ivLength)]))
            var serverSealer = Sealer(suite: suite, key: Array(block[keyLength..<(2 * keyLength)]),
                                      iv: Array(block[(2 * keyLength + ivLength)...]))
            client += Self.record(22, Self.handshake(16, [32] + bytes(32)))  // ClientKeyExchange
            client += Self.record(20, [1])
            client += seal(&clientSealer, type: 22, Self.handshake(20, bytes(12)))
            server += Self.record(20, [1])
            server += seal(&serverSealer, type: 22, Self.handshake(20, bytes(12)))
            for (i, request) in requestTexts.enumerated() {
                client += application(&clientSealer, request, fromClient: true, random: &random)
                server += application(&serverSealer, responseTexts[i], fromClient: false, random: &random)
            }
        }
    }

    /// The plaintext of each side, all records joined.
    var clientPlaintext: [UInt8] { clientRecords.flatMap { $0 } }
    var serverPlaintext: [UInt8] { serverRecords.flatMap { $0 } }

    private mutating func seal(_ sealer: inout Sealer, type: UInt8, _ plaintext: [UInt8]) -> [UInt8] {
        protectedRecords += 1
        return sealer.seal(type: type, plaintext)
    }

    /// `text` as application data records of random sizes (at least 1 byte each).
    private mutating func application(_ sealer: inout Sealer, _ text: [UInt8], fromClient: Bool,
                                      random: inout SplitMix64) -> [UInt8] {
        var out: [UInt8] = []
        var offset = 0
        while offset < text.count {
            let n = min(text.count - offset, 1 + random.below(1200))
            let piece = Array(text[offset..<(offset + n)])
            out += seal(&sealer, type: 23, piece)
            if fromClient { clientRecords.append(piece) } else { serverRecords.append(piece) }
            offset += n
        }
        return out
    }

    private func clientHelloBody(random: [UInt8], sessionID: [UInt8]) -> [UInt8] {
        var body: [UInt8] = [3, 3] + random + [UInt8(sessionID.count)] + sessionID
        body += [0, 2] + Self.u16(Int(kind.code)) + [1, 0]
        let name = Array(Self.serverName.utf8)
        let list: [UInt8] = Self.u16(name.count + 3) + [0] + Self.u16(name.count) + name
        let extensions: [UInt8] = [0, 0] + Self.u16(list.count) + list
        return body + Self.u16(extensions.count) + extensions
    }

    private func serverHelloBody(random: [UInt8], sessionID: [UInt8]) -> [UInt8] {
        var body: [UInt8] = [3, 3] + random + [UInt8(sessionID.count)] + sessionID + Self.u16(Int(kind.code)) + [0]
        let extensions: [UInt8] = suite.isTLS13 ? [0, 43, 0, 2, 3, 4] : []  // supported_versions: TLS 1.3
        body += Self.u16(extensions.count) + extensions
        return body
    }

    static func handshake(_ type: UInt8, _ body: [UInt8]) -> [UInt8] {
        [type, UInt8(body.count >> 16 & 0xFF), UInt8(body.count >> 8 & 0xFF), UInt8(body.count & 0xFF)] + body
    }

    static func record(_ type: UInt8, _ fragment: [UInt8]) -> [UInt8] { [type, 3, 3] + u16(fragment.count) + fragment }

    static func u16(_ n: Int) -> [UInt8] { [UInt8(n >> 8 & 0xFF), UInt8(n & 0xFF)] }

    static func be64(_ n: UInt64) -> [UInt8] { (0..<8).map { UInt8(truncatingIfNeeded: n >> (56 - 8 * UInt64($0))) } }

    /// Record protection as the sending peer does it (RFC 8446 §5.2, RFC 5288, RFC 7905).
    struct Sealer {
        let suite: TLSCipherSuite
        let cipher: AEADCipher
        let iv: [UInt8]
        var sequence: UInt64 = 0

        init(suite: TLSCipherSuite, key: [UInt8], iv: [UInt8]) {
            self.suite = suite
            cipher = AEADCipher(suite.algorithm, key: key)!
            self.iv = iv
        }

        init(suite: TLSCipherSuite, trafficSecret: [UInt8]) {
            self.init(suite: suite, key: TLSKeyDerivation.expandLabel(suite.hash, secret: trafficSecret, label: "key",
                                                                     length: suite.algorithm.keyLength),
                      iv: TLSKeyDerivation.expandLabel(suite.hash, secret: trafficSecret, label: "iv", length: 12))
        }

        mutating func seal(type: UInt8, _ plaintext: [UInt8]) -> [UInt8] {
            defer { sequence += 1 }
            let sequenceBytes = SyntheticTLSConnection.be64(sequence)
            if suite.isTLS13 {
                let inner = plaintext + [type]
                let header: [UInt8] = [23, 3, 3] + SyntheticTLSConnection.u16(inner.count + AEADCipher.tagLength)
                var nonce = iv
                for i in 0..<8 { nonce[4 + i] ^= sequenceBytes[i] }
                return header + cipher.seal(nonce: nonce, additionalData: header, plaintext: inner[...])
            }
            let aad = sequenceBytes + [type, 3, 3] + SyntheticTLSConnection.u16(plaintext.count)
            if suite.explicitNonceLength > 0 {
                let sealed = cipher.seal(nonce: iv + sequenceBytes, additionalData: aad, plaintext: plaintext[...])
                return SyntheticTLSConnection.record(type, sequenceBytes + sealed)
            }
            var nonce = iv
            for i in 0..<8 { nonce[4 + i] ^= sequenceBytes[i] }
            return SyntheticTLSConnection.record(type, cipher.seal(nonce: nonce, additionalData: aad, plaintext: plaintext[...]))
        }
    }
}

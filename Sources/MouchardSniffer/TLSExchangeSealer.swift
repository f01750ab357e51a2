import MouchardCodec
import MouchardWire

/// The TLS 1.2 records of one synthesised connection (see `ExchangePacketSynthesizer`): an
/// abbreviated handshake (ClientHello with SNI and ALPN http/1.1, ServerHello resuming its
/// session id with TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256, ChangeCipherSpec and Finished both
/// ways), then application data sealed with AES-128-GCM under a fresh random master secret, which
/// `keyLogLine` gives as a `CLIENT_RANDOM` line. The Finished messages are not verifiable (there
/// was no real handshake); decryptors (Wireshark, Mouchard) do not check them.
struct TLSExchangeSealer {
    static let suite: UInt16 = 0xC02F
    static let maxFragment = 1 << 14

    let clientRandom: [UInt8]
    let serverRandom: [UInt8]
    let sessionID: [UInt8]
    let masterSecret: [UInt8]
    let serverName: String
    private var client: TLSRecordSealer
    private var server: TLSRecordSealer

    init(serverName: String) {
        var rng = SystemRandomNumberGenerator()
        func random(_ n: Int) -> [UInt8] { (0..<n).map { _ in UInt8.random(in: 0...255, using: &rng) } }
        clientRandom = random(32)
        serverRandom = random(32)
        sessionID = random(32)
        masterSecret = random(48)
        self.serverName = serverName
        let block = TLSKeyDerivation.prf(.sha256, secret: masterSecret, label: "key expansion", seed: serverRandom + clientRandom,
                                         length: 2 * 16 + 2 * 4)
        // Keys are fresh and valid: the cipher cannot be refused.
        client = TLSRecordSealer(key: Array(block[0..<16]), salt: Array(block[32..<36]))!
        server = TLSRecordSealer(key: Array(block[16..<32]), salt: Array(block[36..<40]))!
    }

    var keyLogLine: String { NSSKeyLog.lines(clientRandom: clientRandom, secrets: secretsValue) }

    private var secretsValue: NSSKeyLog.Secrets {
        var s = NSSKeyLog.Secrets()
        s.values[.clientRandom] = masterSecret
        return s
    }

    func clientHello() -> [UInt8] {
        var body: [UInt8] = [0x03, 0x03] + clientRandom + [UInt8(sessionID.count)] + sessionID
        body += [0x00, 0x02, UInt8(Self.suite >> 8), UInt8(Self.suite & 0xFF), 0x01, 0x00]
        var extensions: [UInt8] = []
        let name = Array(serverName.utf8)
        if !name.isEmpty, ExchangePacketSynthesizer.ipv4(serverName) == nil, name.count < 256 {
            var list: [UInt8] = [0x00] + Self.u16(name.count) + name
            list = Self.u16(list.count) + list
            extensions += [0x00, 0x00] + Self.u16(list.count) + list
        }
        extensions += Self.alpnExtension
        body += Self.u16(extensions.count) + extensions
        return Self.record(22, Self.handshake(1, body))
    }

    /// ServerHello (resuming), ChangeCipherSpec and the server's Finished.
    mutating func serverHelloFlight() -> [UInt8] {
        var body: [UInt8] = [0x03, 0x03] + serverRandom + [UInt8(sessionID.count)] + sessionID
        body += [UInt8(Self.suite >> 8), UInt8(Self.suite & 0xFF), 0x00]
        body += Self.u16(Self.alpnExtension.count) + Self.alpnExtension
        var out = Self.record(22, Self.handshake(2, body))
        out += Self.record(20, [0x01])
        out += server.seal(type: 22, Self.handshake(20, [UInt8](repeating: 0, count: 12)))
        return out
    }

    /// The client's ChangeCipherSpec and Finished.
    mutating func clientFinishedFlight() -> [UInt8] {
        Self.record(20, [0x01]) + client.seal(type: 22, Self.handshake(20, [UInt8](repeating: 0, count: 12)))
    }

    /// Application data records carrying `bytes`.
    mutating func seal(_ bytes: [UInt8], fromClient: Bool) -> [UInt8] {
        var out: [UInt8] = []
        var offset = 0
        while offset < bytes.count {
            let end = min(bytes.count, offset + Self.maxFragment)
            let chunk = Array(bytes[offset..<end])
            out += fromClient ? client.seal(type: 23, chunk) : server.seal(type: 23, chunk)
            offset = end
        }
        return out
    }

    static let alpnExtension: [UInt8] = {
        let proto = Array("http/1.1".utf8)
        let list = [UInt8(proto.count)] + proto
        return [0x00, 0x10] + u16(list.count + 2) + u16(list.count) + list
    }()

    static func handshake(_ type: UInt8, _ body: [UInt8]) -> [UInt8] {
        [type, UInt8(body.count >> 16 & 0xFF), UInt8(body.count >> 8 & 0xFF), UInt8(body.count & 0xFF)] + body
    }

    static func record(_ type: UInt8, _ fragment: [UInt8]) -> [UInt8] {
        [type, 0x03, 0x03] + u16(fragment.count) + fragment
    }

    static func u16(_ n: Int) -> [UInt8] { [UInt8(n >> 8 & 0xFF), UInt8(n & 0xFF)] }
}

/// TLS 1.2 AES-GCM record sealing for one direction (RFC 5288): the explicit nonce is the
/// sequence number.
struct TLSRecordSealer {
    let cipher: AEADCipher
    let salt: [UInt8]
    var sequence: UInt64 = 0

    init?(key: [UInt8], salt: [UInt8]) {
        guard let c = AEADCipher(.aes128GCM, key: key) else { return nil }
        cipher = c
        self.salt = salt
    }

    mutating func seal(type: UInt8, _ plaintext: [UInt8]) -> [UInt8] {
        var explicit: [UInt8] = []
        for i in 0..<8 { explicit.append(UInt8(truncatingIfNeeded: sequence >> (56 - 8 * UInt64(i)))) }
        let aad = explicit + [type, 0x03, 0x03] + TLSExchangeSealer.u16(plaintext.count)
        let sealed = cipher.seal(nonce: salt + explicit, additionalData: aad, plaintext: plaintext[...])
        sequence += 1
        return TLSExchangeSealer.record(type, explicit + sealed)
    }
}

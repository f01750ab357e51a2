/// What a TLS ClientHello tells about an encrypted connection: the server name (SNI), the
/// application protocols offered (ALPN) and the highest version offered.
public struct TLSClientHello: Sendable, Hashable {
    public var serverName: String?
    public var alpn: [String]
    /// The highest offered version (from supported_versions when present): 0x0304 is TLS 1.3.
    public var version: UInt16

    public var versionName: String { TLSClientHello.versionName(version) }

    public static func versionName(_ v: UInt16) -> String {
        switch v {
        case 0x0304: return "TLSv1.3"
        case 0x0303: return "TLSv1.2"
        case 0x0302: return "TLSv1.1"
        case 0x0301: return "TLSv1.0"
        case 0x0300: return "SSLv3"
        default: return String(format4hex: v)
        }
    }

    /// The result of looking at the first bytes a client sent.
    public enum Outcome: Sendable, Hashable {
        /// Not TLS (or not a ClientHello).
        case notTLS
        /// Starts like a ClientHello; more bytes are needed (it may span records and segments).
        case needMore
        case clientHello(TLSClientHello)
        /// A ClientHello whose inside is inconsistent: why and where in the stream.
        case malformed(reason: String, offset: Int)
    }

    /// A ClientHello larger than this is treated as malformed (real ones are < 2 KB, < 16 KB with PQ keys).
    public static let maxHelloLength = 64 * 1024

    /// Looks at the start of a client's byte stream: gathers the handshake message from one or more
    /// TLS records and parses it.
    public static func parse(stream: ArraySlice<UInt8>) -> Outcome {
        guard let type = stream.u8(at: 0) else { return .needMore }
        guard type == 22 else { return .notTLS }
        guard let major = stream.u8(at: 1) else { return .needMore }
        guard major == 3 else { return .notTLS }
        var handshake: [UInt8] = []
        var offset = 0
        var needed: Int?
        while true {
            guard let ct = stream.u8(at: offset), let recLen = stream.be16(at: offset + 3) else { return .needMore }
            guard ct == 22, stream.u8(at: offset + 1) == 3 else {
                return .malformed(reason: "handshake interrupted by record type \(ct)", offset: offset)
            }
            guard let body = stream.field(at: offset + 5, length: Int(recLen)) else {
                // Take what is there of this record: the hello may be complete before the record is.
                if let partial = stream.tail(from: offset + 5) { handshake.append(contentsOf: partial) }
                if let n = needed ?? helloLength(handshake), handshake.count >= n {
                    return parseHandshake(handshake[...])
                }
                return .needMore
            }
            handshake.append(contentsOf: body)
            offset += 5 + Int(recLen)
            if needed == nil {
                guard let first = handshake.first else { continue }
                guard first == 1 else { return .notTLS }
                needed = helloLength(handshake)
            }
            if let n = needed {
                if n > maxHelloLength + 4 { return .malformed(reason: "ClientHello of \(n) bytes", offset: 0) }
                if handshake.count >= n { return parseHandshake(handshake[...]) }
            }
        }
    }

    /// Handshake header: type(1) length(3); total length including the header.
    static func helloLength(_ h: [UInt8]) -> Int? {
        guard h.count >= 4 else { return nil }
        return 4 + (Int(h[1]) << 16 | Int(h[2]) << 8 | Int(h[3]))
    }

    /// Parses a handshake message that starts with a ClientHello header.
    static func parseHandshake(_ h: ArraySlice<UInt8>) -> Outcome {
        guard h.u8(at: 0) == 1, let total = helloLength(Array(h.prefix(4))),
              let body = h.field(at: 4, length: total - 4) else { return .notTLS }
        guard var version = body.be16(at: 0) else { return .malformed(reason: "no version", offset: 0) }
        var o = 2 + 32
        guard let sidLen = body.u8(at: o) else { return .malformed(reason: "cut before session id", offset: o) }
        o += 1 + Int(sidLen)
        guard let csLen = body.be16(at: o) else { return .malformed(reason: "cut before cipher suites", offset: o) }
        o += 2 + Int(csLen)
        guard let cmLen = body.u8(at: o) else { return .malformed(reason: "cut before compression methods", offset: o) }
        o += 1 + Int(cmLen)
        var hello = TLSClientHello(serverName: nil, alpn: [], version: version)
        guard let extLen = body.be16(at: o) else { return .clientHello(hello) }  // no extensions (old clients)
        o += 2
        guard let exts = body.field(at: o, length: Int(extLen)) else {
            return .malformed(reason: "extensions cut", offset: o)
        }
        var e = 0
        while e + 4 <= exts.count {
            guard let et = exts.be16(at: e), let el = exts.be16(at: e + 2),
                  let data = exts.field(at: e + 4, length: Int(el)) else {
                return .malformed(reason: "extension cut", offset: o + e)
            }
            switch et {
            case 0:  // server_name: list(2) { type(1) len(2) name }
                var i = 2
                while let nt = data.u8(at: i), let nl = data.be16(at: i + 1), let name = data.field(at: i + 3, length: Int(nl)) {
                    if nt == 0 { hello.serverName = decodeFieldText(name).lowercased(); break }
                    i += 3 + Int(nl)
                }
            case 16:  // ALPN: list(2) { len(1) proto }
                var i = 2
                while let pl = data.u8(at: i), let p = data.field(at: i + 1, length: Int(pl)) {
                    hello.alpn.append(decodeFieldText(p))
                    i += 1 + Int(pl)
                }
            case 43:  // supported_versions: len(1) { version(2) }
                if let n = data.u8(at: 0) {
                    var i = 1
                    var best: UInt16 = 0
                    while i + 2 <= 1 + Int(n), let v = data.be16(at: i) {
                        // GREASE values look like 0x?A?A.
                        if v & 0x0F0F != 0x0A0A { best = max(best, v) }
                        i += 2
                    }
                    if best != 0 { version = best }
                }
            default:
                break
            }
            e += 4 + Int(el)
        }
        hello.version = version
        return .clientHello(hello)
    }
}

extension String {
    /// `0x1234` for unknown 16-bit codes.
    init(format4hex v: UInt16) {
        let digits = String(v, radix: 16)
        self = "0x" + String(repeating: "0", count: Swift.max(0, 4 - digits.count)) + digits
    }
}

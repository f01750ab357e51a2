/// What a TLS ClientHello tells about an encrypted connection: the server name (SNI), the
/// application protocols offered (ALPN) and the highest version offered.
public struct TLSClientHello: Sendable, Hashable {
    public var serverName: String?
    public var alpn: [String]
    /// The highest offered version (from supported_versions when present): 0x0304 is TLS 1.3.
    public var version: UInt16
    /// The 32-byte client random: what key logs name a connection by.
    public var random: [UInt8] = []
    /// The legacy session id (TLS 1.2 resumption by id echoes it).
    public var sessionID: [UInt8] = []
    /// The client offered 0-RTT data (early_data extension).
    public var offersEarlyData = false

    public init(serverName: String?, alpn: [String], version: UInt16) {
        self.serverName = serverName
        self.alpn = alpn
        self.version = version
    }

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

    /// Parses a handshake message that starts with a ClientHello header (with `ByteReader`: every
    /// length is checked against what its parent holds).
    static func parseHandshake(_ h: ArraySlice<UInt8>) -> Outcome {
        var r = ByteReader(h)
        do throws(ByteReaderError) {
            guard try r.readUInt8() == 1 else { return .notTLS }
            var body = try r.readReader(count: Int(try r.readUInt24()))
            var version = try body.readUInt16()
            let random = Array(try body.readBytes(32))
            let sessionID = Array(try body.readBytes(Int(try body.readUInt8())))
            try body.skip(Int(try body.readUInt16()))     // cipher suites
            try body.skip(Int(try body.readUInt8()))      // compression methods
            var hello = TLSClientHello(serverName: nil, alpn: [], version: version)
            hello.random = random
            hello.sessionID = sessionID
            if body.isAtEnd { return .clientHello(hello) }  // no extensions (old clients)
            var extensions = try body.readReader(count: Int(try body.readUInt16()))
            while !extensions.isAtEnd {
                let type = try extensions.readUInt16()
                var data = try extensions.readReader(count: Int(try extensions.readUInt16()))
                switch type {
                case 0: hello.serverName = try serverName(in: &data)
                case 16: hello.alpn = try alpnProtocols(in: &data)
                case 43: if let best = try highestVersion(in: &data) { version = best }
                case 42: hello.offersEarlyData = true
                default:
                    break
                }
            }
            hello.version = version
            return .clientHello(hello)
        } catch {
            return .malformed(reason: error.description, offset: error.offset)
        }
    }
}

extension TLSClientHello {
    /// The host name of a server_name extension body (RFC 6066 §3), lower-cased; nil when absent.
    public static func serverName<C: Collection>(extensionData: C) -> String? where C.Element == UInt8 {
        var reader = ByteReader(Array(extensionData))
        return try? serverName(in: &reader)
    }

    /// The protocol names of an ALPN extension body (RFC 7301 §3.1), in the client's order.
    public static func alpnProtocols<C: Collection>(extensionData: C) -> [String] where C.Element == UInt8 {
        var reader = ByteReader(Array(extensionData))
        return (try? alpnProtocols(in: &reader)) ?? []
    }

    /// The highest non-GREASE version of a supported_versions extension body (RFC 8446 §4.2.1).
    public static func highestVersion<C: Collection>(extensionData: C) -> UInt16? where C.Element == UInt8 {
        var reader = ByteReader(Array(extensionData))
        return try? highestVersion(in: &reader)
    }

    static func serverName(in data: inout ByteReader) throws(ByteReaderError) -> String? {
        var list = try data.readReader(count: Int(try data.readUInt16()))
        while !list.isAtEnd {
            let nameType = try list.readUInt8()
            let name = try list.readBytes(Int(try list.readUInt16()))
            if nameType == 0 { return decodeFieldText(name).lowercased() }
        }
        return nil
    }

    static func alpnProtocols(in data: inout ByteReader) throws(ByteReaderError) -> [String] {
        var list = try data.readReader(count: Int(try data.readUInt16()))
        var protocols: [String] = []
        while !list.isAtEnd, protocols.count < 64 {
            let length = Int(try list.readUInt8())
            if length == 0 { break }  // RFC 7301: names are never empty; stop at a malformed entry
            protocols.append(decodeFieldText(try list.readBytes(length)))
        }
        return protocols
    }

    static func highestVersion(in data: inout ByteReader) throws(ByteReaderError) -> UInt16? {
        var list = try data.readReader(count: Int(try data.readUInt8()))
        var best: UInt16 = 0
        while !list.isAtEnd {
            let v = try list.readUInt16()
            if v & 0x0F0F != 0x0A0A { best = max(best, v) }  // GREASE values look like 0x?A?A
        }
        return best == 0 ? nil : best
    }
}

extension String {
    /// `0x1234` for unknown 16-bit codes.
    init(format4hex v: UInt16) {
        let digits = String(v, radix: 16)
        self = "0x" + String(repeating: "0", count: Swift.max(0, 4 - digits.count)) + digits
    }
}

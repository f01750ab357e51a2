/// What the phone's ClientHello asked for: the SNI (the host it wants) and its ALPN offer.
/// Parsed from the raw extensions with bounds checks; an absent or malformed field is nil/empty.
public struct TLSClientHello: Sendable, Equatable {
    /// server_name (host_name type), lower-cased; nil if absent or not printable ASCII.
    public var serverName: String?
    /// ALPN protocol names in the client's order (e.g. ["h2", "http/1.1"]).
    public var alpnProtocols: [String]

    public init(serverName: String?, alpnProtocols: [String]) {
        self.serverName = serverName
        self.alpnProtocols = alpnProtocols
    }

    /// Parses the body of a server_name extension (RFC 6066 §3).
    static func parseServerName(_ bytes: UnsafeBufferPointer<UInt8>) -> String? {
        guard bytes.count >= 2 else { return nil }
        let listLength = Int(bytes[0]) << 8 | Int(bytes[1])
        var offset = 2
        let end = min(bytes.count, 2 + listLength)
        while offset + 3 <= end {
            let type = bytes[offset]
            let length = Int(bytes[offset + 1]) << 8 | Int(bytes[offset + 2])
            offset += 3
            guard offset + length <= end else { return nil }
            if type == 0 {
                let name = Array(bytes[offset..<offset + length])
                guard !name.isEmpty, name.count <= 255, name.allSatisfy({ $0 > 0x20 && $0 < 0x7F }) else { return nil }
                return String(decoding: name, as: UTF8.self).lowercased()
            }
            offset += length
        }
        return nil
    }

    /// Parses the body of an ALPN extension (RFC 7301 §3.1).
    static func parseALPN(_ bytes: UnsafeBufferPointer<UInt8>) -> [String] {
        guard bytes.count >= 2 else { return [] }
        let listLength = Int(bytes[0]) << 8 | Int(bytes[1])
        let end = min(bytes.count, 2 + listLength)
        var offset = 2
        var protocols: [String] = []
        while offset < end, protocols.count < 32 {
            let length = Int(bytes[offset])
            offset += 1
            guard length > 0, offset + length <= end else { break }
            protocols.append(String(decoding: bytes[offset..<offset + length], as: UTF8.self))
            offset += length
        }
        return protocols
    }
}

/// ALPN names in wire format (length-prefixed), as OpenSSL wants them.
func alpnWireFormat(_ protocols: [String]) -> [UInt8] {
    var wire: [UInt8] = []
    for name in protocols {
        let bytes = Array(name.utf8)
        guard !bytes.isEmpty, bytes.count < 256 else { continue }
        wire.append(UInt8(bytes.count))
        wire += bytes
    }
    return wire
}

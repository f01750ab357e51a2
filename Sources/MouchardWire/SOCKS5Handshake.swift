/// The SOCKS5 handshake (RFC 1928, with RFC 1929 user/password) at the start of a proxied TCP
/// stream, measured so that what follows (often HTTP) can be read: each function says how many
/// bytes the handshake takes in one direction, `needMore` while it is incomplete, or `notSOCKS`.
public enum SOCKS5Handshake {
    public enum Length: Sendable, Equatable {
        case complete(Int)
        case needMore
        case notSOCKS
    }

    static let version: UInt8 = 5
    static let userPasswordVersion: UInt8 = 1
    /// A greeting offers at most this many methods in practice (the field allows 255).
    static let maxMethods = 16

    /// True when `bytes` start like a client greeting: version 5, 1 to 16 methods, each a known one.
    public static func looksLikeGreeting(_ bytes: ArraySlice<UInt8>) -> Bool {
        guard bytes.u8(at: 0) == version, let n = bytes.u8(at: 1), n >= 1, Int(n) <= maxMethods else { return false }
        for k in 0..<Int(n) {
            guard let m = bytes.u8(at: 2 + k) else { return true }  // not all here yet
            if m > 0x09 && m < 0x80 { return false }
        }
        return true
    }

    /// Client side: greeting, optional user/password sub-negotiation, CONNECT request.
    public static func clientLength(_ bytes: ArraySlice<UInt8>) -> Length {
        guard looksLikeGreeting(bytes), let n = bytes.u8(at: 1) else { return bytes.count < 2 ? .needMore : .notSOCKS }
        var offset = 2 + Int(n)
        guard let next = bytes.u8(at: offset) else { return .needMore }
        if next == userPasswordVersion {
            guard let ulen = bytes.u8(at: offset + 1) else { return .needMore }
            guard let plen = bytes.u8(at: offset + 2 + Int(ulen)) else { return .needMore }
            offset += 3 + Int(ulen) + Int(plen)
        }
        guard bytes.u8(at: offset) != nil else { return .needMore }
        guard bytes.u8(at: offset) == version else { return .notSOCKS }
        return addressed(bytes, at: offset)
    }

    /// Server side: method choice, optional user/password status, reply.
    public static func serverLength(_ bytes: ArraySlice<UInt8>) -> Length {
        guard let v = bytes.u8(at: 0) else { return .needMore }
        guard v == version else { return .notSOCKS }
        guard let method = bytes.u8(at: 1) else { return .needMore }
        var offset = 2
        if method == 0x02 {
            guard let sub = bytes.u8(at: 2) else { return .needMore }
            guard sub == userPasswordVersion else { return .notSOCKS }
            offset = 4
        }
        guard let reply = bytes.u8(at: offset) else { return bytes.count >= offset ? .needMore : .notSOCKS }
        guard reply == version else { return .notSOCKS }
        return addressed(bytes, at: offset)
    }

    /// A request or reply at `offset`: version, command/status, reserved, address type, address, port.
    static func addressed(_ bytes: ArraySlice<UInt8>, at offset: Int) -> Length {
        guard let type = bytes.u8(at: offset + 3) else { return .needMore }
        let address: Int
        switch type {
        case 1: address = 4
        case 4: address = 16
        case 3:
            guard let n = bytes.u8(at: offset + 4) else { return .needMore }
            address = 1 + Int(n)
        default: return .notSOCKS
        }
        let end = offset + 4 + address + 2
        return bytes.count >= end ? .complete(end) : .needMore
    }
}

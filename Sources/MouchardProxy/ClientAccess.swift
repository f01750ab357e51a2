import Foundation
import MouchardPosix
import MouchardWire

/// Who may use the proxy (`--allow-client`, `--proxy-auth`): the client networks a connection may
/// come from, checked when it is accepted (a refused client is closed unread), and optional Basic
/// credentials every request on the proxy connection must carry (RFC 9110 §11.7.2, 407 otherwise).
/// Loopback is not special: `mouchard proxy` puts the loopback network in the default list when it
/// listens on every interface (a client on this machine reaching a LAN address comes from that address).
public struct ClientAccess: Sendable {
    /// An address block such as `192.168.1.0/24` or `fd00::/8`.
    public struct Network: Sendable, Hashable, CustomStringConvertible {
        public let bytes: [UInt8]
        public let prefixLength: Int

        /// `ADDRESS/PREFIX`, or a single address (the whole length); nil when it is neither.
        public init?(cidr text: String) {
            let parts = text.split(separator: "/", omittingEmptySubsequences: false)
            guard parts.count <= 2, let address = SocketAddress(ip: String(parts[0]), port: 0) else { return nil }
            let bytes = address.addressBytes
            let length = parts.count == 2 ? Int(parts[1]) : bytes.count * 8
            guard let length, (0...bytes.count * 8).contains(length), parts.count == 1 || !parts[1].isEmpty else { return nil }
            self.init(bytes: bytes, prefixLength: length)
        }

        public init(bytes: [UInt8], prefixLength: Int) {
            var masked = bytes
            for i in masked.indices { masked[i] &= Self.maskByte(index: i, prefixLength: prefixLength) }
            self.bytes = masked
            self.prefixLength = prefixLength
        }

        public func contains(_ address: SocketAddress) -> Bool {
            let other = address.unmapped.addressBytes
            guard other.count == bytes.count else { return false }
            return other.indices.allSatisfy { other[$0] & Self.maskByte(index: $0, prefixLength: prefixLength) == bytes[$0] }
        }

        static func maskByte(index: Int, prefixLength: Int) -> UInt8 {
            let bits = max(0, min(8, prefixLength - index * 8))
            return bits == 0 ? 0 : UInt8(truncatingIfNeeded: 0xFF << (8 - bits))
        }

        public var description: String {
            let ip = bytes.count == 4 ? bytes.map(String.init).joined(separator: ".") : Self.ipv6Text(bytes)
            return "\(ip)/\(prefixLength)"
        }

        /// RFC 5952 text: lowercase hex groups, the longest run of two or more zero groups as `::`.
        private static func ipv6Text(_ bytes: [UInt8]) -> String {
            let groups = (0..<8).map { UInt16(bytes[$0 * 2]) << 8 | UInt16(bytes[$0 * 2 + 1]) }
            var best = (start: -1, length: 0)
            var i = 0
            while i < 8 {
                var j = i
                while j < 8 && groups[j] == 0 { j += 1 }
                if j - i > best.length && j - i >= 2 { best = (i, j - i) }
                i = max(j, i + 1)
            }
            let hex = groups.map { String($0, radix: 16) }
            guard best.start >= 0 else { return hex.joined(separator: ":") }
            return hex[0..<best.start].joined(separator: ":") + "::" + hex[(best.start + best.length)...].joined(separator: ":")
        }
    }

    /// Networks clients may come from; empty = any address.
    public var networks: [Network]
    /// `USER:PASS` every request must present in `Proxy-Authorization: Basic`; nil = no authentication.
    public var credentials: String?
    /// The realm named in `Proxy-Authenticate`.
    public static let realm = "mouchard"

    public init(networks: [Network] = [], credentials: String? = nil) {
        self.networks = networks
        self.credentials = credentials
    }

    /// True when a connection from `address` may be served.
    public func allows(_ address: SocketAddress) -> Bool {
        networks.isEmpty || networks.contains { $0.contains(address) }
    }

    /// True when the request carries the credentials (or none are required).
    public func authorizes(_ headers: HTTPHeaders) -> Bool {
        guard let credentials else { return true }
        let expected = Data(credentials.utf8).base64EncodedString()
        return headers.values(for: "Proxy-Authorization").contains { value in
            let words = value.split(separator: " ", omittingEmptySubsequences: true)
            return words.count == 2 && words[0].lowercased() == "basic" && words[1] == Substring(expected)
        }
    }

    /// The 407 a request without valid credentials gets.
    public static var authenticationRequired: LocalResponse {
        LocalResponse(status: 407, reason: "Proxy Authentication Required",
                      body: Array("mouchard: this proxy needs a user name and password (Proxy-Authorization: Basic)\n".utf8),
                      extraHeaders: [("Proxy-Authenticate", "Basic realm=\"\(realm)\", charset=\"UTF-8\"")])
    }
}

/// What a transparently intercepted connection speaks, decided from its first bytes (the client's,
/// or the server's when the client waits for a banner), and a short name for the recorded flow.
/// Pure: bytes in, a verdict out.
public enum FirstBytes {
    /// How the session should carry a connection whose client sent `bytes` so far.
    public enum Verdict: Sendable, Equatable {
        /// Too few bytes to tell.
        case needMore
        /// A TLS handshake record: intercepted (or tunneled when ignored or pinned).
        case tls
        /// An HTTP/1 request line: parsed like proxy traffic.
        case http
        /// Anything else: tunneled untouched to the original destination.
        case opaque
    }

    /// HTTP/1 request methods recognised on a transparent connection (RFC 9110 §9 plus PATCH).
    static let methods: [[UInt8]] = ["GET", "HEAD", "POST", "PUT", "DELETE", "OPTIONS", "TRACE", "PATCH"].map { Array($0.utf8) }
    /// The longest method plus its space: past this many bytes without a match it is not HTTP.
    static let longestMethod = 8
    static let tlsHandshakeRecord: UInt8 = 0x16

    public static func classify<C: Collection>(client bytes: C) -> Verdict where C.Element == UInt8 {
        guard let first = bytes.first else { return .needMore }
        if first == tlsHandshakeRecord {
            guard bytes.count >= 2 else { return .needMore }
            // Record layer version: 3.x (SSL 3.0 to TLS 1.3 all send 0x03 here).
            return bytes[bytes.index(after: bytes.startIndex)] == 0x03 ? .tls : .opaque
        }
        let head = Array(bytes.prefix(longestMethod))
        var couldStillMatch = false
        for m in methods {
            let token = m + [0x20]
            if head.count >= token.count {
                if Array(head.prefix(token.count)) == token { return .http }
            } else if Array(token.prefix(head.count)) == head {
                couldStillMatch = true
            }
        }
        return couldStillMatch ? .needMore : .opaque
    }

    /// A protocol name for the record from the first bytes each side sent (empty = none):
    /// `tls`, `http`, `http2` (prior knowledge), `ssh`, `smtp/ftp` (a `220` banner), `pop3`,
    /// `imap`, `mqtt`, or `unknown`. `server-first` tells a protocol where the server spoke first.
    public static func protocolGuess(client: [UInt8], server: [UInt8], serverSpokeFirst: Bool) -> String {
        let name = guessName(client: client, server: server)
        return serverSpokeFirst && name == "unknown" ? "unknown (server-first)" : name
    }

    private static func guessName(client: [UInt8], server: [UInt8]) -> String {
        func starts(_ bytes: [UInt8], _ text: String) -> Bool {
            let t = Array(text.utf8)
            return bytes.count >= t.count && Array(bytes.prefix(t.count)) == t
        }
        if starts(client, "PRI * HTTP/2.0") { return "http2" }
        switch classify(client: client) {
        case .tls: return "tls"
        case .http: return "http"
        default: break
        }
        if starts(server, "SSH-") || starts(client, "SSH-") { return "ssh" }
        if starts(server, "220") { return "smtp/ftp" }
        if starts(server, "+OK") { return "pop3" }
        if starts(server, "* OK") { return "imap" }
        if starts(server, "HTTP/1.") { return "http" }
        if let b = client.first, b == 0x10 { return "mqtt" }  // CONNECT packet type
        return "unknown"
    }
}

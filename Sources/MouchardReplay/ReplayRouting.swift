import MouchardFlow
import MouchardProxy

/// Where replayed requests go: as recorded (scheme, host and port of each request), all to one
/// origin (`--to URL`), or some hosts elsewhere (`--host-map a=b`). The request itself (its
/// `Host` header included) is not changed: only the connection goes elsewhere, like curl's
/// `--connect-to`; TLS is verified against the host connected to.
public struct ReplayRouting: Sendable, Hashable {
    /// `scheme://host[:port]` every request goes to.
    public var to: Destination?
    /// Recorded host (lower-cased) → where its requests go.
    public var hostMap: [String: Destination]

    /// A place to connect to; a nil scheme keeps the recorded one (`--host-map a=b:8080`).
    public struct Destination: Sendable, Hashable {
        public var tls: Bool?
        public var host: String
        public var port: Int?

        public init(tls: Bool?, host: String, port: Int?) {
            self.tls = tls
            self.host = host
            self.port = port
        }

        /// `https://h:1`, `http://h`, or `h[:port]` (scheme kept); nil when malformed.
        public init?(parsing text: String) {
            var authority = Substring(text)
            var tls: Bool?
            if let parts = URLParts(absolute: text) {
                guard parts.scheme == "http" || parts.scheme == "https" else { return nil }
                tls = parts.scheme == "https"
                authority = Substring(parts.authority)
            }
            let host = URLParts.hostOnly(authority: String(authority))
            let port = URLParts.port(authority: String(authority))
            let hasPortText = authority.hasSuffix("]") ? false : (authority.split(separator: ":").count == 2)
            guard !host.isEmpty, !host.contains("/"), port.map({ (1...65535).contains($0) }) ?? !hasPortText else { return nil }
            self.init(tls: tls, host: host, port: port)
        }
    }

    public init(to: Destination? = nil, hostMap: [String: Destination] = [:]) {
        self.to = to
        self.hostMap = hostMap
    }

    /// Parses `a=b` for `--host-map`.
    public static func hostMapEntry(_ text: String) -> (String, Destination)? {
        guard let eq = text.firstIndex(of: "="), let d = Destination(parsing: String(text[text.index(after: eq)...])) else { return nil }
        let from = String(text[..<eq]).lowercased()
        guard !from.isEmpty else { return nil }
        return (from, d)
    }

    /// The connection target of a recorded request.
    public func target(for request: HTTPRequest) -> UpstreamTarget {
        let recordedTLS = request.scheme == "https"
        let recordedPort = URLParts.port(authority: request.authority) ?? (recordedTLS ? 443 : 80)
        guard let d = to ?? hostMap[request.host] else {
            return UpstreamTarget(host: request.host, port: recordedPort, tls: recordedTLS)
        }
        let tls = d.tls ?? recordedTLS
        let port = d.port ?? (d.tls == nil ? recordedPort : (tls ? 443 : 80))
        return UpstreamTarget(host: d.host, port: port, tls: tls)
    }
}

/// The protocol version of an HTTP/1 message (`HTTP/1.1` is `major: 1, minor: 1`).
public struct HTTPVersion: Sendable, Hashable, CustomStringConvertible {
    public var major: Int
    public var minor: Int
    public init(major: Int, minor: Int) { self.major = major; self.minor = minor }
    public static let http10 = HTTPVersion(major: 1, minor: 0)
    public static let http11 = HTTPVersion(major: 1, minor: 1)
    public var description: String { "HTTP/\(major).\(minor)" }
}

/// The start line and headers of a request, as sent: the request-target is kept verbatim
/// (origin-form `/p?q`, absolute-form `http://h/p`, authority-form `h:443`, or `*`).
public struct HTTPRequestHead: Sendable, Hashable {
    public var method: String
    public var target: String
    public var version: HTTPVersion
    public var headers: HTTPHeaders

    public init(method: String, target: String, version: HTTPVersion = .http11, headers: HTTPHeaders = []) {
        self.method = method
        self.target = target
        self.version = version
        self.headers = headers
    }
}

/// The status line and headers of a response, as received.
public struct HTTPResponseHead: Sendable, Hashable {
    public var version: HTTPVersion
    public var status: Int
    public var reason: String
    public var headers: HTTPHeaders

    public init(version: HTTPVersion = .http11, status: Int, reason: String = "", headers: HTTPHeaders = []) {
        self.version = version
        self.status = status
        self.reason = reason
        self.headers = headers
    }
}

import MouchardWire

/// A complete request as it left the device: head, the scheme it travelled under and its body
/// after transfer decoding (chunked removed) but before content decoding (gzip kept as sent).
public struct HTTPRequest: Sendable, Hashable {
    public var head: HTTPRequestHead
    /// `http` or `https`: the scheme of the URL the app requested.
    public var scheme: String
    /// Authority used when the target is not absolute and the Host header is missing
    /// (the CONNECT target or TLS SNI), e.g. `api.example.com:443`.
    public var fallbackAuthority: String?
    public var body: [UInt8]
    /// True when `body` holds only the first part of what was sent (capture limits, gaps).
    public var bodyTruncated: Bool

    public init(head: HTTPRequestHead, scheme: String, fallbackAuthority: String? = nil,
                body: [UInt8] = [], bodyTruncated: Bool = false) {
        self.head = head
        self.scheme = scheme
        self.fallbackAuthority = fallbackAuthority
        self.body = body
        self.bodyTruncated = bodyTruncated
    }

    public var method: String { head.method }
    public var headers: HTTPHeaders { head.headers }

    /// The authority (`host[:port]`) the request was addressed to: from an absolute-form target,
    /// else the Host header, else the fallback.
    public var authority: String {
        if let parts = URLParts(absolute: head.target) { return parts.authority }
        if let host = head.headers["Host"], !host.isEmpty { return host }
        if head.method == "CONNECT" { return head.target }
        return fallbackAuthority ?? ""
    }

    /// Host name without port or IPv6 brackets, lower-cased.
    public var host: String { URLParts.hostOnly(authority: authority).lowercased() }

    /// Path and query exactly as on the wire (`/` for an empty absolute path, `*` for asterisk-form).
    public var pathAndQuery: String {
        if let parts = URLParts(absolute: head.target) { return parts.pathAndQuery }
        return head.target
    }

    /// The absolute URL as sent: scheme, authority (default port dropped), path and query verbatim.
    public var url: String {
        if head.method == "CONNECT" { return "\(scheme)://\(authority)" }
        let auth = URLParts.droppingDefaultPort(authority: authority, scheme: scheme)
        let pq = pathAndQuery
        return "\(scheme)://\(auth)\(pq.hasPrefix("/") || pq.isEmpty ? pq : "/" + pq)"
    }

    /// The query string without `?` (nil when there is none), verbatim.
    public var query: String? {
        let pq = pathAndQuery
        guard let q = pq.firstIndex(of: "?") else { return nil }
        var rest = pq[pq.index(after: q)...]
        if let h = rest.firstIndex(of: "#") { rest = rest[..<h] }
        return String(rest)
    }

    /// The path without the query, verbatim.
    public var path: String {
        let pq = pathAndQuery
        if let q = pq.firstIndex(where: { $0 == "?" || $0 == "#" }) { return String(pq[..<q]) }
        return pq
    }
}

/// A complete response: head and body after transfer decoding, before content decoding.
public struct HTTPResponse: Sendable, Hashable {
    public var head: HTTPResponseHead
    public var body: [UInt8]
    public var bodyTruncated: Bool

    public init(head: HTTPResponseHead, body: [UInt8] = [], bodyTruncated: Bool = false) {
        self.head = head
        self.body = body
        self.bodyTruncated = bodyTruncated
    }

    public var status: Int { head.status }
    public var headers: HTTPHeaders { head.headers }
}

/// Splits an absolute URL (`scheme://authority/path?query`) without normalizing anything.
public struct URLParts: Sendable, Hashable {
    public var scheme: String
    public var authority: String
    public var pathAndQuery: String

    /// Nil unless `absolute` starts with `scheme://`.
    public init?(absolute: String) {
        // A byte scan for `scheme://` (Foundation's range(of:) was a measurable cost on hot paths).
        let utf8 = absolute.utf8
        var schemeEnd: String.Index?
        var i = utf8.startIndex
        while i != utf8.endIndex {
            let b = utf8[i]
            if b == UInt8(ascii: ":") { schemeEnd = i; break }
            let isSchemeByte = (b >= 0x61 && b <= 0x7A) || (b >= 0x41 && b <= 0x5A) || (b >= 0x30 && b <= 0x39)
                || b == UInt8(ascii: "+") || b == UInt8(ascii: "-") || b == UInt8(ascii: ".")
            if !isSchemeByte { return nil }
            i = utf8.index(after: i)
        }
        guard let colon = schemeEnd, colon != utf8.startIndex else { return nil }
        let afterColon = utf8.index(after: colon)
        guard utf8[afterColon...].starts(with: "//".utf8) else { return nil }
        let scheme = absolute[..<colon]
        let rest = absolute[utf8.index(afterColon, offsetBy: 2)...]
        // The authority ends at the first `/`, `?` or `#` byte (RFC 3986 §3.2). Searched as bytes: a
        // search by characters breaks graphemes over the whole path and query, a cost that grows with
        // the URL's length on every request; an ASCII byte always starts a scalar, so the index is a
        // valid place to cut the text.
        let end = rest.utf8.firstIndex(where: { $0 == UInt8(ascii: "/") || $0 == UInt8(ascii: "?") || $0 == UInt8(ascii: "#") })
            ?? rest.endIndex
        var authority = String(rest[..<end])
        if let at = authority.lastIndex(of: "@") { authority = String(authority[authority.index(after: at)...]) }
        var pq = String(rest[end...])
        if pq.isEmpty { pq = "/" } else if !pq.hasPrefix("/") { pq = "/" + pq }
        self.scheme = scheme.lowercased()
        self.authority = authority
        self.pathAndQuery = pq
    }

    /// `host` of `host:port`, `[::1]:8080` → `::1`.
    public static func hostOnly(authority: String) -> String {
        // ASCII (every real authority) is read as bytes: searching the text by characters
        // (grapheme breaking) cost some 7,000 instructions a call, 4% of a capture's scan. For
        // ASCII the two readings are the same (no cluster of ASCII holds `[`, `]` or `:`).
        let utf8 = authority.utf8
        if let ascii = utf8.withContiguousStorageIfAvailable({ hostRange(asciiAuthority: $0) }), let range = ascii {
            guard range != 0..<utf8.count else { return authority }
            return String(decoding: utf8[utf8.index(utf8.startIndex, offsetBy: range.lowerBound)..<utf8.index(utf8.startIndex, offsetBy: range.upperBound)],
                          as: UTF8.self)
        }
        if authority.hasPrefix("["), let close = authority.firstIndex(of: "]") {
            return String(authority[authority.index(after: authority.startIndex)..<close])
        }
        if let colon = authority.lastIndex(of: ":"), authority.firstIndex(of: ":") == colon {
            return String(authority[..<colon])
        }
        return authority
    }

    /// The byte range of the host in an authority's bytes, as `hostOnly` reads it; nil when the
    /// bytes are not all ASCII.
    private static func hostRange(asciiAuthority b: UnsafeBufferPointer<UInt8>) -> Range<Int>? {
        var firstColon: Int?
        var lastColon: Int?
        var firstClose: Int?
        for i in 0..<b.count {
            switch b[i] {
            case 0x80...: return nil
            case UInt8(ascii: ":"):
                if firstColon == nil { firstColon = i }
                lastColon = i
            case UInt8(ascii: "]"):
                if firstClose == nil { firstClose = i }
            default: break
            }
        }
        if b.first == UInt8(ascii: "["), let close = firstClose { return 1..<close }
        if let lastColon, firstColon == lastColon { return 0..<lastColon }
        return 0..<b.count
    }

    /// The port of an authority, if one is written.
    public static func port(authority: String) -> Int? {
        if authority.hasPrefix("[") {
            guard let close = authority.firstIndex(of: "]") else { return nil }
            let rest = authority[authority.index(after: close)...]
            return rest.hasPrefix(":") ? Int(rest.dropFirst()) : nil
        }
        guard let colon = authority.lastIndex(of: ":"), authority.firstIndex(of: ":") == colon else { return nil }
        return Int(authority[authority.index(after: colon)...])
    }

    /// `host:80` under http and `host:443` under https lose their port; host case is lowered.
    public static func droppingDefaultPort(authority: String, scheme: String) -> String {
        let host = hostOnly(authority: authority).lowercased()
        let shown = host.contains(":") ? "[\(host)]" : host
        guard let port = port(authority: authority) else { return shown }
        if (scheme == "http" && port == 80) || (scheme == "https" && port == 443) { return shown }
        return "\(shown):\(port)"
    }
}

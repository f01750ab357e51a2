import MouchardFlow

/// Path-and-query of a request, and (computed only for requests with findings) its host and
/// absolute URL, with byte-level code on the common origin-form target (`/path?q` + Host header);
/// other forms defer to `HTTPRequest`.
struct RequestFacts {
    let request: HTTPRequest
    var pathAndQuery: String

    init(_ r: HTTPRequest) {
        request = r
        let target = r.head.target
        pathAndQuery = target.utf8.first == UInt8(ascii: "/") && r.method != "CONNECT" ? target : r.pathAndQuery
    }

    /// The host (lower case, no port) and the absolute URL.
    func located() -> (host: String, url: String) {
        let r = request
        let target = r.head.target
        guard target.utf8.first == UInt8(ascii: "/"), r.method != "CONNECT" else { return (r.host, r.url) }
        var authority = ""
        for f in r.headers.fields where f.name.utf8.count == 4 && asciiCaseInsensitiveEqualsHost(f.name) {
            authority = f.value
            break
        }
        if authority.isEmpty { authority = r.fallbackAuthority ?? "" }
        let a = Array(authority.utf8)
        // host[:port] or [v6]:port
        var hostBytes = a[...]
        var port: ArraySlice<UInt8> = []
        if a.first == UInt8(ascii: "["), let close = a.firstIndex(of: UInt8(ascii: "]")) {
            hostBytes = a[1..<close]
            if close + 1 < a.count, a[close + 1] == UInt8(ascii: ":") { port = a[(close + 2)...] }
        } else if let colon = a.firstIndex(of: UInt8(ascii: ":")), a.lastIndex(of: UInt8(ascii: ":")) == colon {
            hostBytes = a[..<colon]
            port = a[(colon + 1)...]
        }
        let lowered = hostBytes.map { foldASCII($0) }
        let host = String(decoding: lowered, as: UTF8.self)
        let defaultPort = (r.scheme == "http" && port.elementsEqual("80".utf8)) || (r.scheme == "https" && port.elementsEqual("443".utf8))
        let shownHost = host.utf8.contains(UInt8(ascii: ":")) ? "[\(host)]" : host
        let shownPort = port.isEmpty || defaultPort ? "" : ":" + String(decoding: port, as: UTF8.self)
        return (host, r.scheme + "://" + shownHost + shownPort + target)
    }
}

private func asciiCaseInsensitiveEqualsHost(_ name: String) -> Bool {
    var it = name.utf8.makeIterator()
    for expected in "host".utf8 {
        guard let b = it.next(), foldASCII(b) == expected else { return false }
    }
    return true
}

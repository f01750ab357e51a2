import MouchardFlow

/// Host, path-and-query and absolute URL of a request, computed once per flow with byte-level
/// code on the common origin-form target (`/path?q` + Host header); other forms defer to `HTTPRequest`.
struct RequestFacts {
    var host: String
    var pathAndQuery: String
    var url: String

    init(_ r: HTTPRequest) {
        let target = r.head.target
        guard target.utf8.first == UInt8(ascii: "/"), r.method != "CONNECT" else {
            pathAndQuery = r.pathAndQuery
            host = r.host
            url = r.url
            return
        }
        var authority = ""
        for f in r.headers.fields where f.name.utf8.count == 4 && asciiCaseInsensitiveEqualsHost(f.name) {
            authority = f.value
            break
        }
        if authority.isEmpty { authority = r.fallbackAuthority ?? "" }
        pathAndQuery = target
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
        host = String(decoding: lowered, as: UTF8.self)
        let defaultPort = (r.scheme == "http" && port.elementsEqual("80".utf8)) || (r.scheme == "https" && port.elementsEqual("443".utf8))
        let shownHost = host.utf8.contains(UInt8(ascii: ":")) ? "[\(host)]" : host
        let shownPort = port.isEmpty || defaultPort ? "" : ":" + String(decoding: port, as: UTF8.self)
        url = r.scheme + "://" + shownHost + shownPort + target
    }
}

private func asciiCaseInsensitiveEqualsHost(_ name: String) -> Bool {
    var it = name.utf8.makeIterator()
    for expected in "host".utf8 {
        guard let b = it.next(), foldASCII(b) == expected else { return false }
    }
    return true
}

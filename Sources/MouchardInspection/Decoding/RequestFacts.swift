import MouchardFlow

/// Host, path-and-query and absolute URL of a request, computed once and without Foundation string
/// search on the common origin-form target (`/path?q`); other forms defer to `HTTPRequest`.
struct RequestFacts {
    var host: String
    var pathAndQuery: String
    var url: String

    init(_ r: HTTPRequest) {
        let target = r.head.target
        if target.utf8.first == UInt8(ascii: "/"), r.method != "CONNECT" {
            let authority = r.headers["Host"].flatMap { $0.isEmpty ? nil : $0 } ?? r.fallbackAuthority ?? ""
            pathAndQuery = target
            host = URLParts.hostOnly(authority: authority).lowercased()
            url = "\(r.scheme)://\(URLParts.droppingDefaultPort(authority: authority, scheme: r.scheme))\(target)"
        } else {
            pathAndQuery = r.pathAndQuery
            host = r.host
            url = r.url
        }
    }
}

import MouchardFlow
import MouchardWire
import Testing

@Suite struct HTTPRequestURLTests {
    @Test func absoluteURLParts() {
        let p = URLParts(absolute: "HTTP://user@Api.Example.com:8080/v1/x?a=1#f")
        #expect(p?.scheme == "http")
        #expect(p?.authority == "Api.Example.com:8080")
        #expect(p?.pathAndQuery == "/v1/x?a=1#f")
        #expect(URLParts(absolute: "https://h")?.pathAndQuery == "/")
        #expect(URLParts(absolute: "https://h?q=1")?.pathAndQuery == "/?q=1")
        #expect(URLParts(absolute: "/path?x=http://y") == nil)
        #expect(URLParts(absolute: "://h/") == nil)
        #expect(URLParts(absolute: "mailto:x@y") == nil)
        #expect(URLParts(absolute: "") == nil)
    }

    @Test func urlFromOriginFormAndHost() {
        let head = HTTPRequestHead(method: "GET", target: "/v1/init?idfa=X&t=1", headers: [("Host", "T.Example.com:80")])
        let r = HTTPRequest(head: head, scheme: "http")
        #expect(r.url == "http://t.example.com/v1/init?idfa=X&t=1")
        #expect(r.query == "idfa=X&t=1")
        #expect(r.path == "/v1/init")
        let tls = HTTPRequest(head: HTTPRequestHead(method: "POST", target: "/e"), scheme: "https",
                              fallbackAuthority: "[::1]:8443")
        #expect(tls.url == "https://[::1]:8443/e")
        #expect(tls.host == "::1")
    }
}

import MouchardFlow
import MouchardWire
import Testing
@testable import MouchardInspection

/// `RequestFacts.located` reads host and URL from the Host header's bytes; it must give what
/// `HTTPRequest.host` and `HTTPRequest.url` give.
@Suite struct RequestFactsTests {
    func request(scheme: String, host: String?, target: String = "/p?q=1") -> HTTPRequest {
        var h = HTTPHeaders()
        if let host { h.add(name: "Host", value: host) }
        return HTTPRequest(head: HTTPRequestHead(method: "GET", target: target, headers: h), scheme: scheme, body: [])
    }

    @Test(arguments: ["a.example", "A.Example:8443", "a.example:443", "a.example:80", "[::1]:8080", "[::1]", "bücher.example", ""])
    func locatedIsTheRequestsHostAndURL(host: String) {
        for scheme in ["https", "http"] {
            let r = request(scheme: scheme, host: host)
            let located = RequestFacts(r).located(r)
            #expect(located.host == r.host, "\(scheme) \(host)")
            #expect(located.url == r.url, "\(scheme) \(host)")
        }
    }

    /// A Host value's reading, remembered across requests (both schemes, other targets), gives
    /// what reading it afresh gives.
    @Test func rememberedHostsGiveTheSameHostAndURL() {
        let hosts = HostReadingCache()
        for round in 0..<2 {
            for host in ["a.example", "A.Example:8443", "a.example:443", "a.example:80", "[::1]:8080", "[::1]", "bücher.example"] {
                for scheme in ["https", "http"] {
                    let r = request(scheme: scheme, host: host, target: "/p\(round)?q=\(scheme)")
                    let located = RequestFacts(r).located(r, hosts: hosts)
                    #expect(located.host == r.host, "\(scheme) \(host)")
                    #expect(located.url == r.url, "\(scheme) \(host)")
                }
            }
        }
    }
}

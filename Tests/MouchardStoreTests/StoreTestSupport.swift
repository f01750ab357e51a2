import Foundation
import MouchardFindings
import MouchardFlow
import MouchardWire

/// A fresh temporary folder per test, removed by `cleanUp()`.
struct TemporaryDirectory {
    let path: String

    init() {
        path = NSTemporaryDirectory() + "mouchard-store-tests-" + UUID().uuidString
        try? FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }

    func cleanUp() { try? FileManager.default.removeItem(atPath: path) }
}

/// Flows covering what the store must keep exactly: binary bodies, duplicate and non-UTF-8 headers,
/// every transport, missing parts, extras.
enum StoreSamples {
    static let started = Date(timeIntervalSinceReferenceDate: 812_345_678.123_456_7)

    static func flows() -> [Flow] {
        var weirdHeaders = HTTPHeaders([HTTPField(name: "X-Latin1", valueBytes: [0x63, 0x61, 0x66, 0xE9])])
        weirdHeaders.add(name: "X-Dup", value: "1")
        weirdHeaders.add(name: "x-dup", value: "2")
        weirdHeaders.add(name: "Host", value: "api.example.com")
        weirdHeaders.add(name: "Empty", value: "")
        let https = Flow(id: 0, source: .proxy, transport: .https,
                         request: HTTPRequest(head: HTTPRequestHead(method: "POST", target: "/v1/e?a=%20b", headers: weirdHeaders),
                                              scheme: "https", fallbackAuthority: "api.example.com:443",
                                              body: (0...255).map { UInt8($0) }),
                         response: HTTPResponse(head: HTTPResponseHead(version: HTTPVersion(major: 2, minor: 0), status: 200,
                                                                       reason: "OK", headers: [("Content-Type", "image/png")]),
                                                body: [0x89, 0x50, 0x00, 0xFF], bodyTruncated: true),
                         timings: FlowTimings(started: started, blocked: 0.25, connect: 1.5, ssl: 3, send: 0.001, wait: 20,
                                              receive: 1e-7),
                         client: Endpoint(address: "192.168.1.20", port: 50123),
                         server: Endpoint(address: "2001:db8::5", port: 443),
                         tls: TLSFacts(serverName: "api.example.com", alpn: ["h2", "http/1.1"], version: "TLSv1.3"),
                         extras: ["_initiator": #"{"type":"script"}"#, "comment": #""été""#])
        let http = Flow(id: 0, source: .pcap, transport: .http,
                        request: HTTPRequest(head: HTTPRequestHead(method: "GET", target: "http://ads.example.net/px?id=1",
                                                                   version: .http10, headers: []),
                                             scheme: "http", body: [], bodyTruncated: true),
                        timings: FlowTimings(started: started.addingTimeInterval(1)),
                        error: "connection reset after 12 bytes")
        let tls = Flow(id: 0, source: .transparent, transport: .tlsMetadata,
                       timings: FlowTimings(started: started.addingTimeInterval(2)),
                       server: Endpoint(address: "203.0.113.9", port: 443),
                       tls: TLSFacts(serverName: "tracker.example", alpn: []))
        let har = Flow(id: 0, source: .har, transport: .https,
                       request: HTTPRequest(head: HTTPRequestHead(method: "PUT", target: "/x", headers: [("Host", "h.example")]),
                                            scheme: "https", body: Array("{\"a\":1}".utf8)),
                       response: HTTPResponse(head: HTTPResponseHead(status: 204, reason: "")),
                       timings: FlowTimings(started: Date(timeIntervalSince1970: 0)),
                       tls: TLSFacts())
        return [https, http, tls, har]
    }

    /// Findings with and without a flow and a confidence.
    static func findings() -> [Finding] {
        [sampleFinding(1, "idfa", confidence: 0.9), sampleFinding(nil, "imei", confidence: nil),
         sampleFinding(2, "email", confidence: 1.0 / 3.0)]
    }

    /// A DNS answer with every field, and a bare one.
    static func dns() -> [DNSObservation] {
        [DNSObservation(time: started, name: "api.example.com", queryType: "AAAA",
                        addresses: ["2001:db8::5", "2001:db8::6"], cnames: ["edge.example.net"],
                        client: Endpoint(address: "192.168.1.20", port: 5353), server: Endpoint(address: "192.168.1.1", port: 53)),
         DNSObservation(time: started.addingTimeInterval(0.5), name: "t.example")]
    }
}

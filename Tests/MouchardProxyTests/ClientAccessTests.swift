import Foundation
import MouchardPosix
import MouchardProxy
import MouchardTLS
import MouchardWire
import ProxyConformance
import Testing

/// Who may use the proxy: client networks checked at accept (refused clients are closed unread and
/// counted) and Basic proxy credentials (407 with Proxy-Authenticate), on loopback with clients
/// bound to other 127/8 addresses.
@Suite struct ClientAccessTests {
    @Test func networksParseAndMatch() throws {
        let lan = try #require(ClientAccess.Network(cidr: "192.168.1.77/24"))
        #expect(lan.description == "192.168.1.0/24")
        #expect(lan.contains(SocketAddress(ip: "192.168.1.200", port: 1)!))
        #expect(!lan.contains(SocketAddress(ip: "192.168.2.1", port: 1)!))
        #expect(lan.contains(SocketAddress(ip: "::ffff:192.168.1.9", port: 1)!))
        let v6 = try #require(ClientAccess.Network(cidr: "fd00:0:0:1::/64"))
        #expect(v6.description == "fd00:0:0:1::/64")
        #expect(v6.contains(SocketAddress(ip: "fd00:0:0:1:abcd::1", port: 1)!))
        #expect(!v6.contains(SocketAddress(ip: "192.168.1.1", port: 1)!))
        #expect(ClientAccess.Network(cidr: "10.0.0.1")?.description == "10.0.0.1/32")
        for bad in ["10.0.0.0/33", "10.0.0/8", "host.example/8", "10.0.0.0/", "::1/129", "1.2.3.4/8/8"] {
            #expect(ClientAccess.Network(cidr: bad) == nil, "\(bad)")
        }
        let access = ClientAccess(credentials: "u:p")
        #expect(access.authorizes([("Proxy-Authorization", "Basic dTpw")]))
        #expect(access.authorizes([("proxy-authorization", "basic   dTpw")]))
        #expect(!access.authorizes([("Proxy-Authorization", "Basic dTpx")]))
        #expect(!access.authorizes([("Authorization", "Basic dTpw")]))
        #expect(!access.authorizes([]))
    }

    /// A proxy with `access`, an origin answering 200, and the proxy's port.
    func withProxy(_ access: ClientAccess, _ body: (ProxyServer, Int, ScriptedOrigin) throws -> Void) throws {
        let home = NSTemporaryDirectory() + "mouchard-access-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: home, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: home) }
        let settings = InterceptionSettings(authorityDirectory: home)
        var configuration = ProxyConfiguration(listen: SocketAddress(ip: "127.0.0.1", port: 0)!, threads: 1, interception: settings)
        configuration.access = access
        configuration.log = { _ in }
        let server = ProxyServer(configuration: configuration, interceptor: try TLSInterceptor(settings: settings))
        let port = try server.start().port
        defer { server.stop() }
        let origin = try ScriptedOrigin { c in
            while c.readRequest() != nil { c.send("HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok") }
        }
        defer { origin.stop() }
        try body(server, port, origin)
    }

    @Test func clientsOutsideTheAllowedNetworksAreRefusedUnreadAndCounted() throws {
        let allowed = try #require(ClientAccess.Network(cidr: "127.0.0.2/32"))
        try withProxy(ClientAccess(networks: [allowed])) { server, port, origin in
            let request = "GET http://\(origin.authority)/x HTTP/1.1\r\nHost: \(origin.authority)\r\n\r\n"
            for source in ["127.0.0.1", "127.0.0.3"] {
                let refused = try RawConnection.connect(host: "127.0.0.1", port: port, source: source)
                try? refused.send(request)
                #expect(refused.closesWithin(3), "a client from \(source) was not closed")
                #expect(refused.buffer.isEmpty, "a client from \(source) got an answer")
            }
            let ok = try RawConnection.connect(host: "127.0.0.1", port: port, source: "127.0.0.2")
            try ok.send(request)
            let response = try ok.readFinalResponse(to: "GET", timeout: 5)
            #expect(response.status == 200 && response.bodyText == "ok")
            #expect(origin.requests.count == 1)
            #expect(server.statistics?.refusedConnections == 2)
        }
    }

    @Test func requestsWithoutTheCredentialsGet407() throws {
        try withProxy(ClientAccess(credentials: "audit:s3cret")) { server, port, origin in
            let good = "Proxy-Authorization: Basic " + Data("audit:s3cret".utf8).base64EncodedString() + "\r\n"
            let wrong = "Proxy-Authorization: Basic " + Data("audit:guess".utf8).base64EncodedString() + "\r\n"
            for (method, target) in [("GET", "http://\(origin.authority)/x"), ("CONNECT", origin.authority)] {
                for credentials in ["", wrong] {
                    let client = try RawConnection.connect(host: "127.0.0.1", port: port)
                    try client.send("\(method) \(target) HTTP/1.1\r\nHost: \(origin.authority)\r\n\(credentials)\r\n")
                    let r = try client.readFinalResponse(to: method, timeout: 5)
                    #expect(r.status == 407, "\(method) with '\(credentials)'")
                    #expect(r.values("Proxy-Authenticate").first?.hasPrefix("Basic realm=\"mouchard\"") == true)
                }
                let client = try RawConnection.connect(host: "127.0.0.1", port: port)
                try client.send("\(method) \(target) HTTP/1.1\r\nHost: \(origin.authority)\r\n\(good)\r\n")
                let r = try client.readFinalResponse(to: method, timeout: 5)
                #expect(r.status == 200, "\(method) with the credentials")
            }
            #expect(origin.requests.count == 1)
            #expect(origin.requests.first?.values("Proxy-Authorization").isEmpty == true, "the credentials were forwarded")
            #expect(server.statistics?.unauthorizedRequests == 4)
        }
    }
}

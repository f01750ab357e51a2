import Foundation
import MouchardCodec
import MouchardFindings
import MouchardFlow
import MouchardInspection
import MouchardTestSupport
import MouchardWire
import Testing

/// An HTTP/2 origin: nginx with `http2` on TLS (the origin fixture's certificate), serving a JSON
/// file that carries an identifier and a 10 MB file, and passing anything else to the fixture's
/// HTTP/1.1 origin (which reads request bodies: `/count` answers their length and SHA-256).
struct NginxH2Origin {
    let directory: String
    let port: Int
    private let child: ChildProcess

    init(origins: OriginFixture, idfa: String) throws {
        directory = origins.directory + "/nginx-\(UUID().uuidString.prefix(8))"
        let d = directory
        try FileManager.default.createDirectory(atPath: d + "/www", withIntermediateDirectories: true)
        try "{\"advertisingIdentifier\":\"\(idfa)\"}".write(toFile: d + "/www/config.json", atomically: true, encoding: .utf8)
        try Data(OriginFixture.expectedBytes(10_000_000, seed: 4)).write(to: URL(fileURLWithPath: d + "/www/big.bin"))
        try "<html><body>h2 page<script>document.body.append(' loaded')</script></body></html>"
            .write(toFile: d + "/www/page.html", atomically: true, encoding: .utf8)
        port = try Self.freePort()
        let config = """
        daemon off;
        master_process off;
        pid \(d)/nginx.pid;
        error_log \(d)/error.log;
        events { worker_connections 1024; }
        http {
          access_log off;
          client_body_temp_path \(d)/body; proxy_temp_path \(d)/proxy; fastcgi_temp_path \(d)/fcgi;
          uwsgi_temp_path \(d)/uwsgi; scgi_temp_path \(d)/scgi;
          client_max_body_size 64m;
          server {
            listen 127.0.0.1:\(port) ssl http2;
            ssl_certificate \(origins.directory)/srv.pem; ssl_certificate_key \(origins.directory)/srv.key;
            root \(d)/www;
            location = /config.json { add_header x-served-by h2-origin; }
            location = /big.bin { }
            location = /page.html { }
            location / { proxy_pass http://127.0.0.1:\(origins.httpPort); }
          }
        }
        """
        try config.write(toFile: d + "/nginx.conf", atomically: true, encoding: .utf8)
        guard let nginx = TestTool.nginx.path else { throw CLIFailure("nginx is needed") }
        child = try ChildProcess(nginx, ["-c", d + "/nginx.conf", "-p", d])
        try Self.waitForListener(port: port)
    }

    func stop() { child.stop() }

    /// A port free on loopback now (bound and released).
    static func freePort() throws -> Int {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, length) == 0 && getsockname(fd, $0, &length) == 0
            }
        }
        guard bound else { throw CLIFailure("no free port") }
        return Int(UInt16(bigEndian: address.sin_port))
    }

    static func waitForListener(port: Int) throws {
        let deadline = Date().addingTimeInterval(20)
        while Date() < deadline {
            let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_port = in_port_t(UInt16(port).bigEndian)
            address.sin_addr.s_addr = inet_addr("127.0.0.1")
            let ok = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0 }
            }
            close(fd)
            if ok { return }
            usleep(20_000)
        }
        throw CLIFailure("nginx did not start on port \(port)")
    }
}

/// curl `--http2` through the proxy to an h2 origin: ALPN h2 on both sides, streams multiplexed,
/// findings from headers, query, request and response bodies, bodies byte for byte.
@Suite(.serialized, .requires(.openssl), .requires(.python3), .requires(.curl), .requires(.nginx))
struct HTTP2EndToEndTests {
    static let idfa = "6D92078A-8246-4BA4-AE5B-76104861E7DC"

    func curl(_ args: [String]) throws -> (status: Int32, output: Data) {
        guard let curl = TestTool.curl.path else { throw CLIFailure("curl is needed") }
        return try runProcess(curl, ["-sS", "--http2", "--max-time", "30", "--noproxy", ""] + args, timeout: 40)
    }

    /// Downloads `download` (the origin's bytes of that size and seed) and uploads as many bytes to
    /// `upload` (which answers their count and SHA-256): both arrive byte for byte.
    func bytesBothWays(_ trust: [String], download: (url: String, size: Int, seed: Int), upload: (url: String, size: Int, seed: Int),
                       in origins: OriginFixture) throws {
        let down = try curl(trust + [download.url])
        #expect(down.status == 0)
        let expected = OriginFixture.expectedBytes(download.size, seed: download.seed)
        #expect(DigestAlgorithm.sha256.digest([UInt8](down.output)) == DigestAlgorithm.sha256.digest(expected))
        let file = origins.directory + "/up-\(upload.size).bin"
        let sent = OriginFixture.expectedBytes(upload.size, seed: upload.seed)
        try Data(sent).write(to: URL(fileURLWithPath: file))
        let up = try curl(trust + ["--data-binary", "@\(file)", upload.url])
        let digest = DigestAlgorithm.sha256.digest(sent).map { String(format: "%02x", $0) }.joined()
        #expect(String(decoding: up.output, as: UTF8.self) == "\(upload.size) \(digest)")
    }

    @Test func curlOverHTTP2ThroughTheProxy() throws {
        let origins = try OriginFixture()
        defer { origins.stop() }
        let nginx = try NginxH2Origin(origins: origins, idfa: Self.idfa)
        defer { nginx.stop() }
        let proxy = try ProxyFixture(origins: origins, profile: DeviceProfile(identifiers: [(type: "idfa", value: Self.idfa)]))
        defer { proxy.stop() }
        let base = "https://localhost:\(nginx.port)"
        let trust = ["-x", proxy.proxyURL, "--cacert", proxy.caPath]

        // Four requests multiplexed on one connection (-Z, one group per request): identifiers in a
        // header, a query and a JSON body, and one in a response body (kept, not a leak: the app received it).
        let each = ["--http2", "-x", proxy.proxyURL, "--cacert", proxy.caPath, "-o", "/dev/null", "-w", "%{http_version} %{response_code}\\n"]
        let many = try curl(["-Z"] + each + ["-H", "x-idfa: \(Self.idfa)", "\(base)/v1/header", "--next"]
                            + each + ["\(base)/v1/open?advertiserId=\(Self.idfa)", "--next"]
                            + each + ["--data", "{\"device\":{\"ifa\":\"\(Self.idfa)\"}}", "\(base)/v1/events", "--next"]
                            + each + ["\(base)/config.json"])
        let lines = String(decoding: many.output, as: UTF8.self).split(separator: "\n")
        #expect(lines.count == 4 && lines.allSatisfy { $0 == "2 200" }, "\(lines)")

        // A client that offers only http/1.1 gets it, from the same h2 origin (the proxy speaks h1 upstream too).
        let h1 = try curl(trust + ["--http1.1", "-o", "/dev/null", "-w", "%{http_version}", "\(base)/v1/h1"])
        #expect(String(decoding: h1.output, as: UTF8.self) == "1.1")

        // 10 MB down byte for byte, 5 MB up (flow control on both legs).
        try bytesBothWays(trust, download: ("\(base)/big.bin", 10_000_000, 4), upload: ("\(base)/count", 5_000_000, 8), in: origins)

        proxy.stop()
        let flows = try proxy.flows().filter { $0.request?.path.hasPrefix("/") == true && $0.request?.path != "/v1/h1" }
        #expect(flows.count == 6)
        #expect(flows.allSatisfy { $0.request?.head.version.description == "HTTP/2.0" && $0.response?.head.version.description == "HTTP/2.0" })
        #expect(flows.allSatisfy { $0.extras["_streamId"] != nil && $0.error == nil }, "\(flows.map { ($0.extras["_streamId"], $0.error) })")
        #expect(Set(flows.prefix(4).compactMap { $0.extras["_streamId"] }).count == 4)
        #expect(flows.allSatisfy { $0.tls?.alpn.contains("h2") == true })
        let uploaded = try #require(flows.first { $0.request?.path == "/count" })
        #expect(uploaded.request?.body.count == 5_000_000)
        let config = try #require(flows.first { $0.request?.path == "/config.json" })
        #expect(config.response?.headers["x-served-by"] == "h2-origin")
        let configBody = config.response.map { String(decoding: $0.body, as: UTF8.self) } ?? ""
        #expect(configBody.contains(Self.idfa))
        let findings = try proxy.findings().filter { $0.type == "idfa" }
        let places = Set(findings.map { URLParts(absolute: $0.request.url)?.pathAndQuery.split(separator: "?").first.map(String.init) ?? "" })
        #expect(places.isSuperset(of: ["/v1/header", "/v1/open", "/v1/events"]), "\(findings.map { ($0.request.url, $0.where) })")
        #expect(findings.contains { $0.where == "header:x-idfa" })
    }

    /// curl `--http2` to an origin that speaks only HTTP/1.1: the phone still gets h2, each stream
    /// goes upstream as an HTTP/1.1 request (one at a time, on a kept-alive connection) and comes
    /// back as h2; every stream is one flow, recorded once.
    @Test func http2ClientToAnHTTP1Origin() throws {
        let origins = try OriginFixture()
        defer { origins.stop() }
        let proxy = try ProxyFixture(origins: origins, profile: DeviceProfile(identifiers: [(type: "idfa", value: Self.idfa)]))
        defer { proxy.stop() }
        let base = "https://localhost:\(origins.httpsPort)"
        let trust = ["-x", proxy.proxyURL, "--cacert", proxy.caPath]

        let each = trust + ["-o", "/dev/null", "-w", "%{http_version} %{response_code} %{size_download}\\n"]
        let many = try curl(["-Z"] + each + ["-H", "x-idfa: \(Self.idfa)", "\(base)/v1/header", "--next"]
                            + each + ["\(base)/v1/open?advertiserId=\(Self.idfa)", "--next"]
                            + each + ["--data", "{\"device\":{\"ifa\":\"\(Self.idfa)\"}}", "\(base)/v1/events", "--next"]
                            + each + ["\(base)/chunked?n=100000"])
        let lines = String(decoding: many.output, as: UTF8.self).split(separator: "\n").map(String.init).sorted()
        // Sizes: "ok " and the path for the GETs, the echoed JSON, the chunked body.
        let sizes = [3 + "/v1/header".count, 3 + "/v1/open?advertiserId=\(Self.idfa)".count, "{\"device\":{\"ifa\":\"\(Self.idfa)\"}}".count, 100_000]
        #expect(lines == sizes.map { "2 200 \($0)" }.sorted(), "\(lines)")

        // 3 MB down and 2 MB up byte for byte through the translation.
        try bytesBothWays(trust, download: ("\(base)/bytes?n=3000000&seed=5", 3_000_000, 5), upload: ("\(base)/count", 2_000_000, 9), in: origins)

        proxy.stop()
        let flows = try proxy.flows().filter { $0.request != nil }
        #expect(flows.count == 6, "\(flows.map { $0.request?.path ?? "" })")
        #expect(flows.allSatisfy { $0.request?.head.version.description == "HTTP/2.0" && $0.response?.head.version.description == "HTTP/2.0" })
        #expect(flows.allSatisfy { $0.extras["_streamId"] != nil && $0.error == nil && $0.response?.status == 200 },
                "\(flows.map { ($0.extras["_streamId"], $0.error) })")
        #expect(flows.allSatisfy { $0.tls?.alpn.contains("h2") == true })
        let chunked = try #require(flows.first { $0.request?.path.hasPrefix("/chunked") == true })
        #expect(chunked.response?.body.count == 100_000 && chunked.response?.headers["transfer-encoding"] == nil)
        #expect(flows.first { $0.request?.path == "/count" }?.request?.body.count == 2_000_000)
        let findings = try proxy.findings().filter { $0.type == "idfa" }
        #expect(findings.contains { $0.where == "header:x-idfa" })
        #expect(findings.contains { $0.where == "query:advertiserId" })
        #expect(findings.contains { $0.request.url.hasSuffix("/v1/events") }, "\(findings.map { ($0.request.url, $0.where) })")
    }

    /// Chromium headless loads an h2 page through the proxy (loopback is proxied only with
    /// `<-loopback>`; the proxy's leaf is accepted with --ignore-certificate-errors).
    @Test(.requires(.chromium)) func chromiumLoadsAnH2PageThroughTheProxy() throws {
        let origins = try OriginFixture()
        defer { origins.stop() }
        let nginx = try NginxH2Origin(origins: origins, idfa: Self.idfa)
        defer { nginx.stop() }
        let proxy = try ProxyFixture(origins: origins)
        defer { proxy.stop() }
        let profile = origins.directory + "/chromium-profile"
        let chromium = try #require(TestTool.chromium.path)
        let run = try runProcess(chromium, ["--headless=new", "--no-sandbox", "--disable-gpu", "--user-data-dir=\(profile)",
                                            "--proxy-server=\(proxy.proxyURL)", "--proxy-bypass-list=<-loopback>",
                                            "--ignore-certificate-errors", "--dump-dom", "https://localhost:\(nginx.port)/page.html"],
                                 timeout: 60)
        #expect(String(decoding: run.output, as: UTF8.self).contains("</script> loaded"))  // the script ran
        proxy.stop()
        let page = try #require(try proxy.flows().first { $0.request?.path == "/page.html" })
        #expect(page.request?.head.version.description == "HTTP/2.0" && page.response?.status == 200)
        #expect(page.request?.headers["user-agent"]?.contains("Chrome") == true)
        #expect(page.tls?.alpn.contains("h2") == true && page.extras["_streamId"] != nil)
    }
}

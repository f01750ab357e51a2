import Foundation
import Testing
import MouchardPosix
@testable import MouchardProxy

/// Transparent mode without root: the first-bytes classifier, and a connection that reached the
/// listener without a NAT redirect (no conntrack entry, or one pointing at the listener itself)
/// is refused and logged, never proxied.
struct TransparentModeTests {
    @Test func firstBytesTellTLSHTTPAndTheRest() {
        #expect(FirstBytes.classify(client: [UInt8]()) == .needMore)
        #expect(FirstBytes.classify(client: [0x16]) == .needMore)
        #expect(FirstBytes.classify(client: [0x16, 0x03, 0x01]) == .tls)
        #expect(FirstBytes.classify(client: [0x16, 0x00]) == .opaque)
        #expect(FirstBytes.classify(client: Array("GE".utf8)) == .needMore)
        #expect(FirstBytes.classify(client: Array("GET / HTTP/1.1\r\n".utf8)) == .http)
        #expect(FirstBytes.classify(client: Array("OPTIONS ".utf8)) == .http)
        #expect(FirstBytes.classify(client: Array("GETX".utf8)) == .opaque)
        #expect(FirstBytes.classify(client: Array("SSH-2.0-x".utf8)) == .opaque)
        #expect(FirstBytes.classify(client: Array("PRI * HTTP/2.0".utf8)) == .opaque)
        #expect(FirstBytes.protocolGuess(client: [], server: Array("SSH-2.0-OpenSSH".utf8), serverSpokeFirst: true) == "ssh")
        #expect(FirstBytes.protocolGuess(client: [], server: Array("220 mail".utf8), serverSpokeFirst: true) == "smtp/ftp")
        #expect(FirstBytes.protocolGuess(client: Array("PRI * HTTP/2.0\r\n".utf8), server: [], serverSpokeFirst: false) == "http2")
        #expect(FirstBytes.protocolGuess(client: [0x01, 0x02], server: [], serverSpokeFirst: false) == "unknown")
        #expect(FirstBytes.protocolGuess(client: [], server: [0x01], serverSpokeFirst: true) == "unknown (server-first)")
    }

    @Test func addressesUnmapV4MappedClients() {
        let mapped = SocketAddress(ip: "::ffff:10.0.0.7", port: 4242)!
        #expect(mapped.isV4Mapped)
        #expect(mapped.unmapped == SocketAddress(ip: "10.0.0.7", port: 4242)!)
        #expect(!SocketAddress(ip: "fd00::1", port: 1)!.isV4Mapped)
        #expect(SocketAddress(ip: "10.0.0.7", port: 1)!.unmapped == SocketAddress(ip: "10.0.0.7", port: 1)!)
    }

    /// A direct connection to a transparent listener: closed at once, with a logged reason.
    @Test func directConnectionsAreRefusedAndLogged() throws {
        let lines = LogLines()
        var config = ProxyConfiguration(listen: SocketAddress(ip: "127.0.0.1", port: 0)!, threads: 1)
        config.transparent = true
        config.log = { lines.append($0) }
        let server = ProxyServer(configuration: config)
        let address = try server.start()
        defer { server.stop() }
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var tv = timeval(tv_sec: 5, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, socklen_t(MemoryLayout<timeval>.size))
        var sin = sockaddr_in()
        sin.sin_family = sa_family_t(AF_INET)
        sin.sin_port = in_port_t(UInt16(address.port).bigEndian)
        sin.sin_addr.s_addr = inet_addr("127.0.0.1")
        let rc = withUnsafePointer(to: &sin) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) } }
        #expect(rc == 0)
        let request = Array("GET / HTTP/1.1\r\nHost: example.com\r\n\r\n".utf8)
        _ = request.withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
        var buffer = [UInt8](repeating: 0, count: 64)
        let n = recv(fd, &buffer, buffer.count, 0)
        #expect(n <= 0, "the listener answered a connection that was not redirected")
        let deadline = Date().addingTimeInterval(5)
        while lines.value.isEmpty && Date() < deadline { usleep(10_000) }
        let text = lines.value.joined(separator: "\n")
        #expect(text.contains("no NAT entry") || text.contains("would loop"), "\(text)")
        #expect(server.statistics?.refusedConnections == 1)
    }
}

final class LogLines: @unchecked Sendable {
    private let lock = NSLock()
    private var lines: [String] = []
    func append(_ s: String) { lock.lock(); lines.append(s); lock.unlock() }
    var value: [String] { lock.lock(); defer { lock.unlock() }; return lines }
}

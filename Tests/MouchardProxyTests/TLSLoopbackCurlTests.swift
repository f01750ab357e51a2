import Foundation
import MouchardTestSupport
import MouchardTLS
import Testing

/// A one-connection TLS server on 127.0.0.1 with a blocking socket, driving a TLSServerSession:
/// real clients (curl) against our engine. Test-only; the proxy has its own event loop.
final class LoopbackTLSServer: @unchecked Sendable {
    struct Outcome: Sendable {
        var serverName: String?
        var request: [UInt8] = []
        var failure: TLSError?
        var alpn: String?
        var version: String?
    }

    let port: UInt16
    private let listener: Int32
    private let done = DispatchSemaphore(value: 0)
    private let lock = NSLock()
    private var outcome = Outcome()

    init() throws {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw TLSError.file(path: "socket", reason: "socket() failed") }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { pointer in
                bind(fd, pointer, length) == 0 && listen(fd, 4) == 0 && getsockname(fd, pointer, &length) == 0
            }
        }
        guard bound else { close(fd); throw TLSError.file(path: "127.0.0.1", reason: "bind/listen failed") }
        var timeout = timeval(tv_sec: 15, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        listener = fd
        port = UInt16(bigEndian: address.sin_port)
    }

    deinit { close(listener) }

    /// Serves one connection on a background thread: TLS with a leaf minted from the SNI,
    /// reads one HTTP request head, answers `body`, sends close_notify.
    func serveOne(context: TLSServerContext, minter: LeafCertificateMinter, body: String) {
        Thread.detachNewThread { [self] in
            var result = Outcome()
            defer {
                lock.withLock { outcome = result }
                done.signal()
            }
            let connection = accept(listener, nil, nil)
            guard connection >= 0 else { result.failure = .closedDuringHandshake; return }
            defer { close(connection) }
            var timeout = timeval(tv_sec: 15, tv_usec: 0)
            setsockopt(connection, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
            guard let session = try? TLSServerSession(context: context) else { return }
            var buffer = [UInt8](repeating: 0, count: 16_384)
            for _ in 0..<200 {
                let n = recv(connection, &buffer, buffer.count, 0)
                var events = n > 0 ? session.feed(Array(buffer[0..<n])) : session.endOfInput()
                var index = 0
                while index < events.count {
                    switch events[index] {
                    case .clientHello(let hello):
                        result.serverName = hello.serverName
                        if let identity = try? minter.identity(serverName: hello.serverName ?? "localhost") {
                            events += session.provideIdentity(identity)
                        }
                    case .plaintext(let bytes):
                        result.request += bytes
                    case .failed(let error):
                        result.failure = error
                    default:
                        break
                    }
                    index += 1
                }
                if result.request.count >= 4, result.request.suffix(4).elementsEqual(Array("\r\n\r\n".utf8)) {
                    result.alpn = session.alpnProtocol
                    result.version = session.protocolVersion
                    try? session.write(Array("HTTP/1.1 200 OK\r\nContent-Length: \(body.utf8.count)\r\nConnection: close\r\n\r\n\(body)".utf8))
                    session.close()
                }
                let output = session.pendingOutput()
                if !output.isEmpty { _ = output.withUnsafeBytes { send(connection, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) } }
                if n <= 0 || result.failure != nil || session.closeNotifyReceived || (result.alpn != nil || result.version != nil) { return }
            }
        }
    }

    /// Waits (bounded) for the connection to end.
    func wait() -> Outcome? {
        guard done.wait(timeout: .now() + 20) == .success else { return nil }
        return lock.withLock { outcome }
    }
}

func runCurl(_ arguments: [String]) throws -> (status: Int32, output: String) { try runTool("curl", arguments) }

@Suite(.requires(.curl)) struct TLSLoopbackCurlTests {
    @Test func curlTrustingOurCAGetsTheResponseOverHTTP1() throws {
        let keyLogPath = try makeTemporaryDirectory() + "/keys.log"
        let fixture = try TLSFixture(keyLog: try TLSKeyLog(path: keyLogPath))
        let server = try LoopbackTLSServer()
        server.serveOne(context: fixture.server, minter: fixture.minter, body: "hello from mouchard")
        let url = "https://curl.test:\(server.port)/hello"
        let curl = try runCurl(["-sS", "--max-time", "15", "--tlsv1.2", "--tls-max", "1.2", "--cacert", fixture.authority.certificatePath,
                                "--resolve", "curl.test:\(server.port):127.0.0.1", "-w", "\n%{http_version}", url])
        let outcome = try #require(server.wait())
        #expect(curl.status == 0, "\(curl.output)")
        #expect(curl.output == "hello from mouchard\n1.1")
        #expect(outcome.serverName == "curl.test")
        #expect(outcome.alpn == "http/1.1")
        #expect(outcome.version == "TLSv1.2")
        #expect(String(decoding: outcome.request, as: UTF8.self).hasPrefix("GET /hello HTTP/1.1\r\n"))
        // TLS 1.2 secrets are logged as CLIENT_RANDOM <64 hex> <96 hex>.
        let log = try String(contentsOfFile: keyLogPath, encoding: .utf8)
        let line = try #require(log.split(separator: "\n").first { $0.hasPrefix("CLIENT_RANDOM ") })
        let fields = line.split(separator: " ")
        #expect(fields.count == 3 && fields[1].count == 64 && fields[2].count == 96)
    }

    @Test(arguments: ["1.2", "1.3"])
    func curlNotTrustingOurCAIsRecordedAsRejectionWithItsSNI(tlsVersion: String) throws {
        let fixture = try TLSFixture()
        let server = try LoopbackTLSServer()
        server.serveOne(context: fixture.server, minter: fixture.minter, body: "never sent")
        let otherCA = try CertificateAuthority.loadOrCreate(directory: try makeTemporaryDirectory())
        let curl = try runCurl(["-sS", "--max-time", "15", "--tlsv\(tlsVersion)", "--tls-max", tlsVersion,
                                "--cacert", otherCA.certificatePath,
                                "--resolve", "pinned.test:\(server.port):127.0.0.1", "https://pinned.test:\(server.port)/"])
        let outcome = try #require(server.wait())
        #expect(curl.status == 60, "\(curl.output)")
        #expect(outcome.serverName == "pinned.test")
        guard case .clientRejectedCertificate(let sni, let alert) = outcome.failure else {
            Issue.record("server saw \(String(describing: outcome.failure))"); return
        }
        #expect(sni == "pinned.test")
        #expect(alert == "unknown CA")
    }
}

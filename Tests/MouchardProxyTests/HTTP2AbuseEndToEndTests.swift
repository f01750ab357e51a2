import Foundation
import MouchardHTTP2
import MouchardTestSupport
import Synchronization
import Testing

/// The abuse limits on a running proxy: an attacking client (raw frames over a real intercepted
/// TLS connection, from a Python script) is closed with the right GOAWAY while a normal client, on
/// another connection through the same proxy, goes on getting every answer.
@Suite(.serialized, .requires(.openssl), .requires(.python3), .requires(.curl), .requires(.nginx))
struct HTTP2AbuseEndToEndTests {
    /// CONNECT through the proxy, TLS with ALPN h2 (trusting the proxy's CA), then one attack's
    /// frames, sent 16 KiB at a time while reading what comes back; prints `alpn h2`, then
    /// `goaway CODE` (or `no goaway`) and `frames-sent N` once the proxy closed the connection.
    static let attacker = #"""
import select, socket, ssl, sys, time
proxy_port, target_port, ca, attack = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3], sys.argv[4]

def frame(kind, flags, stream, payload=b""):
    return len(payload).to_bytes(3, "big") + bytes([kind, flags]) + stream.to_bytes(4, "big") + payload

HEADERS, RST, SETTINGS, CONTINUATION, END_STREAM, END_HEADERS = 1, 3, 4, 9, 1, 4
opening = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n" + frame(SETTINGS, 0, 0) + frame(SETTINGS, 1, 0)
get = bytes([0x82, 0x87, 0x84, 0x01, 9]) + b"localhost"  # GET https://localhost/
if attack == "rapid-reset":
    pieces = [frame(HEADERS, END_HEADERS | END_STREAM, 2 * i + 1, get) + frame(RST, 0, 2 * i + 1, (8).to_bytes(4, "big"))
              for i in range(3000)]
elif attack == "hpack-bomb":
    # A 4,000-byte field into the dynamic table, then blocks referring to it 12,000 times.
    literal = bytes([0x40, 0x01, ord("x"), 0x7F, 0x81, 0x1E]) + b"x" * 4000
    pieces = [frame(HEADERS, END_HEADERS | END_STREAM, 1, get + literal + bytes([0xBE]) * 12000)]
    pieces += [frame(HEADERS, END_HEADERS | END_STREAM, 2 * i + 1, get + bytes([0xBE]) * 12000) for i in range(1, 18)]
else:  # continuation-flood
    pieces = [frame(HEADERS, END_STREAM, 1, get)] + [frame(CONTINUATION, 0, 1, bytes([0x40, 0x01, 0x61, 0x01, 0x62]))] * 20
data = opening + b"".join(pieces)

\#(ProxiedH2Client.python)
tls = h2_through_proxy(proxy_port, target_port, ca)
received = b""
def read_some(wait):
    global received
    if select.select([tls], [], [], wait)[0] or tls.pending():
        chunk = tls.recv(65536)
        if not chunk:
            return False
        received += chunk
    return True
sent, open_ = 0, True
try:
    while sent < len(data) and open_:
        tls.sendall(data[sent:sent + 16384])
        sent += 16384
        open_ = read_some(0)
    deadline = time.time() + 15
    while open_ and time.time() < deadline:
        open_ = read_some(0.5)
except (OSError, ssl.SSLError):
    pass
code, i = None, 0
while i + 9 <= len(received):
    n = int.from_bytes(received[i:i + 3], "big")
    if received[i + 3] == 7 and i + 9 + n <= len(received):
        code = int.from_bytes(received[i + 13:i + 17], "big")
    i += 9 + n
print("goaway", code if code is not None else "none", flush=True)
print("bytes-sent", min(sent, len(data)), "of", len(data), flush=True)
"""#

    enum Origin: String, CaseIterable { case h2, http1 }

    struct Case: Sendable, CustomTestStringConvertible {
        var attack: String
        var goaway: UInt32
        var origin: Origin
        var testDescription: String { "\(attack) (\(origin.rawValue) origin)" }
    }

    static let cases: [Case] = [("rapid-reset", HTTP2ErrorCode.internalError), ("hpack-bomb", HTTP2ErrorCode.enhanceYourCalm),
                                ("continuation-flood", HTTP2ErrorCode.enhanceYourCalm)]
        .flatMap { a in Origin.allCases.map { Case(attack: a.0, goaway: a.1, origin: $0) } }

    /// Requests a normal client makes on its one connection while the attack runs (each answer
    /// waits 50 ms at the origin, so the client is busy for 3 s at least).
    static let normalRequests = 60

    @Test(.timeLimit(.minutes(2)), arguments: cases)
    func attackerClosedWhileAnotherClientIsServed(_ c: Case) throws {
        let origins = try OriginFixture()
        defer { origins.stop() }
        let nginx = c.origin == .h2 ? try NginxH2Origin(origins: origins, idfa: "none") : nil
        defer { nginx?.stop() }
        let proxy = try ProxyFixture(origins: origins)
        defer { proxy.stop() }
        let port = nginx?.port ?? origins.httpsPort
        let script = origins.directory + "/attacker.py"
        try Self.attacker.write(toFile: script, atomically: true, encoding: .utf8)
        let curl = try #require(TestTool.curl.path), python = try #require(TestTool.python3.path)

        // The normal client: one h2 connection, its requests one after the other.
        var normal: [String] = []
        for i in 0..<Self.normalRequests {
            if i > 0 { normal.append("--next") }
            normal += ["--http2", "-sS", "--max-time", "20", "-x", proxy.proxyURL, "--cacert", proxy.caPath, "-o", "/dev/null",
                       "-w", "%{http_version} %{response_code}\\n", "https://localhost:\(port)/slow?s=0.05&i=\(i)"]
        }
        let normalDone = DispatchSemaphore(value: 0)
        let normalResult = Mutex<(output: String, end: Date)?>(nil)
        let arguments = normal
        DispatchQueue.global().async {
            let r = try? runProcess(curl, arguments, timeout: 60)
            normalResult.withLock { $0 = (String(decoding: r?.output ?? Data(), as: UTF8.self), Date()) }
            normalDone.signal()
        }
        Thread.sleep(forTimeInterval: 0.3)  // the normal client is connected and busy

        let attack = try runProcess(python, [script, String(proxy.address.port), String(port), proxy.caPath, c.attack], timeout: 60)
        let attackEnd = Date()
        let said = String(decoding: attack.output, as: UTF8.self)
        #expect(said.contains("alpn h2\n"), "\(said)")
        #expect(said.contains("goaway \(c.goaway)\n"), "\(said)")

        #expect(normalDone.wait(timeout: .now() + 60) == .success)
        let (output, normalEnd) = try #require(normalResult.withLock { $0 })
        // The attack was over before the normal client finished: they overlapped.
        #expect(attackEnd < normalEnd)
        let answers = output.split(separator: "\n")
        #expect(answers.count == Self.normalRequests && answers.allSatisfy { $0 == "2 200" }, "\(answers)")
        #expect(proxy.server.statistics?.http2Refused == 1)
        proxy.stop()
        #expect(try proxy.flows().filter { $0.request?.path.hasPrefix("/slow") == true && $0.error == nil }.count == Self.normalRequests)
    }
}

/// Python for a client of the proxy: `h2_through_proxy(proxy_port, target_port, ca)` opens a CONNECT
/// tunnel to localhost:target_port, TLS trusting the proxy's CA with ALPN h2, prints `alpn NAME`
/// and returns the TLS socket. And for an origin: `tls_origin(cert, key, alpn, serve)` listens on a
/// loopback port (returned), each TLS connection (ALPN `alpn`) served by `serve(sock)` in a thread.
enum ProxiedH2Client {
    static let python = #"""
def h2_through_proxy(proxy_port, target_port, ca):
    raw = socket.create_connection(("127.0.0.1", proxy_port), timeout=20)
    raw.sendall(b"CONNECT localhost:%d HTTP/1.1\r\nHost: localhost:%d\r\n\r\n" % (target_port, target_port))
    head = b""
    while b"\r\n\r\n" not in head:
        head += raw.recv(1)
    context = ssl.create_default_context(cafile=ca)
    context.set_alpn_protocols(["h2"])
    tls = context.wrap_socket(raw, server_hostname="localhost")
    print("alpn", tls.selected_alpn_protocol(), flush=True)
    return tls

def tls_origin(cert, key, alpn, serve):
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(8)
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(cert, key)
    context.set_alpn_protocols(alpn)
    def accept():
        while True:
            raw, _ = listener.accept()
            threading.Thread(target=serve, args=(context.wrap_socket(raw, server_side=True),), daemon=True).start()
    threading.Thread(target=accept, daemon=True).start()
    return listener.getsockname()[1]
"""#
}

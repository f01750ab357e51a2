import Foundation
import MouchardCodec
import MouchardFindings
import MouchardFlow
import MouchardInspection
import MouchardPosix
import MouchardProxy
import MouchardStore

/// A child process the test started, killed when the test ends (by its own pid).
final class ChildProcess: @unchecked Sendable {
    let process = Process()

    init(_ executable: String, _ arguments: [String], environment: [String: String]? = nil) throws {
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        if let environment { process.environment = environment }
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
    }

    /// Kills the child by its pid (SIGKILL: a test runner may have SIGTERM ignored, which children inherit).
    func stop() {
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        process.waitUntilExit()
    }

    deinit { stop() }
}

/// Runs a program to completion (bounded by `timeout` seconds); returns exit status and stdout.
@discardableResult
func runProcess(_ executable: String, _ arguments: [String], timeout: Double = 60) throws -> (status: Int32, output: Data) {
    let p = Process()
    p.executableURL = URL(fileURLWithPath: executable)
    p.arguments = arguments
    let out = Pipe()
    p.standardOutput = out
    p.standardError = FileHandle.nullDevice
    try p.run()
    let deadline = Date().addingTimeInterval(timeout)
    var data = Data()
    let reader = Thread {}
    _ = reader
    let handle = out.fileHandleForReading
    // Read in the background so a large output cannot block the child.
    let box = DataBox()
    let t = Thread {
        box.set(handle.readDataToEndOfFile())
    }
    t.start()
    while p.isRunning && Date() < deadline { usleep(10_000) }
    if p.isRunning { p.terminate() }
    p.waitUntilExit()
    while !box.done && Date() < deadline.addingTimeInterval(5) { usleep(5_000) }
    data = box.data
    return (p.terminationStatus, data)
}

final class DataBox: @unchecked Sendable {
    private let lock = NSLock()
    private var value = Data()
    private var finished = false
    func set(_ d: Data) { lock.lock(); value = d; finished = true; lock.unlock() }
    var data: Data { lock.lock(); defer { lock.unlock() }; return value }
    var done: Bool { lock.lock(); defer { lock.unlock() }; return finished }
}

/// Finds a program on PATH.
func which(_ name: String) -> String? {
    for dir in (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin").split(separator: ":") {
        let p = "\(dir)/\(name)"
        if FileManager.default.isExecutableFile(atPath: p) { return p }
    }
    return nil
}

/// Test origins: a small Python HTTP/1.1 server (plain or TLS with a test CA made with the
/// openssl CLI) with endpoints for fixed bytes, chunked, gzip, echo and a slow response.
struct OriginFixture {
    static let script = #"""
import gzip, hashlib, http.server, json, ssl, sys, time

def body_bytes(n, seed):
    out = bytearray()
    block = 0
    while len(out) < n:
        out += hashlib.sha256(b"%d-%d" % (seed, block)).digest()
        block += 1
    return bytes(out[:n])

class H(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    def log_message(self, *a): pass

    def read_body(self):
        if self.headers.get("Transfer-Encoding", "").lower() == "chunked":
            data = bytearray()
            while True:
                size = int(self.rfile.readline().split(b";")[0].strip(), 16)
                if size == 0:
                    while self.rfile.readline() not in (b"\r\n", b"\n", b""): pass
                    return bytes(data)
                data += self.rfile.read(size)
                self.rfile.readline()
        n = int(self.headers.get("Content-Length", "0"))
        return self.rfile.read(n) if n else b""

    def send(self, status, body, headers=()):
        self.send_response(status)
        for k, v in headers: self.send_header(k, v)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def query(self):
        q = {}
        if "?" in self.path:
            for part in self.path.split("?", 1)[1].split("&"):
                k, _, v = part.partition("=")
                q[k] = v
        return q

    def do_GET(self):
        path = self.path.split("?")[0]
        q = self.query()
        if path == "/upgrade" and self.headers.get("Upgrade", "").lower() == "echo":
            # A toy protocol after 101: every byte is echoed until the client closes.
            self.send_response(101)
            self.send_header("Upgrade", "echo")
            self.send_header("Connection", "Upgrade")
            self.end_headers()
            self.wfile.flush()
            while True:
                data = self.connection.recv(65536)
                if not data: break
                self.connection.sendall(data)
            self.close_connection = True
            return
        if path == "/bytes":
            self.send(200, body_bytes(int(q.get("n", "0")), int(q.get("seed", "1"))), [("Content-Type", "application/octet-stream")])
        elif path == "/chunked":
            data = body_bytes(int(q.get("n", "0")), 7)
            self.send_response(200)
            self.send_header("Transfer-Encoding", "chunked")
            self.end_headers()
            for i in range(0, len(data), 8191):
                piece = data[i:i + 8191]
                self.wfile.write(b"%x\r\n" % len(piece) + piece + b"\r\n")
            self.wfile.write(b"0\r\n\r\n")
        elif path == "/gzip":
            raw = b"gzip body " * 5000
            self.send(200, gzip.compress(raw), [("Content-Encoding", "gzip"), ("Content-Type", "text/plain")])
        elif path == "/headers":
            self.send(200, json.dumps([[k, v] for k, v in self.headers.items()]).encode(), [("Content-Type", "application/json")])
        elif path == "/slow":
            time.sleep(float(q.get("s", "3")))
            self.send(200, b"late")
        else:
            self.send(200, b"ok " + self.path.encode())

    def do_POST(self):
        if self.path.startswith("/count"):
            n, h = 0, hashlib.sha256()
            left = int(self.headers.get("Content-Length", "0"))
            while left > 0:
                piece = self.rfile.read(min(left, 1 << 20))
                if not piece: break
                n += len(piece); left -= len(piece); h.update(piece)
            self.send(200, b"%d %s" % (n, h.hexdigest().encode()))
            return
        body = self.read_body()
        self.send(200, body, [("X-Body-SHA256", hashlib.sha256(body).hexdigest())])
    do_PUT = do_POST

srv = http.server.ThreadingHTTPServer(("127.0.0.1", 0), H)
srv.daemon_threads = True
if len(sys.argv) > 3:
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    ctx.load_cert_chain(sys.argv[2], sys.argv[3])
    srv.socket = ctx.wrap_socket(srv.socket, server_side=True)
with open(sys.argv[1] + ".tmp", "w") as f: f.write(str(srv.server_address[1]))
import os; os.rename(sys.argv[1] + ".tmp", sys.argv[1])
srv.serve_forever()
"""#

    let directory: String
    let httpPort: Int
    let httpsPort: Int
    /// The test CA that signed the HTTPS origin's certificate (for `--upstream-ca`).
    let originCA: String
    private let children: [ChildProcess]

    init() throws {
        directory = NSTemporaryDirectory() + "mouchard-proxy-e2e-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let scriptPath = directory + "/origin.py"
        try Self.script.write(toFile: scriptPath, atomically: true, encoding: .utf8)
        guard let openssl = which("openssl"), let python = which("python3") else { throw CLIFailure("openssl and python3 are needed") }
        let d = directory
        try runProcess(openssl, ["req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes",
                              "-keyout", "\(d)/ca.key", "-out", "\(d)/ca.pem", "-days", "2", "-subj", "/CN=Mouchard Test Origin CA"])
        try runProcess(openssl, ["req", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes",
                              "-keyout", "\(d)/srv.key", "-out", "\(d)/srv.csr", "-subj", "/CN=localhost"])
        try "subjectAltName=DNS:localhost,IP:127.0.0.1\nextendedKeyUsage=serverAuth\n".write(toFile: "\(d)/ext.cnf", atomically: true, encoding: .utf8)
        try runProcess(openssl, ["x509", "-req", "-in", "\(d)/srv.csr", "-CA", "\(d)/ca.pem", "-CAkey", "\(d)/ca.key",
                              "-CAcreateserial", "-out", "\(d)/srv.pem", "-days", "2", "-extfile", "\(d)/ext.cnf"])
        originCA = "\(d)/ca.pem"
        let plain = try ChildProcess(python, [scriptPath, "\(d)/http.port"])
        let tls = try ChildProcess(python, [scriptPath, "\(d)/https.port", "\(d)/srv.pem", "\(d)/srv.key"])
        children = [plain, tls]
        httpPort = try Self.waitForPort("\(d)/http.port")
        httpsPort = try Self.waitForPort("\(d)/https.port")
    }

    static func waitForPort(_ file: String) throws -> Int {
        let deadline = Date().addingTimeInterval(20)
        while Date() < deadline {
            if let text = try? String(contentsOfFile: file, encoding: .utf8), let port = Int(text) { return port }
            usleep(20_000)
        }
        throw CLIFailure("test origin did not start (\(file))")
    }

    func stop() { for c in children { c.stop() } }

    /// The bytes `/bytes?n=N&seed=S` returns (same algorithm as the script).
    static func expectedBytes(_ n: Int, seed: Int) -> [UInt8] {
        var out: [UInt8] = []
        var block = 0
        while out.count < n {
            out += DigestAlgorithm.sha256.digest(Array("\(seed)-\(block)".utf8))
            block += 1
        }
        return Array(out.prefix(n))
    }
}

struct CLIFailure: Error, CustomStringConvertible {
    var description: String
    init(_ d: String) { description = d }
}

/// A proxy started in-process on an ephemeral loopback port, with a real session store and inspector.
final class ProxyFixture: @unchecked Sendable {
    let home: String
    let server: ProxyServer
    let audit: LiveAudit
    let store: SessionStore
    let address: SocketAddress
    let console = ConsoleCollector()

    init(origins: OriginFixture, ignoreHosts: [String] = [], profile: DeviceProfile? = nil, bodyLimit: Int = 16 << 20,
         responseTimeoutMilliseconds: UInt64 = 60_000) throws {
        home = origins.directory + "/home-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: home, withIntermediateDirectories: true)
        store = try SessionStore(directory: home + "/session", create: true)
        let settings = InterceptionSettings(authorityDirectory: home, upstreamCAFile: origins.originCA,
                                            keyLogPath: home + "/keys.log")
        let interceptor = try TLSInterceptor(settings: settings)
        let collector = console
        audit = LiveAudit(inspector: Inspector(rules: RuleSet(), profile: profile), store: store,
                          console: LiveAudit.Console(logFlows: true, write: { collector.append($0) }))
        let config = ProxyConfiguration(listen: SocketAddress(ip: "127.0.0.1", port: 0)!, threads: 2, ignoreHosts: ignoreHosts,
                                        bodyCaptureLimit: bodyLimit, responseTimeoutMilliseconds: responseTimeoutMilliseconds,
                                        interception: settings)
        server = ProxyServer(configuration: config, sink: audit.sink, interceptor: interceptor,
                             localResponder: interceptor.onboardingResponder)
        address = try server.start()
    }

    var proxyURL: String { "http://127.0.0.1:\(address.port)" }
    var caPath: String { home + "/mouchard-ca.pem" }
    var keyLogPath: String { home + "/keys.log" }

    /// Stops the proxy and waits for the audit to store everything.
    func stop() {
        server.stop()
        audit.finish()
    }

    func flows() throws -> [Flow] { try store.flows() }
    func findings() throws -> [Finding] { try store.findings() }
}

final class ConsoleCollector: @unchecked Sendable {
    private let lock = NSLock()
    private var text = ""
    func append(_ s: String) { lock.lock(); text += s; lock.unlock() }
    var value: String { lock.lock(); defer { lock.unlock() }; return text }
}

typealias MouchardPosixSocket = MouchardPosix.Socket

enum SocketAddressMaker {
    static func loopback(_ port: Int) -> SocketAddress { SocketAddress(ip: "127.0.0.1", port: port)! }
}

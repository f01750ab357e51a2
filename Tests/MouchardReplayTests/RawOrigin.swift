import Foundation

/// A test origin that logs every request exactly as its bytes arrived (head and body) and answers
/// with a JSON body naming the request: a Python script on loopback, plain and TLS (a test CA made
/// with the openssl CLI). `requests()` reads the log back.
final class RawOrigin: @unchecked Sendable {
    static let script = #"""
import json, os, socket, ssl, sys, threading

log_path, port_path = sys.argv[1], sys.argv[2]
lock = threading.Lock()

def serve(conn):
    buf = b""
    try:
        while True:
            while b"\r\n\r\n" not in buf:
                data = conn.recv(65536)
                if not data: return
                buf += data
            head, _, rest = buf.partition(b"\r\n\r\n")
            length = 0
            for line in head.split(b"\r\n")[1:]:
                name, _, value = line.partition(b":")
                if name.strip().lower() == b"content-length": length = int(value.strip())
            while len(rest) < length:
                data = conn.recv(65536)
                if not data: return
                rest += data
            raw = head + b"\r\n\r\n" + rest[:length]
            buf = rest[length:]
            with lock:
                with open(log_path, "ab") as f:
                    f.write(b"%d\n" % len(raw) + raw)
            target = head.split(b"\r\n")[0].split(b" ")[1].decode("latin-1")
            body = json.dumps({"target": target, "bodyBytes": length, "n": [1, 2, 3]}).encode()
            conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nX-Origin: raw\r\nContent-Length: %d\r\n\r\n" % len(body) + body)
    except Exception:
        pass
    finally:
        conn.close()

srv = socket.socket()
srv.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
srv.bind(("127.0.0.1", 0))
srv.listen(64)
ctx = None
if len(sys.argv) > 4:
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    ctx.load_cert_chain(sys.argv[3], sys.argv[4])
with open(port_path + ".tmp", "w") as f: f.write(str(srv.getsockname()[1]))
os.rename(port_path + ".tmp", port_path)
while True:
    c, _ = srv.accept()
    if ctx is not None:
        try:
            c = ctx.wrap_socket(c, server_side=True)
        except Exception:
            c.close()
            continue
    threading.Thread(target=serve, args=(c,), daemon=True).start()
"""#

    let directory: String
    let httpPort: Int
    let httpsPort: Int
    let originCA: String
    private var processes: [Process] = []

    init() throws {
        directory = NSTemporaryDirectory() + "mouchard-replay-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let d = directory
        try Self.script.write(toFile: "\(d)/origin.py", atomically: true, encoding: .utf8)
        let openssl = try Self.which("openssl"), python = try Self.which("python3")
        try Self.run(openssl, ["req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes",
                               "-keyout", "\(d)/ca.key", "-out", "\(d)/ca.pem", "-days", "2", "-subj", "/CN=Mouchard Replay Test CA"])
        try Self.run(openssl, ["req", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes",
                               "-keyout", "\(d)/srv.key", "-out", "\(d)/srv.csr", "-subj", "/CN=localhost"])
        try "subjectAltName=DNS:localhost,IP:127.0.0.1\nextendedKeyUsage=serverAuth\n".write(toFile: "\(d)/ext.cnf", atomically: true, encoding: .utf8)
        try Self.run(openssl, ["x509", "-req", "-in", "\(d)/srv.csr", "-CA", "\(d)/ca.pem", "-CAkey", "\(d)/ca.key",
                               "-CAcreateserial", "-out", "\(d)/srv.pem", "-days", "2", "-extfile", "\(d)/ext.cnf"])
        originCA = "\(d)/ca.pem"
        processes.append(try Self.start(python, ["\(d)/origin.py", "\(d)/http.log", "\(d)/http.port"]))
        processes.append(try Self.start(python, ["\(d)/origin.py", "\(d)/https.log", "\(d)/https.port", "\(d)/srv.pem", "\(d)/srv.key"]))
        httpPort = try Self.waitForPort("\(d)/http.port")
        httpsPort = try Self.waitForPort("\(d)/https.port")
    }

    /// The requests received so far on the plain (or TLS) port, each as its bytes.
    func requests(tls: Bool = false) -> [[UInt8]] {
        guard let data = FileManager.default.contents(atPath: "\(directory)/\(tls ? "https" : "http").log") else { return [] }
        let bytes = [UInt8](data)
        var out: [[UInt8]] = []
        var i = 0
        while let nl = bytes[i...].firstIndex(of: 0x0A), let n = Int(String(decoding: bytes[i..<nl], as: UTF8.self)),
              nl + 1 + n <= bytes.count {
            out.append(Array(bytes[(nl + 1)..<(nl + 1 + n)]))
            i = nl + 1 + n
        }
        return out
    }

    func clearLogs() {
        try? FileManager.default.removeItem(atPath: "\(directory)/http.log")
        try? FileManager.default.removeItem(atPath: "\(directory)/https.log")
    }

    func stop() {
        for p in processes where p.isRunning {
            kill(p.processIdentifier, SIGKILL)
            p.waitUntilExit()
        }
        processes = []
    }

    deinit { stop() }

    struct Failure: Error, CustomStringConvertible { var description: String }

    static func which(_ name: String) throws -> String {
        for dir in (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin").split(separator: ":")
        where FileManager.default.isExecutableFile(atPath: "\(dir)/\(name)") {
            return "\(dir)/\(name)"
        }
        throw Failure(description: "\(name) is needed")
    }

    static func start(_ executable: String, _ arguments: [String]) throws -> Process {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: executable)
        p.arguments = arguments
        p.standardOutput = FileHandle.nullDevice
        p.standardError = FileHandle.nullDevice
        try p.run()
        return p
    }

    /// Runs a program to completion (at most `timeout` s); returns its status and standard output.
    @discardableResult
    static func run(_ executable: String, _ arguments: [String], timeout: Double = 60) throws -> (status: Int32, output: [UInt8]) {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: executable)
        p.arguments = arguments
        let out = Pipe()
        p.standardOutput = out
        p.standardError = FileHandle.nullDevice
        try p.run()
        let box = OutputBox()
        let reader = Thread { box.set(out.fileHandleForReading.readDataToEndOfFile()) }
        reader.start()
        let deadline = Date().addingTimeInterval(timeout)
        while p.isRunning && Date() < deadline { usleep(10_000) }
        if p.isRunning { kill(p.processIdentifier, SIGKILL) }
        p.waitUntilExit()
        while !box.done && Date() < deadline.addingTimeInterval(5) { usleep(5_000) }
        return (p.terminationStatus, [UInt8](box.data))
    }

    static func waitForPort(_ file: String) throws -> Int {
        let deadline = Date().addingTimeInterval(20)
        while Date() < deadline {
            if let text = try? String(contentsOfFile: file, encoding: .utf8), let port = Int(text) { return port }
            usleep(20_000)
        }
        throw Failure(description: "test origin did not start (\(file))")
    }
}

final class OutputBox: @unchecked Sendable {
    private let lock = NSLock()
    private var value = Data()
    private var finished = false
    func set(_ d: Data) { lock.lock(); value = d; finished = true; lock.unlock() }
    var data: Data { lock.lock(); defer { lock.unlock() }; return value }
    var done: Bool { lock.lock(); defer { lock.unlock() }; return finished }
}

/// `curl -sS` with a bounded time; never through a proxy from the environment.
func curl(_ args: [String]) throws -> (status: Int32, output: [UInt8]) {
    try RawOrigin.run(try RawOrigin.which("curl"), ["-sS", "--max-time", "20", "--noproxy", ""] + args, timeout: 30)
}

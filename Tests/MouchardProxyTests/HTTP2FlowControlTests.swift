import Foundation
import MouchardHTTP2
@testable import MouchardProxy
import MouchardTestSupport
import Testing

/// HTTP/2 back-pressure through flow control: a client uploading a large body on one stream while
/// downloading another on the same intercepted h2 connection, both peers reading slower than
/// loopback (Python `h2` from `.venv/`). Back-pressure applied by pausing socket reads stalled this
/// for ever (neither side's WINDOW_UPDATE was read any more); with windows credited only once the
/// bytes have left for the other side, both transfers end and the bytes held stay under the bound.
@Suite(.serialized, .requires(.openssl), .requires(.python3), .requiresPython("h2"))
struct HTTP2FlowControlTests {
    static let megabytes = 24

    /// argv: server certificate, key, proxy port, proxy CA, MiB each way, origin kind. An `h2`
    /// origin answers `POST /upload` with the count it read and `GET /download` with that many
    /// bytes; the client prints `upload N` (the origin's count), `download N` (bytes it read). An
    /// `http1` origin (HTTP/1.1 only: the proxy translates) echoes a POST body in chunks as it reads
    /// it; the client uploads on one stream and prints `echo N`. `stalled` when the deadline passed.
    static let script = #"""
import socket, ssl, sys, threading, time
import h2.config, h2.connection, h2.events

cert, key, proxy_port, ca, mib, kind = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4], int(sys.argv[5]), sys.argv[6]
size = mib << 20
PACE = 0.004   # slept after each read: both peers read slower than loopback
CHUNK = 16384
deadline = time.time() + 45

def run(sock, conn, handle, outgoing, done):
    # Sends what the windows allow, reads (paced), acknowledges read data, until done() or the deadline.
    while not done():
        if time.time() > deadline:
            return False
        for sid in list(outgoing):
            left = outgoing[sid]
            while left > 0:
                n = min(CHUNK, left, conn.local_flow_control_window(sid))
                if n <= 0:
                    break
                conn.send_data(sid, b"x" * n, end_stream=(n == left))
                left -= n
            outgoing[sid] = left
            if left == 0:
                del outgoing[sid]
        out = conn.data_to_send()
        if out:
            sock.settimeout(5)
            try:
                sock.sendall(out)
            except socket.timeout:
                return False
        sock.settimeout(0.02)
        try:
            data = sock.recv(65536)
        except socket.timeout:
            continue
        if not data:
            return False
        time.sleep(PACE)
        for e in conn.receive_data(data):
            if isinstance(e, h2.events.DataReceived):
                conn.acknowledge_received_data(e.flow_controlled_length, e.stream_id)
            handle(e, outgoing)
    sock.settimeout(5)
    sock.sendall(conn.data_to_send())
    return True

def serve(sock):
    conn = h2.connection.H2Connection(config=h2.config.H2Configuration(client_side=False, header_encoding="utf-8"))
    conn.initiate_connection()
    sock.sendall(conn.data_to_send())
    read = {}
    def handle(e, outgoing):
        if isinstance(e, h2.events.RequestReceived):
            if dict(e.headers)[":path"] == "/download":
                conn.send_headers(e.stream_id, [(":status", "200"), ("content-length", str(size))])
                outgoing[e.stream_id] = size
            else:
                read[e.stream_id] = 0
        elif isinstance(e, h2.events.DataReceived):
            read[e.stream_id] += len(e.data)
        elif isinstance(e, h2.events.StreamEnded) and e.stream_id in read:
            conn.send_headers(e.stream_id, [(":status", "200")])
            conn.send_data(e.stream_id, str(read[e.stream_id]).encode(), end_stream=True)
    run(sock, conn, handle, {}, lambda: False)

def serve_http1(sock):
    # One POST: its body read in paced pieces, each written back at once as a chunk.
    head = b""
    while b"\r\n\r\n" not in head:
        head += sock.recv(1)
    length = int([l.split(b":")[1] for l in head.split(b"\r\n") if l.lower().startswith(b"content-length:")][0])
    sock.sendall(b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n")
    while length > 0:
        piece = sock.recv(min(65536, length))
        if not piece:
            return
        length -= len(piece)
        time.sleep(PACE)
        sock.sendall(b"%x\r\n%s\r\n" % (len(piece), piece))
    sock.sendall(b"0\r\n\r\n")
    sock.close()

\#(ProxiedH2Client.python)
port = tls_origin(cert, key, ["h2"], serve) if kind == "h2" else tls_origin(cert, key, ["http/1.1"], serve_http1)
tls = h2_through_proxy(proxy_port, port, ca)
conn = h2.connection.H2Connection(config=h2.config.H2Configuration(client_side=True, header_encoding="utf-8"))
conn.initiate_connection()
authority = "localhost:%d" % port
if kind == "h2":
    conn.send_headers(1, [(":method", "POST"), (":scheme", "https"), (":path", "/upload"), (":authority", authority)])
    conn.send_headers(3, [(":method", "GET"), (":scheme", "https"), (":path", "/download"), (":authority", authority)],
                      end_stream=True)
else:
    conn.send_headers(1, [(":method", "POST"), (":scheme", "https"), (":path", "/echo"), (":authority", authority),
                          ("content-length", str(size))])
state = {"answer": b"", "download": 0, "ended": set()}
def handle(e, outgoing):
    if isinstance(e, h2.events.DataReceived):
        if e.stream_id == 1:
            state["answer"] += e.data
        else:
            state["download"] += len(e.data)
    elif isinstance(e, h2.events.StreamEnded):
        state["ended"].add(e.stream_id)
    elif isinstance(e, h2.events.StreamReset):
        print("reset", e.stream_id, e.error_code, flush=True)
        state["ended"].add(e.stream_id)
finished = run(tls, conn, handle, {1: size}, lambda: state["ended"] >= ({1, 3} if kind == "h2" else {1}))
if kind == "h2":
    print("upload", state["answer"].decode() or "-", flush=True)
    print("download", state["download"], flush=True)
else:
    print("echo", len(state["answer"]), flush=True)
if not finished:
    print("stalled", flush=True)
"""#

    /// Runs the script against an origin of `kind`: what it printed, and how long it took.
    static func run(_ kind: String, origins: OriginFixture, proxy: ProxyFixture) throws -> (said: String, seconds: Double) {
        let path = origins.directory + "/h2-flow.py"
        try script.write(toFile: path, atomically: true, encoding: .utf8)
        let started = Date()
        let run = try runProcess(PythonPackages.python, [path, origins.directory + "/srv.pem", origins.directory + "/srv.key",
                                                         String(proxy.address.port), proxy.caPath, String(megabytes), kind],
                                 timeout: 60)
        return (String(decoding: run.output, as: UTF8.self), Date().timeIntervalSince(started))
    }

    @Test(.timeLimit(.minutes(2)))
    func uploadAndDownloadOnOneConnectionBothEnd() throws {
        let origins = try OriginFixture()
        defer { origins.stop() }
        let proxy = try ProxyFixture(origins: origins)
        defer { proxy.stop() }
        let (said, seconds) = try Self.run("h2", origins: origins, proxy: proxy)
        let size = Self.megabytes << 20
        #expect(!said.contains("stalled"), "\(said)")
        #expect(said.contains("upload \(size)\n"), "\(said)")
        #expect(said.contains("download \(size)\n"), "\(said)")
        // Each side held at most the other's connection window, however slow its reader.
        let peak = proxy.server.statistics?.http2PeakBufferedBodyBytes ?? -1
        #expect(peak > 0 && peak <= Int(HTTP2Limits.standard.connectionWindow), "peak \(peak)")
        print("h2 flow control: peak held \(peak) bytes, \(Self.megabytes) MiB up and down on one connection in \(String(format: "%.1f", seconds)) s")
    }

    /// The same through the translation machine: an HTTP/1.1 origin that echoes the upload as it
    /// reads it, a client that reads the echo slowly while it uploads.
    @Test(.timeLimit(.minutes(2)))
    func uploadEchoedByAnHTTP1OriginEnds() throws {
        let origins = try OriginFixture()
        defer { origins.stop() }
        let proxy = try ProxyFixture(origins: origins)
        defer { proxy.stop() }
        let (said, seconds) = try Self.run("http1", origins: origins, proxy: proxy)
        #expect(!said.contains("stalled"), "\(said)")
        #expect(said.contains("echo \(Self.megabytes << 20)\n"), "\(said)")
        let peak = proxy.server.statistics?.http2PeakBufferedBodyBytes ?? -1
        #expect(peak > 0 && peak <= HTTP2TranslationMachine.pauseAbove + (1 << 20), "peak \(peak)")
        print("h2 to HTTP/1.1 flow control: peak held \(peak) bytes, \(Self.megabytes) MiB echoed in \(String(format: "%.1f", seconds)) s")
    }
}

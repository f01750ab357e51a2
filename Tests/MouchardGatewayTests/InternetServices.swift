import Foundation

/// The "internet" namespace's services, one Python script: an HTTP origin (:80), an HTTPS origin
/// (:443, certificate from the test's own CA, for api, pinned and other.example.test), a
/// DNS server (:53, A records for *.example.test), an SSH-like banner server (:2222 and :2223,
/// speaks first, then echoes) and a UDP/443 listener that logs what reaches it.
enum InternetServices {
    static let script = #"""
import socket, ssl, struct, sys, threading, http.server

ADDR, CERT, KEY, UDPLOG, ADDR6 = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4], sys.argv[5]

class Server6(http.server.ThreadingHTTPServer):
    address_family = socket.AF_INET6

class H(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    def log_message(self, *a): pass
    def reply(self, body):
        self.send_response(200)
        self.send_header("Content-Type", "text/plain")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)
    def do_GET(self):
        if self.path == "/peer":  # which connection of the client this was: its source port
            self.reply(b"peer %d" % self.client_address[1])
        else:
            self.reply(b"ok " + self.path.encode())
    def do_POST(self):
        n = int(self.headers.get("Content-Length", "0"))
        self.reply(b"got " + self.rfile.read(n))

def serve_http(port, tls, v6=False):
    srv = Server6((ADDR6, port), H) if v6 else http.server.ThreadingHTTPServer((ADDR, port), H)
    srv.daemon_threads = True
    if tls:
        ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        ctx.load_cert_chain(CERT, KEY)
        srv.socket = ctx.wrap_socket(srv.socket, server_side=True)
    srv.serve_forever()

def dns():
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.bind((ADDR, 53))
    while True:
        q, peer = s.recvfrom(2048)
        if len(q) < 12: continue
        ident, flags, qd = struct.unpack("!HHH", q[:6])
        i = 12
        labels = []
        while i < len(q) and q[i] != 0:
            labels.append(q[i + 1:i + 1 + q[i]].decode("ascii", "replace")); i += 1 + q[i]
        question = q[12:i + 5]
        qtype = struct.unpack("!H", q[i + 1:i + 3])[0] if i + 3 <= len(q) else 0
        name = ".".join(labels).lower()
        answer = b""
        if name.endswith("example.test") and qtype == 1:
            answer = b"\xc0\x0c" + struct.pack("!HHIH", 1, 1, 60, 4) + socket.inet_aton(ADDR)
        head = struct.pack("!HHHHHH", ident, 0x8180, 1, 1 if answer else 0, 0, 0)
        s.sendto(head + question + answer, peer)

def banner(port):
    s = socket.socket()
    s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    s.bind((ADDR, port)); s.listen(16)
    while True:
        c, _ = s.accept()
        def talk(c):
            try:
                c.sendall(b"SSH-2.0-MouchardTestBanner\r\n")
                while True:
                    d = c.recv(4096)
                    if not d: break
                    c.sendall(d)
            finally:
                c.close()
        threading.Thread(target=talk, args=(c,), daemon=True).start()

def udp443():
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.bind((ADDR, 443))
    while True:
        d, peer = s.recvfrom(4096)
        with open(UDPLOG, "a") as f: f.write("%d bytes from %s\n" % (len(d), peer[0]))
        s.sendto(b"pong", peer)

for target, args in [(serve_http, (80, False)), (serve_http, (443, True)), (serve_http, (80, False, True)),
                     (serve_http, (443, True, True)), (dns, ()), (banner, (2222,)),
                     (banner, (2223,)), (udp443, ())]:
    threading.Thread(target=target, args=args, daemon=True).start()
print("ready", flush=True)
threading.Event().wait()
"""#

    /// Phone-side helpers: a DNS query, a UDP/443 datagram shaped like a QUIC Initial, a raw TCP
    /// client that waits for the banner before it speaks.
    static let phoneScript = #"""
import socket, struct, sys
mode = sys.argv[1]
if mode == "dns":
    name = sys.argv[3]
    q = struct.pack("!HHHHHH", 0x4d4f, 0x0100, 1, 0, 0, 0)
    q += b"".join(bytes([len(p)]) + p.encode() for p in name.split(".")) + b"\x00" + struct.pack("!HH", 1, 1)
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM); s.settimeout(5)
    s.sendto(q, (sys.argv[2], 53))
    r = s.recv(2048)
    print("answer", socket.inet_ntoa(r[-4:]))
elif mode == "quic":
    # A client Initial the test sealed (RFC 9001 keys from its DCID, a ClientHello with an SNI).
    packet = open(sys.argv[3], "rb").read()
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM); s.settimeout(3)
    s.connect((sys.argv[2], 443))
    s.send(packet)
    try:
        s.recv(100); print("answered")
    except ConnectionRefusedError:
        print("refused")
    except socket.timeout:
        print("timeout")
elif mode == "banner":
    s = socket.create_connection((sys.argv[2], int(sys.argv[3])), timeout=10)
    first = s.recv(100)          # the server speaks first: nothing is sent before
    s.sendall(b"hello mouchard\n")
    echo = b""
    while len(echo) < 15:
        d = s.recv(100)
        if not d: break
        echo += d
    print("banner", first.decode().strip(), "echo", echo.decode().strip())
elif mode == "connect":
    try:
        s = socket.create_connection((sys.argv[2], int(sys.argv[3])), timeout=5)
        s.sendall(b"GET / HTTP/1.1\r\nHost: x\r\n\r\n")
        print("reply", repr(s.recv(100)))
    except ConnectionRefusedError:
        print("refused")
    except Exception as e:
        print("failed", type(e).__name__)
"""#
}

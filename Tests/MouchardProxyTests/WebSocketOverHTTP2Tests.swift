import Foundation
import MouchardFindings
import MouchardFlow
import MouchardInspection
import MouchardTestSupport
import Testing

/// WebSocket over HTTP/2 (RFC 8441) through the proxy with real peers written with Python `h2`
/// (from `.venv/`, see `scripts/python-requirements.txt`): an h2 origin that allows extended
/// CONNECT and echoes an acknowledgement of each WebSocket message, and a client that opens the
/// WebSocket as an extended CONNECT stream of an intercepted h2 connection.
@Suite(.serialized, .requires(.openssl), .requires(.python3), .requiresPython("h2"))
struct WebSocketOverHTTP2Tests {
    static let idfa = "AEBE52E7-03EE-455A-B3C4-E57283966239"
    static let latitude = 48.856614, longitude = 2.352222

    /// argv: server certificate, key, proxy port, proxy CA, then the client's text messages.
    /// Prints `alpn`, `extended-connect`, `status`, `echo ...` per answer and `close CODE`.
    static let script = #"""
import json, os, socket, ssl, struct, sys, threading, time
import h2.config, h2.connection, h2.events, h2.settings

cert, key, proxy_port, ca = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
texts = sys.argv[5:]

def ws_frame(opcode, payload, mask):
    n = len(payload)
    bit = 0x80 if mask else 0
    head = bytes([0x80 | opcode]) + (bytes([bit | n]) if n < 126 else bytes([bit | 126]) + struct.pack("!H", n))
    if not mask:
        return head + payload
    k = os.urandom(4)
    return head + k + bytes(b ^ k[i % 4] for i, b in enumerate(payload))

def ws_parse(buf):
    frames = []
    while len(buf) >= 2:
        op, masked, n, i = buf[0] & 0x0F, buf[1] & 0x80, buf[1] & 0x7F, 2
        if n == 126:
            if len(buf) < 4: break
            n, i = struct.unpack("!H", buf[2:4])[0], 4
        k = buf[i:i + 4] if masked else b""
        i += len(k)
        if len(buf) < i + n: break
        p = buf[i:i + n]
        frames.append((op, bytes(b ^ k[j % 4] for j, b in enumerate(p)) if masked else p))
        buf = buf[i + n:]
    return frames, buf

def handle(sock):
    conn = h2.connection.H2Connection(config=h2.config.H2Configuration(client_side=False, header_encoding="utf-8"))
    conn.initiate_connection()
    conn.update_settings({h2.settings.SettingCodes.ENABLE_CONNECT_PROTOCOL: 1})
    sock.sendall(conn.data_to_send())
    pending = {}
    while True:
        data = sock.recv(65536)
        if not data:
            return
        for event in conn.receive_data(data):
            if isinstance(event, h2.events.RequestReceived):
                h = dict(event.headers)
                if h.get(":method") == "CONNECT" and h.get(":protocol") == "websocket":
                    conn.send_headers(event.stream_id, [(":status", "200")])
                    pending[event.stream_id] = b""
                else:
                    conn.send_headers(event.stream_id, [(":status", "404")], end_stream=True)
            elif isinstance(event, h2.events.DataReceived):
                conn.acknowledge_received_data(event.flow_controlled_length, event.stream_id)
                frames, pending[event.stream_id] = ws_parse(pending[event.stream_id] + event.data)
                for op, p in frames:
                    if op == 1:
                        conn.send_data(event.stream_id, ws_frame(1, json.dumps({"ok": True, "bytes": len(p)}).encode(), False))
                    elif op == 8:
                        conn.send_data(event.stream_id, ws_frame(8, p[:2], False), end_stream=True)
        sock.sendall(conn.data_to_send())

\#(ProxiedH2Client.python)
port = tls_origin(cert, key, ["h2"], handle)
tls = h2_through_proxy(proxy_port, port, ca)
conn = h2.connection.H2Connection(config=h2.config.H2Configuration(client_side=True, header_encoding="utf-8"))
conn.initiate_connection()
tls.sendall(conn.data_to_send())

def events():
    data = tls.recv(65536)
    if not data:
        raise EOFError("the proxy closed the connection")
    out = conn.receive_data(data)
    tls.sendall(conn.data_to_send())
    return out

allowed, deadline = False, time.time() + 10
while not allowed and time.time() < deadline:
    for e in events():
        if isinstance(e, h2.events.RemoteSettingsChanged):
            s = e.changed_settings.get(h2.settings.SettingCodes.ENABLE_CONNECT_PROTOCOL)
            allowed = allowed or (s is not None and s.new_value == 1)
print("extended-connect", allowed, flush=True)
conn.send_headers(1, [(":method", "CONNECT"), (":protocol", "websocket"), (":scheme", "https"), (":path", "/live/feed"),
                      (":authority", "localhost:%d" % port), ("sec-websocket-version", "13")])
tls.sendall(conn.data_to_send())
buf, status, echoes, closed = b"", None, 0, None
while status is None:
    for e in events():
        if isinstance(e, h2.events.ResponseReceived):
            status = dict(e.headers)[":status"]
print("status", status, flush=True)
for t in texts:
    conn.send_data(1, ws_frame(1, t.encode(), True))
tls.sendall(conn.data_to_send())
while closed is None:
    for e in events():
        if isinstance(e, h2.events.DataReceived):
            conn.acknowledge_received_data(e.flow_controlled_length, 1)
            frames, buf = ws_parse(buf + e.data)
            for op, p in frames:
                if op == 1:
                    echoes += 1
                    print("echo", p.decode(), flush=True)
                    if echoes == len(texts):
                        conn.send_data(1, ws_frame(8, struct.pack("!H", 1000), True), end_stream=True)
                elif op == 8:
                    closed = struct.unpack("!H", p[:2])[0]
    tls.sendall(conn.data_to_send())
print("close", closed, flush=True)
"""#

    @Test(.timeLimit(.minutes(2)))
    func messagesOverAnExtendedConnectStreamAreInspected() throws {
        let origins = try OriginFixture()
        defer { origins.stop() }
        let profile = DeviceProfile(identifiers: [(type: "idfa", value: Self.idfa)],
                                    location: Coordinate(latitude: Self.latitude, longitude: Self.longitude))
        let proxy = try ProxyFixture(origins: origins, profile: profile)
        defer { proxy.stop() }
        let path = origins.directory + "/ws-h2.py"
        try Self.script.write(toFile: path, atomically: true, encoding: .utf8)
        let texts = ["{\"lat\":\(Self.latitude),\"lon\":\(Self.longitude)}", "{\"device\":{\"idfa\":\"\(Self.idfa)\"}}"]
        let run = try runProcess(PythonPackages.python, [path, origins.directory + "/srv.pem", origins.directory + "/srv.key",
                                                         String(proxy.address.port), proxy.caPath] + texts, timeout: 60)
        let said = String(decoding: run.output, as: UTF8.self)
        #expect(said.contains("alpn h2\nextended-connect True\nstatus 200\n"), "\(said)")
        #expect(said.contains("echo {\"ok\": true, \"bytes\": \(texts[0].utf8.count)}\n"), "\(said)")
        #expect(said.contains("close 1000\n"), "\(said)")

        proxy.stop()
        let flows = try proxy.flows().filter { $0.request?.method == "CONNECT" }
        #expect(flows.count == 1)
        let ws = try #require(flows.first)
        #expect(ws.request?.path == "/live/feed" && ws.request?.head.version.description == "HTTP/2.0" && ws.response?.status == 200)
        #expect(ws.extras["_streamId"] == "1" && ws.error == nil, "\(ws.extras) \(ws.error ?? "")")
        // The client sends both messages, then reads both answers.
        #expect(ws.messages.map(\.direction) == [.client, .client, .server, .server], "\(ws.messages.map(\.direction))")
        #expect(ws.messages.first.map { String(decoding: $0.data, as: UTF8.self) } == texts[0])
        #expect(ws.request?.body.isEmpty == true && ws.response?.body.isEmpty == true)  // frames are messages, not bodies
        let findings = try proxy.findings()
        #expect(findings.contains { $0.category == .location && $0.where == "ws:/live/feed → message[0] (client)" },
                "\(findings.map { ($0.category, $0.where) })")
        #expect(findings.contains { $0.type == "idfa" && $0.where == "ws:/live/feed → message[1] (client)" },
                "\(findings.map { ($0.category, $0.where) })")
    }
}

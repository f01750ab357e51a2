import Foundation
import MouchardFindings
import MouchardFlow
import MouchardInspection
import MouchardTestSupport
import Testing

/// WebSocket through the proxy with real peers: Python `websockets` clients and servers (from
/// `.venv/`, see `scripts/python-requirements.txt`), `ws://` (CONNECT, as the library goes through
/// an HTTP proxy) and `wss://` (intercepted), with and without `permessage-deflate`.
@Suite(.serialized, .requires(.openssl), .requires(.python3), .requiresPython("websockets"))
struct WebSocketEndToEndTests {
    static let idfa = "AEBE52E7-03EE-455A-B3C4-E57283966239"
    static let latitude = 48.856614, longitude = 2.352222

    /// Starts a plain and a TLS `websockets` server (echoing an acknowledgement of each message),
    /// then runs `clients` (Python code using `connect`, `PROXY`, `PLAIN`, `TLS`, `CA`).
    static func script(proxy: ProxyFixture, origins: OriginFixture, clients: String) -> String {
        """
        import json, socket, ssl, struct, sys, threading
        from websockets.sync.client import connect
        from websockets.sync.server import serve

        def answer(ws):
            for message in ws:
                n = len(message)
                ws.send(json.dumps({"ok": True, "bytes": n}))

        plain = serve(answer, "127.0.0.1", 0, compression="deflate", max_size=None)
        ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        ctx.load_cert_chain("\(origins.directory)/srv.pem", "\(origins.directory)/srv.key")
        secure = serve(answer, "127.0.0.1", 0, ssl=ctx, compression="deflate", max_size=None)
        for s in (plain, secure):
            threading.Thread(target=s.serve_forever, daemon=True).start()
        PLAIN = "ws://127.0.0.1:%d/live/feed" % plain.socket.getsockname()[1]
        TLS = "wss://localhost:%d/live/feed" % secure.socket.getsockname()[1]
        PROXY = "\(proxy.proxyURL)"
        CA = ssl.create_default_context(cafile="\(proxy.caPath)")

        \(clients)
        """
    }

    static func run(_ script: String, in origins: OriginFixture) throws -> String {
        let path = origins.directory + "/ws-\(UUID().uuidString).py"
        try script.write(toFile: path, atomically: true, encoding: .utf8)
        let result = try runProcess(PythonPackages.python, [path], timeout: 90)
        return String(decoding: result.output, as: UTF8.self)
    }

    @Test func messagesAreInspectedPlainCompressedAndIntercepted() throws {
        let origins = try OriginFixture()
        defer { origins.stop() }
        let profile = DeviceProfile(identifiers: [(type: "idfa", value: Self.idfa)],
                                    location: Coordinate(latitude: Self.latitude, longitude: Self.longitude))
        let proxy = try ProxyFixture(origins: origins, profile: profile)
        // A planted location in JSON, then the IDFA in a protobuf binary message (field 1).
        let clients = """
        idfa = b"\(Self.idfa)"
        protobuf = bytes([0x0A, len(idfa)]) + idfa
        for uri, compression, tls in [(PLAIN, None, None), (PLAIN, "deflate", None), (TLS, "deflate", CA)]:
            with connect(uri, proxy=PROXY, compression=compression, ssl=tls, open_timeout=20) as ws:
                assert ws.response.headers.get("Sec-WebSocket-Extensions") is None if compression is None else "permessage-deflate" in ws.response.headers["Sec-WebSocket-Extensions"]
                for k in range(3):
                    ws.send(json.dumps({"type": "position", "seq": k, "lat": \(Self.latitude), "lon": \(Self.longitude)}))
                    assert json.loads(ws.recv(timeout=20))["ok"]
                ws.send(protobuf)
                assert json.loads(ws.recv(timeout=20))["bytes"] == len(protobuf)
            print("ok", compression)
        """
        let output = try Self.run(Self.script(proxy: proxy, origins: origins, clients: clients), in: origins)
        #expect(output == "ok None\nok deflate\nok deflate\n")
        proxy.stop()

        let flows = try proxy.flows()
        let sockets = flows.filter { !$0.messages.isEmpty }
        #expect(sockets.count == 3, "\(flows.map { "\($0.request?.url ?? "-") \($0.response?.status ?? 0)" })")
        #expect(sockets.map(\.transport) == [.http, .http, .https])
        for (k, flow) in sockets.enumerated() {
            #expect(flow.response?.status == 101)
            #expect(flow.messages.map(\.direction) == [.client, .server, .client, .server, .client, .server, .client, .server])
            #expect(flow.messages.map(\.opcode) == [1, 1, 1, 1, 1, 1, 2, 1])
            #expect(flow.messages.allSatisfy { $0.compressed == (k > 0) && !$0.truncated })
            #expect(flow.messages[6].data == [0x0A, 36] + Array(Self.idfa.utf8))
            #expect(String(decoding: flow.messages[1].data, as: UTF8.self).contains("\"ok\": true"))
            #expect(flow.extras[Flow.webSocketCloseField]?.contains("1000") == true, "\(flow.extras)")
        }
        let findings = try proxy.findings()
        for flow in sockets {
            let mine = findings.filter { $0.flow == flow.id }
            let location = mine.filter { $0.category == .location }
            #expect(Set(location.map(\.where)) == ["ws:/live/feed → message[0] (client)", "ws:/live/feed → message[2] (client)",
                                                    "ws:/live/feed → message[4] (client)"], "\(mine.map(\.where))")
            let idfa = try #require(mine.first { $0.type == "idfa" })
            #expect(idfa.where == "ws:/live/feed → message[6] (client)" && idfa.inner == "field 1")
            #expect(idfa.description?.contains("sent to") == true)
            #expect(mine.allSatisfy { !$0.evidence.contains(Self.idfa) })
            #expect(mine.allSatisfy { $0.encoding == (flow.messages[0].compressed ? "deflate" : "plain") }, "\(mine.map(\.encoding))")
        }
        #expect(proxy.console.value.contains("ws:/live/feed → message[6] (client)"))

        // HAR export as Chrome writes it, and back.
        let har = HARWriter(creatorVersion: "test").document(sockets)
        let text = String(decoding: har, as: UTF8.self)
        #expect(text.contains("\"_webSocketMessages\"") && text.contains("\"type\": \"send\"") && text.contains("\"type\": \"receive\""))
        let back = try HARReader.read(har)
        #expect(back.map(\.messages.count) == [8, 8, 8])
        #expect(back[2].messages.map(\.data) == sockets[2].messages.map(\.data))
        #expect(back[2].messages.map(\.direction) == sockets[2].messages.map(\.direction))
    }

    @Test func aFrameClaiming2To63BytesIsRefusedAndOthersCarryOn() throws {
        let origins = try OriginFixture()
        defer { origins.stop() }
        let proxy = try ProxyFixture(origins: origins)
        // A steady connection talks before and after a raw client sends frame headers that break
        // the protocol (2^63 bytes: top bit set) or claim more than the limit (2^40 bytes), then a
        // valid 96 MiB message streams through (relayed as it arrives: memory stays bounded).
        let clients = """
        import base64, os
        def raw_upgrade():
            s = socket.create_connection(("127.0.0.1", int(PROXY.rsplit(":", 1)[1])), timeout=20)
            port = PLAIN.split(":")[2].split("/")[0]
            key = base64.b64encode(os.urandom(16)).decode()
            s.sendall(("GET http://127.0.0.1:%s/live/feed HTTP/1.1\\r\\nHost: 127.0.0.1:%s\\r\\nUpgrade: websocket\\r\\n"
                       "Connection: Upgrade\\r\\nSec-WebSocket-Key: %s\\r\\nSec-WebSocket-Version: 13\\r\\n\\r\\n" % (port, port, key)).encode())
            head = b""
            while b"\\r\\n\\r\\n" not in head: head += s.recv(1)
            assert head.startswith(b"HTTP/1.1 101"), head
            return s
        def frame(opcode, payload, length=None):
            mask = os.urandom(4)
            n = len(payload) if length is None else length
            head = bytes([0x80 | opcode])
            if n < 126: head += bytes([0x80 | n])
            elif n < 65536: head += bytes([0x80 | 126]) + struct.pack(">H", n)
            else: head += bytes([0x80 | 127]) + struct.pack(">Q", n)
            return head + mask + bytes(b ^ mask[i % 4] for i, b in enumerate(payload))
        def close_code(s):
            data = b""
            try:
                while True:
                    piece = s.recv(65536)
                    if not piece: break
                    data += piece
            except OSError:
                pass
            i = data.find(b"\\x88")
            return struct.unpack(">H", data[i + 2:i + 4])[0] if i >= 0 and len(data) >= i + 4 else None

        with connect(PLAIN, proxy=PROXY, compression=None, open_timeout=20) as steady:
            steady.send("before")
            assert json.loads(steady.recv(timeout=20))["ok"]
            s = raw_upgrade()
            s.sendall(frame(1, b"fine"))
            s.sendall(b"\\x82\\xff\\x80\\x00\\x00\\x00\\x00\\x00\\x00\\x00" + os.urandom(4) + b"xxxx")
            print("2^63", close_code(s))
            s = raw_upgrade()
            s.sendall(bytes([0x82, 0xFF]) + struct.pack(">Q", 1 << 40) + os.urandom(4) + b"yyyy")
            print("2^40", close_code(s))
            steady.send("after")
            assert json.loads(steady.recv(timeout=20))["ok"]
            big = bytes(96 << 20)
            steady.send(big)
            assert json.loads(steady.recv(timeout=60))["bytes"] == len(big)
        print("steady ok")
        """
        let before = Self.residentKiB()
        let output = try Self.run(Self.script(proxy: proxy, origins: origins, clients: clients), in: origins)
        let after = Self.residentKiB()
        #expect(output == "2^63 1002\n2^40 1009\nsteady ok\n")
        proxy.stop()
        let flows = try proxy.flows().filter { $0.response?.status == 101 }
        #expect(flows.count == 3)
        let refused = flows.compactMap(\.error)
        #expect(refused.count == 2, "\(flows.map(\.error))")
        #expect(refused.contains { $0.contains("most significant bit") && $0.contains("1002") })
        #expect(refused.contains { $0.contains("over the limit") && $0.contains("1009") })
        #expect(flows.contains { $0.error != nil && $0.messages.first?.data == Array("fine".utf8) })
        let steady = try #require(flows.first { $0.error == nil })
        #expect(steady.messages.count == 6)
        let bigMessage = steady.messages[4]
        #expect(bigMessage.truncated && bigMessage.data.count == FlowMessage.captureLimit)
        // The proxy runs in this process: 96 MiB went through it, far less stayed (a proxy holding
        // the message whole would grow by 96 MiB or more; the 48 MiB margin is for the tests running
        // beside this one in the same process, such as the HTTP/2 flow-control transfers).
        #expect(after - before < 48 << 10, "resident memory grew by \(after - before) KiB")
    }

    /// This process's resident memory in KiB (Linux `/proc/self/status`).
    static func residentKiB() -> Int {
        let text = (try? String(contentsOfFile: "/proc/self/status", encoding: .utf8)) ?? ""
        let line = text.split(separator: "\n").first { $0.hasPrefix("VmRSS:") } ?? ""
        return Int(line.split(separator: " ").dropFirst().first ?? "") ?? 0
    }
}

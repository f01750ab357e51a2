import Foundation
import MouchardFindings
import MouchardFlow
import MouchardInspection
import MouchardTestSupport
import Testing

/// gRPC through the proxy with real peers: gRPC-Web over HTTP/1.1 (binary and text), and grpcio
/// (HTTP/2: the proxy offers h2 because the grpcio origin chooses it).
@Suite(.serialized, .requires(.openssl), .requires(.python3))
struct GRPCEndToEndTests {
    static let idfa = "AEBE52E7-03EE-455A-B3C4-E57283966239"

    /// Python: a protobuf `{1: seq, 3: text}` and a gRPC frame.
    static let helpers = """
    import base64, struct
    def pb(seq, text):
        t = text.encode()
        return bytes([0x08, seq, 0x1A, len(t)]) + t
    def frame(payload, flags=0):
        return bytes([flags]) + struct.pack(">I", len(payload)) + payload
    """

    @Test func grpcWebOverHTTP1IsSplitIntoMessages() throws {
        let origins = try OriginFixture()
        defer { origins.stop() }
        let proxy = try ProxyFixture(origins: origins, profile: DeviceProfile(identifiers: [(type: "idfa", value: Self.idfa)]))
        // A gRPC-Web origin answering one message and its in-body trailers, in binary or text as asked.
        let script = """
        import http.server, threading, urllib.request
        \(Self.helpers)
        class H(http.server.BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"
            def log_message(self, *a): pass
            def do_POST(self):
                self.rfile.read(int(self.headers["Content-Length"]))
                text = self.headers["Content-Type"].startswith("application/grpc-web-text")
                body = frame(pb(1, "ok")) + frame(b"grpc-status: 0\\r\\ngrpc-message: done\\r\\n", 0x80)
                if text: body = base64.b64encode(frame(pb(1, "ok"))) + base64.b64encode(frame(b"grpc-status: 0\\r\\n", 0x80))
                self.send_response(200)
                self.send_header("Content-Type", self.headers["Content-Type"])
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)
        srv = http.server.ThreadingHTTPServer(("127.0.0.1", 0), H)
        threading.Thread(target=srv.serve_forever, daemon=True).start()
        opener = urllib.request.build_opener(urllib.request.ProxyHandler({"http": "\(proxy.proxyURL)"}))
        url = "http://127.0.0.1:%d/pkg.Tracking/Report" % srv.server_address[1]
        binary = frame(pb(0, "hello")) + frame(pb(1, "\(Self.idfa)"))
        for kind, body in [("application/grpc-web+proto", binary), ("application/grpc-web-text", base64.b64encode(binary))]:
            req = urllib.request.Request(url, data=body, headers={"Content-Type": kind, "X-Grpc-Web": "1"})
            print(len(opener.open(req, timeout=20).read()))
        """
        let run = try runProcess(which("python3") ?? "/usr/bin/python3", ["-c", script], timeout: 60)
        #expect(String(decoding: run.output, as: UTF8.self).split(separator: "\n").count == 2)
        proxy.stop()
        let flows = try proxy.flows()
        #expect(flows.count == 2)
        let streams = flows.compactMap(FlowStreams.init)
        #expect(streams.map(\.kind) == [.grpcWeb, .grpcWeb])
        #expect(streams.map(\.clientCount) == [2, 2] && streams.map(\.serverCount) == [1, 1])
        #expect(streams.map(\.grpcStatus) == ["0", "0"])
        let summaries = try proxy.store.flowSummaries()
        #expect(summaries.map(\.protocol) == [.grpcWeb, .grpcWeb] && summaries.map(\.clientMessages) == [2, 2])
        let findings = try proxy.findings().filter { $0.type == "idfa" }
        #expect(findings.count == 2)
        #expect(findings.allSatisfy { $0.where == "grpc:/pkg.Tracking/Report → message[1]" && $0.inner == "field 3" })
        #expect(findings.map(\.encoding) == ["plain", "base64"])
    }

    @Test(.requiresPython("grpc")) func grpcioThroughTheProxy() throws {
        let origins = try OriginFixture()
        defer { origins.stop() }
        let proxy = try ProxyFixture(origins: origins, profile: DeviceProfile(identifiers: [(type: "idfa", value: Self.idfa)]))
        defer { proxy.stop() }
        let script = """
        import grpc, threading
        from concurrent import futures
        \(Self.helpers)
        def report(request, context):
            return pb(1, "ok")
        server = grpc.server(futures.ThreadPoolExecutor(max_workers=2))
        handler = grpc.method_handlers_generic_handler("pkg.Tracking", {"Report": grpc.unary_unary_rpc_method_handler(report)})
        server.add_generic_rpc_handlers((handler,))
        key = open("\(origins.directory)/srv.key", "rb").read(); cert = open("\(origins.directory)/srv.pem", "rb").read()
        port = server.add_secure_port("127.0.0.1:0", grpc.ssl_server_credentials([(key, cert)]))
        server.start()
        creds = grpc.ssl_channel_credentials(root_certificates=open("\(proxy.caPath)", "rb").read())
        channel = grpc.secure_channel("localhost:%d" % port, creds, options=[("grpc.http_proxy", "\(proxy.proxyURL)")])
        call = channel.unary_unary("/pkg.Tracking/Report")
        print(call(pb(0, "\(Self.idfa)"), timeout=20))
        server.stop(0)
        """
        let run = try runProcess(PythonPackages.python, ["-c", script], timeout: 60)
        #expect(String(decoding: run.output, as: UTF8.self).contains("ok"))
        proxy.stop()
        let findings = try proxy.findings().filter { $0.type == "idfa" }
        #expect(findings.contains { $0.where == "grpc:/pkg.Tracking/Report → message[0]" && $0.inner == "field 3" }, "\(findings.map(\.where))")
        let flow = try #require(try proxy.flows().first { $0.request?.path == "/pkg.Tracking/Report" })
        #expect(FlowStreams(flow)?.grpcStatus == "0")
    }
}

import Foundation
import MouchardFlow
import MouchardStore
import MouchardTestSupport
import Testing
@testable import MouchardCLI

/// WebSocket and gRPC-Web flows through the commands: a HAR with Chrome's `_webSocketMessages` is
/// imported, listed with its protocol and message counts, scanned, reported (the destinations
/// named by protocol) and exported back with its messages; an HTTP/2 entry is listed with its
/// stream and its destination named HTTP/2.
@Suite struct MessageCommandsTests {
    static let har = """
    {"log": {"version": "1.2", "creator": {"name": "WebInspector", "version": "537.36"}, "entries": [
      {"startedDateTime": "2026-05-04T10:00:00.000Z", "time": 5, "_resourceType": "websocket",
       "request": {"method": "GET", "url": "wss://live.example/socket", "httpVersion": "HTTP/1.1",
                   "headers": [{"name": "Upgrade", "value": "websocket"}], "queryString": [], "cookies": [], "headersSize": -1, "bodySize": 0},
       "response": {"status": 101, "statusText": "Switching Protocols", "httpVersion": "HTTP/1.1",
                    "headers": [{"name": "Upgrade", "value": "websocket"}], "cookies": [], "content": {"size": 0, "mimeType": "x-unknown"},
                    "redirectURL": "", "headersSize": -1, "bodySize": 0},
       "cache": {}, "timings": {"send": 1, "wait": 2, "receive": 2},
       "_webSocketMessages": [
         {"type": "send", "time": 1777888800.25, "opcode": 1, "data": "{\\"idfa\\":\\"AEBE52E7-03EE-455A-B3C4-E57283966239\\"}"},
         {"type": "receive", "time": 1777888800.5, "opcode": 2, "data": "AAEC"}
       ]},
      {"startedDateTime": "2026-05-04T10:00:01.000Z", "time": 5,
       "request": {"method": "POST", "url": "https://api.example/pkg.Tracking/Report", "httpVersion": "HTTP/1.1",
                   "headers": [{"name": "Content-Type", "value": "application/grpc-web-text"}], "queryString": [], "cookies": [],
                   "postData": {"mimeType": "application/grpc-web-text", "text": "AAAAAAUIARoBeA=="}, "headersSize": -1, "bodySize": 20},
       "response": {"status": 200, "statusText": "OK", "httpVersion": "HTTP/1.1", "headers": [], "cookies": [],
                    "content": {"size": 0, "mimeType": "application/grpc-web-text"}, "redirectURL": "", "headersSize": -1, "bodySize": 0},
       "cache": {}, "timings": {"send": 1, "wait": 2, "receive": 2}},
      {"startedDateTime": "2026-05-04T10:00:02.000Z", "time": 5, "_streamId": 3,
       "request": {"method": "GET", "url": "https://cdn.example/app.js", "httpVersion": "HTTP/2.0",
                   "headers": [], "queryString": [], "cookies": [], "headersSize": -1, "bodySize": 0},
       "response": {"status": 200, "statusText": "", "httpVersion": "HTTP/2.0", "headers": [], "cookies": [],
                    "content": {"size": 0, "mimeType": "text/javascript"}, "redirectURL": "", "headersSize": -1, "bodySize": 0},
       "cache": {}, "timings": {"send": 1, "wait": 2, "receive": 2}}
    ]}}
    """

    @Test func importListScanAndExport() throws {
        let dir = try TestFiles.temporaryDirectory("messages-cli")
        defer { try? FileManager.default.removeItem(at: dir) }
        try Self.har.write(to: dir.appendingPathComponent("chrome.har"), atomically: true, encoding: .utf8)
        func run(_ args: [String]) -> (status: Int32, out: String, err: String) {
            let c = Captured()
            let status = Mouchard.main(args, io: CommandIO(out: c.io.out, err: c.io.err, currentDirectory: dir.path))
            return (status, c.out, c.err)
        }
        #expect(run(["import", "chrome.har", "--session", "s"]).status == 0)
        let flows = run(["flows", "s"]).out.split(separator: "\n")
        #expect(flows.count == 3)
        #expect(flows[0].hasSuffix("HTTP/1.1  WebSocket 1 sent / 1 received"), "\(flows)")
        #expect(flows[1].hasSuffix("HTTP/1.1  gRPC-Web 1 sent / 0 received"), "\(flows)")
        #expect(flows[2].hasSuffix("200  0 B → 0 B  HTTP/2 stream 3"), "\(flows)")
        let scan = run(["scan", "captures/s"])
        #expect(scan.out.contains("ws:/socket → message[0] (client) → $.idfa"), "\(scan.out)")
        #expect(run(["report", "captures/s", "--out", "r.md"]).status == 0)
        let report = try String(contentsOf: dir.appendingPathComponent("r.md"), encoding: .utf8)
        let rows = report.split(separator: "\n").filter { $0.hasPrefix("| ") }
        #expect(rows.contains { $0.hasPrefix("| live\\.example |") && $0.contains("intercepted TLS, WebSocket") }, "\(rows)")
        #expect(rows.contains { $0.hasPrefix("| api\\.example |") && $0.contains("intercepted TLS, gRPC-Web") }, "\(rows)")
        #expect(rows.contains { $0.hasPrefix("| cdn\\.example |") && $0.contains("intercepted TLS, HTTP/2 |") }, "\(rows)")
        #expect(run(["export", "s", "--har", "back.har"]).status == 0)
        let back = try HARReader.read(try Data(contentsOf: dir.appendingPathComponent("back.har")))
        #expect(back[0].messages.map(\.direction) == [.client, .server])
        #expect(back[0].messages[1].data == [0, 1, 2])
        #expect(back[0].messages[0].time == Date(timeIntervalSince1970: 1_777_888_800.25))
    }
}

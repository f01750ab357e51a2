import Foundation
import Testing
import MouchardFlow
import MouchardSniffer
import MouchardTestSupport

/// Golden tests: each builds a small pcap whose wire events are spelled out (reordering,
/// retransmission, gaps, mid-stream start, pipelining, chunked and gzip bodies), writes it to a
/// real file, reads it back through `CaptureFileExtractor` and compares a text rendering of the
/// flows with the expected one.
@Suite struct GoldenReassemblyTests {
    /// One line per flow: method URL → status, body sizes, truncation and error notes.
    static func render(_ flows: [Flow]) -> String {
        flows.map { f -> String in
            if f.transport == .tlsMetadata {
                return "#\(f.id) tls sni=\(f.tls?.serverName ?? "-") alpn=\(f.tls?.alpn.joined(separator: ",") ?? "") \(f.tls?.version ?? "")"
            }
            guard let r = f.request else { return "#\(f.id) ?" }
            var s = "#\(f.id) \(r.method) \(r.url) req=\(r.body.count)\(r.bodyTruncated ? "+" : "")"
            if let resp = f.response { s += " → \(resp.status) resp=\(resp.body.count)\(resp.bodyTruncated ? "+" : "")" } else { s += " → none" }
            if let e = f.error { s += " !\(e)" }
            return s
        }.joined(separator: "\n")
    }

    static func extract(_ builder: PcapBuilder, limits: ReassemblyLimits = ReassemblyLimits()) throws -> CaptureExtraction {
        let dir = try TestFiles.temporaryDirectory("sniffer")
        defer { try? FileManager.default.removeItem(at: dir) }
        let url = dir.appendingPathComponent("golden.pcap")
        var b = builder
        try b.write(to: url)
        let result = try CaptureFileExtractor.extract(path: url.path, limits: limits)
        #expect(result.readError == nil)
        return result
    }

    static func request(_ method: String, _ target: String, host: String = "api.example.com",
                        headers: [String] = [], body: [UInt8] = []) -> [UInt8] {
        var head = "\(method) \(target) HTTP/1.1\r\nHost: \(host)\r\n"
        for h in headers { head += h + "\r\n" }
        if !body.isEmpty && !headers.contains(where: { $0.lowercased().hasPrefix("transfer-encoding") }) {
            head += "Content-Length: \(body.count)\r\n"
        }
        return Array((head + "\r\n").utf8) + body
    }

    static func response(_ status: Int = 200, body: String = "", extraHeaders: [String] = []) -> [UInt8] {
        var head = "HTTP/1.1 \(status) OK\r\nContent-Length: \(body.utf8.count)\r\n"
        for h in extraHeaders { head += h + "\r\n" }
        return Array((head + "\r\n" + body).utf8)
    }

    @Test func reorderedServerSegmentsAreReassembled() throws {
        var b = PcapBuilder()
        var c = TCPConversation()
        c.handshake(&b)
        c.send(&b, fromClient: true, Self.request("GET", "/v1/open?idfa=6D92078A-8246-4BA4-AE5B-76104861E7DC"), size: 20)
        let body = String(repeating: "abcdefghij", count: 30)
        var segments = c.segments(fromClient: false, Self.response(body: body), size: 100)
        segments.swapAt(1, 2)
        segments.swapAt(0, 3)
        for s in segments { b.record(s) }
        c.close(&b)
        let r = try Self.extract(b)
        #expect(Self.render(r.flows) == "#1 GET http://api.example.com/v1/open?idfa=6D92078A-8246-4BA4-AE5B-76104861E7DC req=0 → 200 resp=300")
        #expect(r.flows.first?.response.map { String(decoding: $0.body, as: UTF8.self) } == body)
        #expect(r.statistics.outOfOrderSegments >= 2)
        #expect(r.statistics.gaps == 0)
    }

    @Test func retransmissionsAndOverlapsKeepTheFirstCopy() throws {
        var b = PcapBuilder()
        var c = TCPConversation()
        c.handshake(&b)
        let segments = c.segments(fromClient: true, Self.request("POST", "/collect", body: Array("email=lucas@example.com".utf8)), size: 30)
        b.record(segments[0])
        b.record(segments[0])  // exact retransmission
        b.record(segments[1])
        // A late overlapping copy of segment 1 with different bytes: first write wins.
        var forged = segments[1]
        let payloadStart = forged.count - 30
        for i in payloadStart..<forged.count { forged[i] = 0x58 }
        b.record(forged)
        for s in segments.dropFirst(2) { b.record(s) }
        b.record(segments.last ?? [])  // retransmitted after the end
        c.send(&b, fromClient: false, Self.response(body: "ok"))
        c.close(&b)
        let r = try Self.extract(b)
        #expect(Self.render(r.flows) == "#1 POST http://api.example.com/collect req=23 → 200 resp=2")
        #expect(r.flows.first?.request.map { String(decoding: $0.body, as: UTF8.self) } == "email=lucas@example.com")
        #expect(r.statistics.retransmittedBytes >= 60)
    }

    @Test func gapMarksTheMessageIncompleteAndTheStreamResyncs() throws {
        var b = PcapBuilder()
        var c = TCPConversation()
        c.handshake(&b)
        c.send(&b, fromClient: true, Self.request("GET", "/first"))
        let first = c.segments(fromClient: false, Self.response(body: String(repeating: "x", count: 250)), size: 100)
        b.record(first[0])
        b.record(first[2])  // first[1] never captured
        c.send(&b, fromClient: true, Self.request("GET", "/second?android_id=9774d56d682e549c"))
        c.send(&b, fromClient: false, Self.response(body: "fine"))
        c.close(&b)
        let r = try Self.extract(b)
        #expect(Self.render(r.flows) == """
            #1 GET http://api.example.com/first req=0 → 200 resp=60+ !response incomplete: capture gap of 100 bytes
            #2 GET http://api.example.com/second?android_id=9774d56d682e549c req=0 → 200 resp=4
            """)
        #expect(r.statistics.gaps == 1 && r.statistics.gapBytes == 100)
        #expect(r.warnings.contains { $0.hasPrefix("1 gap in TCP streams, 100 bytes lost: ") })
    }

    @Test func captureStartedMidConnection() throws {
        var b = PcapBuilder()
        var c = TCPConversation()
        // No handshake: the capture starts in the middle of a request body.
        let tail = Array("lat=47.0810&lon=2.3988".utf8)
        c.send(&b, fromClient: true, tail)
        c.send(&b, fromClient: false, Self.response(body: "late"))
        c.send(&b, fromClient: true, Self.request("GET", "/weather?lat=47.08&lon=2.39", host: "wx.example.net"))
        c.send(&b, fromClient: false, Self.response(body: "sunny"))
        let r = try Self.extract(b)
        // The orphan response has no request; the next exchange is found and paired.
        #expect(Self.render(r.flows) == "#1 GET http://wx.example.net/weather?lat=47.08&lon=2.39 req=0 → 200 resp=5")
        #expect(r.statistics.unpairedResponses == 1)
    }

    @Test func pipelinedRequestsPairInOrderIncludingHEAD() throws {
        var b = PcapBuilder()
        var c = TCPConversation()
        c.serverPort = 8081  // any port: HTTP is found by content
        c.handshake(&b)
        let requests = Self.request("GET", "/a") + Self.request("HEAD", "/b") + Self.request("GET", "/c")
        c.send(&b, fromClient: true, requests)
        // The HEAD response announces a length but has no body.
        let responses = Self.response(body: "AAA") + Array("HTTP/1.1 200 OK\r\nContent-Length: 999\r\n\r\n".utf8)
            + Self.response(404, body: "none")
        c.send(&b, fromClient: false, responses, size: 37)
        c.close(&b)
        let r = try Self.extract(b)
        #expect(Self.render(r.flows) == """
            #1 GET http://api.example.com/a req=0 → 200 resp=3
            #2 HEAD http://api.example.com/b req=0 → 200 resp=0
            #3 GET http://api.example.com/c req=0 → 404 resp=4
            """)
    }

    @Test func chunkedRequestBodyIsDechunked() throws {
        var b = PcapBuilder()
        var c = TCPConversation()
        c.handshake(&b)
        let head = Array("POST /upload HTTP/1.1\r\nHost: api.example.com\r\nTransfer-Encoding: chunked\r\n\r\n".utf8)
        let chunks = Array("7;ext=1\r\ncontact\r\n5\r\ns=Ana\r\n0\r\nX-Trailer: t\r\n\r\n".utf8)
        c.send(&b, fromClient: true, head + chunks, size: 9)
        c.send(&b, fromClient: false, Array("HTTP/1.1 201 Created\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nyes\r\n0\r\n\r\n".utf8))
        c.close(&b)
        let r = try Self.extract(b)
        #expect(Self.render(r.flows) == "#1 POST http://api.example.com/upload req=12 → 201 resp=3")
        #expect(r.flows.first?.request.map { String(decoding: $0.body, as: UTF8.self) } == "contacts=Ana")
    }

    @Test func gzipBodyIsKeptAsSent() throws {
        let gzip: [UInt8] = [31, 139, 8, 0, 0, 0, 0, 0, 2, 3, 171, 86, 202, 76, 73, 75, 84, 178, 82, 50, 115, 177, 52, 50, 48,
                             183, 112, 212, 181, 48, 50, 49, 211, 53, 113, 114, 52, 209, 117, 116, 53, 117, 210, 53, 55, 51,
                             52, 48, 177, 48, 51, 116, 53, 119, 113, 86, 170, 5, 0, 197, 125, 90, 43, 47, 0, 0, 0]
        var b = PcapBuilder()
        var c = TCPConversation()
        c.handshake(&b)
        c.send(&b, fromClient: true, Self.request("POST", "/batch", headers: ["Content-Encoding: gzip", "Content-Type: application/json"],
                                                  body: gzip), size: 50)
        c.send(&b, fromClient: false, Self.response(body: "{}"))
        c.close(&b)
        let r = try Self.extract(b)
        #expect(Self.render(r.flows) == "#1 POST http://api.example.com/batch req=67 → 200 resp=2")
        #expect(r.flows.first?.request?.body == gzip)
        #expect(r.flows.first?.request?.headers["Content-Encoding"] == "gzip")
    }

    @Test func responseUntilCloseAndRequestWithoutResponse() throws {
        var b = PcapBuilder()
        var c = TCPConversation()
        c.handshake(&b)
        c.send(&b, fromClient: true, Self.request("GET", "/stream"))
        c.send(&b, fromClient: false, Array("HTTP/1.0 200 OK\r\nContent-Type: text/plain\r\n\r\nall of it".utf8))
        c.close(&b)
        var d = TCPConversation()
        d.clientPort = 51001
        d.handshake(&b)
        d.send(&b, fromClient: true, Self.request("GET", "/unanswered"))
        let r = try Self.extract(b)
        #expect(Self.render(r.flows) == """
            #1 GET http://api.example.com/stream req=0 → 200 resp=9
            #2 GET http://api.example.com/unanswered req=0 → none
            """)
    }
}

/// Memory caps: a request body beyond its cap is cut, marked truncated, and counted.
@Suite struct ReassemblyLimitTests {
    @Test func requestBodyBeyondItsCapIsTruncatedAndCounted() throws {
        var b = PcapBuilder()
        var c = TCPConversation()
        c.handshake(&b)
        let body = [UInt8](repeating: 0x41, count: 5000)
        c.send(&b, fromClient: true, GoldenReassemblyTests.request("POST", "/big", body: body))
        c.send(&b, fromClient: false, GoldenReassemblyTests.response(body: "ok"))
        c.close(&b)
        let r = try GoldenReassemblyTests.extract(b, limits: ReassemblyLimits(requestBodyBytes: 1000))
        let request = try #require(r.flows.first?.request)
        #expect(request.body.count == 1000 && request.bodyTruncated)
        #expect(r.statistics.droppedBytes == 4000)
        #expect(r.warnings.contains { $0.hasPrefix("4000 bytes were dropped by memory caps") })
        #expect(r.flows.first?.response?.status == 200)
    }

    @Test func outOfOrderBufferCapForcesAGap() throws {
        var b = PcapBuilder()
        var c = TCPConversation()
        c.handshake(&b)
        c.send(&b, fromClient: true, GoldenReassemblyTests.request("GET", "/x"))
        let segments = c.segments(fromClient: false, GoldenReassemblyTests.response(body: String(repeating: "z", count: 6000)), size: 1000)
        // The first segment never arrives; the rest overflow a 2000-byte out-of-order buffer.
        for s in segments.dropFirst() { b.record(s) }
        let r = try GoldenReassemblyTests.extract(b, limits: ReassemblyLimits(outOfOrderBytesPerDirection: 2000))
        #expect(r.statistics.gaps >= 1)
        #expect(r.flows.count == 1 && r.flows.first?.response == nil)
    }
}

import Foundation
import MouchardCodec
import MouchardFlow
import MouchardTestSupport
import MouchardWire
import Testing
@testable import MouchardInspection

/// The messages of a flow (gRPC, gRPC-Web, WebSocket, SSE) walked one way, each under its label.
@Suite struct MessageInspectionTests {
    static let idfa = "AEBE52E7-03EE-455A-B3C4-E57283966239"
    static let profile = DeviceProfile(identifiers: [(type: "idfa", value: idfa)], location: Coordinate(latitude: 48.856614, longitude: 2.352222))

    /// One length-prefixed gRPC frame.
    static func frame(_ payload: [UInt8], flags: UInt8 = 0) -> [UInt8] {
        let n = UInt32(payload.count)
        return [flags, UInt8(n >> 24), UInt8((n >> 16) & 0xFF), UInt8((n >> 8) & 0xFF), UInt8(n & 0xFF)] + payload
    }

    /// A protobuf message: field 1 a varint, field 3 a string.
    static func message(_ text: String, seq: UInt8) -> [UInt8] {
        [0x08, seq, 0x1A, UInt8(text.utf8.count)] + Array(text.utf8)
    }

    static func grpcFlow(request body: [UInt8], type: String = "application/grpc", headers: [(String, String)] = [],
                         response: [UInt8] = [], responseHeaders: [(String, String)] = []) -> Flow {
        var flow = TestSupport.flow(TestSupport.request("POST", "https://api.example/pkg.Tracking/Report",
                                                        headers: [("Content-Type", type)] + headers, body: body))
        var h = HTTPHeaders()
        h.add(name: "Content-Type", value: type)
        for (n, v) in responseHeaders { h.add(name: n, value: v) }
        flow.response = HTTPResponse(head: HTTPResponseHead(status: 200, reason: "OK", headers: h), body: response)
        return flow
    }

    @Test func grpcMessagesAreSplitAndFieldsNamed() throws {
        // Three messages; the IDFA in message 2, compressed with the stream's grpc-encoding.
        let body = Self.frame(Self.message("hello", seq: 0)) + Self.frame(Self.message("nothing", seq: 1))
            + Self.frame(gzipCompress(Self.message(Self.idfa, seq: 2)), flags: 1)
        let trailers = Self.frame(Array("grpc-status: 0\r\n".utf8), flags: 0x80)
        for inspector in [Inspector(rules: try TestSupport.rules(), profile: Self.profile)] {
            let findings = inspector.inspect(Self.grpcFlow(request: body, headers: [("grpc-encoding", "gzip")]))
            let f = try #require(findings.first { $0.type == "idfa" }, "\(findings.map(\.where))")
            #expect(f.where == "grpc:/pkg.Tracking/Report → message[2]" && f.inner == "field 3" && f.encoding == "gzip")
            #expect(f.description?.contains("sent to api.example in grpc:/pkg.Tracking/Report → message[2] → field 3") == true)
            #expect(findings.allSatisfy { !$0.where.hasPrefix("body") })
        }
        // The trailers of a gRPC-Web body are kept apart, and read.
        let streams = try #require(FlowStreams(Self.grpcFlow(request: body, type: "application/grpc-web+proto", response: trailers)))
        #expect(streams.kind == .grpcWeb && streams.clientCount == 3 && streams.serverCount == 0 && streams.grpcStatus == "0")
    }

    @Test func grpcWebTextAndServerMessages() throws {
        let inspector = Inspector(rules: try TestSupport.rules(), profile: Self.profile)
        // grpc-web-text: each frame base64 on its own (padding mid-stream).
        let text = Data(Self.frame(Self.message("x", seq: 0))).base64EncodedString() + Data(Self.frame(Self.message(Self.idfa, seq: 1))).base64EncodedString()
        let flow = Self.grpcFlow(request: Array(text.utf8), type: "application/grpc-web-text",
                                 response: Array(Data(Self.frame(Self.message(Self.idfa, seq: 9))).base64EncodedString().utf8))
        let findings = inspector.inspect(flow)
        let sent = try #require(findings.first { $0.where == "grpc:/pkg.Tracking/Report → message[1]" })
        #expect(sent.encoding == "base64" && sent.inner == "field 3")
        // The server's message carried it back: received, not sent.
        let received = try #require(findings.first { $0.where == "grpc:/pkg.Tracking/Report → message[0] (server)" })
        #expect(received.description?.contains("received from api.example") == true)
        // Trailers-Only: the status in the response headers.
        let streams = try #require(FlowStreams(Self.grpcFlow(request: [], responseHeaders: [("grpc-status", "7"), ("grpc-message", "denied")])))
        #expect(streams.grpcStatus == "7" && streams.grpcMessage == "denied")
    }

    @Test func serverSentEventsAndWebSocketMessages() throws {
        let inspector = Inspector(rules: try TestSupport.rules(), profile: Self.profile)
        var sse = TestSupport.flow(TestSupport.request("GET", "https://live.example/feed?x=1"))
        var h = HTTPHeaders()
        h.add(name: "Content-Type", value: "text/event-stream; charset=utf-8")
        sse.response = HTTPResponse(head: HTTPResponseHead(status: 200, reason: "OK", headers: h),
                                    body: Array("data: {\"hello\":1}\n\nevent: where\ndata: {\"lat\":48.856614,\"lng\":2.352222}\n\n".utf8))
        let events = inspector.inspect(sse)
        let place = try #require(events.first { $0.category == .location })
        #expect(place.where == "sse:/feed → event[1] (server)")
        #expect(place.description?.contains("received from") == true)

        var ws = TestSupport.flow(TestSupport.request("GET", "https://chat.example/socket", headers: [("Upgrade", "websocket")]))
        ws.messages = [
            FlowMessage(direction: .client, time: Date(), opcode: 1, data: Array("{\"hi\":true}".utf8)),
            FlowMessage(direction: .server, time: Date(), opcode: 1, data: Array("{\"welcome\":1}".utf8)),
            FlowMessage(direction: .client, time: Date(), opcode: 1, data: Array("{\"ad\":{\"ifa\":\"\(Self.idfa)\"}}".utf8), compressed: true),
        ]
        ws.extras[Flow.firstMessageIndexField] = "1000"
        let found = try #require(inspector.inspect(ws).first { $0.type == "idfa" })
        #expect(found.where == "ws:/socket → message[1002] (client)" && found.inner == "$.ad.ifa" && found.encoding == "deflate")
        // Pattern mode reads the same messages.
        let patterns = Inspector(rules: try TestSupport.rules()).inspect(ws)
        #expect(patterns.contains { $0.where == "ws:/socket → message[1002] (client)" }, "\(patterns.map(\.where))")
    }

    /// The span-scan promise holds for messages: with a device profile the pruned walk finds what
    /// the full walk finds, on planted bodies sent as WebSocket messages and SSE events.
    @Test(arguments: [UInt64(0xD1FF_1001), 0xD1FF_1002])
    func prunedMessageWalkFindsWhatTheFullWalkFinds(seed: UInt64) throws {
        let profile = try TestSupport.profile()
        let pruned = Inspector(rules: try TestSupport.rules(), profile: profile)
        var full = pruned
        full.rawPrefilter = false
        var generator = PlantedRequestGenerator(seed: seed, profile: profile, matcher: try #require(pruned.knownValues))
        var found = 0
        let iterations = ByteMutator.iterations(default: 150, environment: ProcessInfo.processInfo.environment) / 2
        for k in 0..<iterations {
            let bodies = (0..<3).map { _ in generator.request().0.body }
            var ws = TestSupport.flow(TestSupport.request("GET", "https://chat.example/socket", headers: [("Upgrade", "websocket")]), id: k + 1)
            ws.messages = bodies.enumerated().map { i, b in
                FlowMessage(direction: i == 1 ? .server : .client, time: Date(), opcode: ByteCodecs.looksLikeText(b[...]) ? 1 : 2, data: b)
            }
            let a = pruned.inspect(ws), b = full.inspect(ws)
            found += b.count
            #expect(a == b, "seed \(seed) iteration \(k): \(b.filter { !a.contains($0) }.map(\.where))")
        }
        #expect(found > 0)
    }
}

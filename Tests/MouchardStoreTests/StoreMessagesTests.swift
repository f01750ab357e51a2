import Foundation
import MouchardFlow
import MouchardStore
import MouchardWire
import Testing

/// WebSocket messages and the per-flow protocol summary (schema version 2), in both stores.
@Suite struct StoreMessagesTests {
    static func webSocketFlow() -> Flow {
        var headers = HTTPHeaders()
        headers.add(name: "Host", value: "chat.example")
        headers.add(name: "Upgrade", value: "websocket")
        var response = HTTPHeaders()
        response.add(name: "Upgrade", value: "websocket")
        let t = Date(timeIntervalSinceReferenceDate: 812_345_678.5)
        return Flow(id: 0, source: .proxy, transport: .https,
                    request: HTTPRequest(head: HTTPRequestHead(method: "GET", target: "/live", headers: headers), scheme: "https"),
                    response: HTTPResponse(head: HTTPResponseHead(status: 101, reason: "Switching Protocols", headers: response)),
                    timings: FlowTimings(started: t), extras: [Flow.webSocketCloseField: "\"client 1000\""],
                    messages: [
                        FlowMessage(direction: .client, time: t, opcode: 1, data: Array("{\"lat\":48.85}".utf8), compressed: true),
                        FlowMessage(direction: .server, time: t.addingTimeInterval(0.25), opcode: 2, data: [0, 0xFF, 0x80]),
                        FlowMessage(direction: .client, time: t.addingTimeInterval(1), opcode: 1, data: [], truncated: true),
                    ])
    }

    @Test(arguments: StoreKind.available)
    func messagesComeBackExactlyWithTheirFlow(_ kind: StoreKind) throws {
        let (store, cleanUp) = try kind.make()
        defer { cleanUp() }
        let ws = Self.webSocketFlow()
        let plain = StoreSamples.flows()[0]
        try store.append(plain)
        let id = try store.append(ws)
        try store.append(flows: [ws, plain])
        let back = try store.flows()
        #expect(back.count == 4)
        #expect(back.map(\.messages.count) == [0, 3, 3, 0])
        var expected = ws
        expected.id = id
        #expect(try store.flow(id: id) == expected)
        #expect(back[1] == expected)
        #expect(try store.flowPage(after: 1, limit: 2).map(\.messages.count) == [3, 3])
        let summaries = try store.flowSummaries()
        #expect(summaries.map(\.protocol) == [nil, .webSocket, .webSocket, nil])
        #expect(summaries[1].clientMessages == 2 && summaries[1].serverMessages == 1)
    }
}

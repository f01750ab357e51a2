import Foundation
import MouchardFlow
import MouchardMessages
import MouchardWire

/// WebSocket in a capture (cleartext HTTP/1.1, or HTTP/1.1 decrypted with TLS keys): after a 101
/// answering `Upgrade: websocket`, both directions are read as frames; the upgrade's flow is
/// emitted with the messages when the connection ends (in more than one flow when a long
/// connection fills one, see `WebSocketConversation.Limits`). A gap or a frame that breaks the
/// protocol stops the reading; what was read is kept and the reason put on the flow.
extension PcapFlowExtractor {
    /// Switches the connection to WebSocket when `response` accepted `request`'s upgrade; false
    /// for any other exchange. `direction` is the response's.
    func startWebSocket(request: HTTPStreamParser.Message, response: HTTPStreamParser.Message, direction d: Int,
                        connection c: TCPConnection) -> Bool {
        guard let head = response.responseHead, head.status == 101, let upgrade = head.headers["Upgrade"],
              upgrade.lowercased().contains("websocket") else { return false }
        let extensions = WebSocketExtensions(header: head.headers["Sec-WebSocket-Extensions"])
        guard extensions.isReadable else { return false }
        let ws = CapturedWebSocket(request: request, response: response, conversation: WebSocketConversation(extensions: extensions))
        c.webSocket = ws
        c.requestDirection = 1 - d
        // The first frames may have come with the 101 head.
        var leftover: [UInt8] = []
        if case .http(var parser) = c.protocols[d] {
            c.protocols[d] = .ignored
            leftover = parser.takeTunnelBytes()
        }
        c.protocols = [.webSocket, .webSocket]
        if !leftover.isEmpty { readWebSocket(leftover[...], direction: d, connection: c, time: response.ended) }
        return true
    }

    /// Bytes of direction `d` of a WebSocket connection.
    func readWebSocket(_ bytes: ArraySlice<UInt8>, direction d: Int, connection c: TCPConnection, time: Double) {
        guard let ws = c.webSocket, ws.stopped == nil else { return }
        let sender: FlowMessage.Direction = d == c.requestDirection ? .client : .server
        let verdict = ws.conversation.receive(bytes, from: sender, at: Date(timeIntervalSince1970: time))
        if let failure = verdict.failure {
            stopWebSocket(c, reason: "\(failure)")
            return
        }
        if ws.conversation.wantsFlush { emitWebSocket(ws, final: false, connection: c) }
    }

    /// Stops reading frames (both directions): the rest of the connection is only counted.
    func stopWebSocket(_ c: TCPConnection, reason: String) {
        c.webSocket?.stopped = c.webSocket?.stopped ?? reason
        c.protocols = [.ignored, .ignored]
    }

    /// Emits the upgrade's flow with the messages read since the last one.
    func emitWebSocket(_ ws: CapturedWebSocket, final: Bool, connection c: TCPConnection) {
        guard var flow = httpFlow(request: ws.request, response: ws.response, connection: c) else { return }
        let (first, messages) = ws.conversation.takeMessages()
        flow.messages = messages
        if first > 0 { flow.extras[Flow.firstMessageIndexField] = String(first) }
        let closing = final ? ws.conversation.closing ?? "connection ended without a close frame" : "open"
        flow.extras[Flow.webSocketCloseField] = String(decoding: JSONWriter.serialize(.string(closing), pretty: false), as: UTF8.self)
        if final, let why = ws.stopped { flow.error = (flow.error.map { $0 + "; " } ?? "") + "WebSocket frames not read further: \(why)" }
        publish(flow)
    }
}

import Foundation
import MouchardFlow
import MouchardMessages
import MouchardWire

/// A WebSocket connection relayed by a session after its 101: the upgrade exchange, held back to be
/// recorded with the messages, and the conversation that reads the frames both ways.
final class WebSocketRelay {
    let exchange: CapturedExchange
    let conversation: WebSocketConversation
    /// A frame broke the protocol: the connection is being closed with its code.
    var failure: WebSocketProtocolError?

    init(exchange: CapturedExchange, conversation: WebSocketConversation) {
        self.exchange = exchange
        self.conversation = conversation
    }
}

/// WebSocket inside a session (forward, CONNECT-intercepted or transparent): the bytes are relayed
/// unchanged, only the well-formed frames of each side go on; a frame that breaks RFC 6455 closes
/// both sides with its close code (1002, or 1009 for a frame over the limit); messages are recorded
/// on the upgrade's flow, in more than one flow when a long connection fills one
/// (`WebSocketConversation.Limits`), and when the connection ends.
extension ProxySession {
    /// Keeps a completed exchange that upgraded to a WebSocket Mouchard can read (no extension but
    /// `permessage-deflate`) to record it with its messages; false for every other exchange.
    func holdWebSocketUpgrade(_ e: CapturedExchange) -> Bool {
        guard let head = e.responseHead, head.status == 101, e.error == nil,
              let upgrade = head.headers["Upgrade"], upgrade.lowercased().contains("websocket") else { return false }
        let extensions = WebSocketExtensions(header: head.headers["Sec-WebSocket-Extensions"])
        guard extensions.isReadable else { return false }
        var limits = WebSocketConversation.Limits()
        limits.maxFrameLength = shared.configuration.webSocketMaxFrameLength
        webSocket = WebSocketRelay(exchange: e, conversation: WebSocketConversation(extensions: extensions, limits: limits))
        return true
    }

    /// Client bytes after the upgrade, towards the origin.
    func relayToUpstream(_ bytes: [UInt8]) {
        guard let ws = webSocket, !bytes.isEmpty else {
            upstream?.send(bytes)
            return
        }
        guard ws.failure == nil else { return }
        let verdict = ws.conversation.receive(bytes[...], from: .client, at: Date())
        upstream?.send(verdict.forward == bytes.count ? bytes : Array(bytes[..<verdict.forward]))
        afterRelay(ws, verdict)
    }

    /// Origin bytes after the upgrade, towards the client.
    func relayToClient(_ bytes: [UInt8]) {
        guard let ws = webSocket, !bytes.isEmpty else {
            sendToClient(bytes)
            return
        }
        guard ws.failure == nil else { return }
        let verdict = ws.conversation.receive(bytes[...], from: .server, at: Date())
        sendToClient(verdict.forward == bytes.count ? bytes : Array(bytes[..<verdict.forward]))
        afterRelay(ws, verdict)
    }

    private func afterRelay(_ ws: WebSocketRelay, _ verdict: WebSocketConversation.Verdict) {
        if let failure = verdict.failure {
            refuse(ws, failure)
            return
        }
        if ws.conversation.wantsFlush { recordWebSocket(ws, final: false) }
    }

    /// A frame broke the protocol: both sides get a close frame with its code (the client's
    /// unmasked, as a server sends it; the origin's masked, as a client does), then both
    /// connections close. Nothing of the bad frame was relayed.
    private func refuse(_ ws: WebSocketRelay, _ failure: WebSocketProtocolError) {
        ws.failure = failure
        shared.statistics.failures.wrappingAdd(1, ordering: .relaxed)
        let reason = failure.closeCode == WebSocketCloseCode.messageTooBig ? "frame too big" : "protocol error"
        sendToClient(WebSocketFrameWriter.close(code: failure.closeCode, reason: reason))
        let mask = (UInt8.random(in: 0...255), UInt8.random(in: 0...255), UInt8.random(in: 0...255), UInt8.random(in: 0...255))
        upstream?.send(WebSocketFrameWriter.close(code: failure.closeCode, reason: reason, mask: mask))
        finishTunnel(error: nil)
    }

    /// Records the messages read so far (and, when `final`, how the connection ended).
    func finishWebSocket(error: String?) {
        guard let ws = webSocket else { return }
        webSocket = nil
        ws.conversation.finish(at: Date())
        recordWebSocket(ws, final: true, error: error)
    }

    /// Records a WebSocket's messages read so far with its upgrade's flow (HTTP/1.1, or an HTTP/2
    /// extended CONNECT stream), and, when `final`, how it ended.
    func recordWebSocket(_ ws: WebSocketRelay, final: Bool, error: String? = nil) {
        let (first, messages) = ws.conversation.takeMessages()
        var flow = flow(of: ws.exchange)
        flow.messages = messages
        if first > 0 { flow.extras[Flow.firstMessageIndexField] = String(first) }
        let closing = final ? ws.conversation.closing ?? "connection closed without a close frame" : "open"
        flow.extras[Flow.webSocketCloseField] = Self.jsonString(closing)
        if let failure = ws.failure { flow.error = "WebSocket closed by Mouchard: \(failure)" } else if let error { flow.error = error }
        for note in ws.conversation.notes.prefix(4) { flow.error = (flow.error.map { $0 + "; " } ?? "") + note }
        if final { shared.statistics.exchanges.wrappingAdd(1, ordering: .relaxed) }
        shared.sink.record(flow)
    }
}

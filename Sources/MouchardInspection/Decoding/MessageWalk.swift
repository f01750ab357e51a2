import MouchardCodec
import MouchardFlow

/// The one way the walk reads a flow's messages (WebSocket messages, gRPC messages, SSE events, as
/// `FlowStreams` lists them): each message is labelled with where it was
/// (`ws:/chat → message[3] (client)`, `grpc:/pkg.Service/Method → message[2]`,
/// `sse:/feed → event[0] (server)`), its own codings are undone (gRPC's per-message `grpc-encoding`,
/// gRPC-Web's base64 text), and it is walked like a body: JSON, protobuf (fields named `field 3`),
/// base64 and the other layers, each finding's inner path under the label.
struct LabeledMessage {
    /// Where findings say the message was: a finding's `where`, its path inside the message the `inner`.
    var label: String
    var bytes: [UInt8]
    /// Codings undone to reach `bytes`, outermost first.
    var decodings: [String]
    /// Read as protobuf first (gRPC messages, WebSocket binary messages).
    var protobufFirst: Bool
}

enum MessageLabels {
    /// Ends the label of a message the server sent (its findings were received, not sent).
    static let serverMark = " (server)"

    /// The label of message `m` of `streams`.
    static func label(_ streams: FlowStreams, _ m: FlowStreams.Message) -> String {
        let index = String(m.index)
        switch streams.kind {
        case .webSocket:
            return "ws:" + streams.path + " → message[" + index + "]" + (m.direction == .client ? " (client)" : serverMark)
        case .grpc, .grpcWeb:
            return "grpc:" + streams.path + " → message[" + index + "]" + (m.direction == .client ? "" : serverMark)
        case .serverSentEvents:
            return "sse:" + streams.path + " → event[" + index + "]" + serverMark
        }
    }

    /// Message `m` ready for the walk: labelled, its codings undone (decoded sizes bounded by
    /// `limit`); nil with the reason when it cannot be read.
    static func prepare(_ streams: FlowStreams, _ m: FlowStreams.Message, limit: Int) -> (LabeledMessage?, String?) {
        let label = label(streams, m)
        var decodings: [String] = []
        if m.fromBase64 { decodings.append("base64") }
        if m.deflated { decodings.append("deflate") }
        var bytes = Array(m.bytes)
        if let coding = m.encoding, coding != "identity" {
            do throws(ContentDecodingError) {
                bytes = try ContentDecoder(limit: limit).decode(bytes, contentEncoding: coding)
                decodings.append(coding)
            } catch {
                return (nil, "\(label): cannot undo grpc-encoding \(coding) (\(error))")
            }
        }
        let grpc = streams.kind == .grpc || streams.kind == .grpcWeb
        let binary = m.opcode == FlowMessage.binaryOpcode
        return (LabeledMessage(label: label, bytes: bytes, decodings: decodings, protobufFirst: grpc || binary), nil)
    }
}

extension FieldWalker {
    /// Walks the messages of `streams` that `include` accepts, each under its label.
    mutating func walkStreams(_ streams: FlowStreams, include: (FlowStreams.Message) -> Bool) {
        for note in streams.notes where result.notes.count < Self.maxMessageNotes { result.notes.append(note) }
        for m in streams.messages where include(m) {
            if full { return }
            let (prepared, note) = MessageLabels.prepare(streams, m, limit: config.maxDecodedBytes)
            if let note { result.notes.append(note) }
            if let prepared { walkMessage(prepared) }
        }
    }

    /// One message, walked like a body. Profile mode with pruning: a text message without a span
    /// cannot hold a profile value and is skipped (a binary one is walked whole, as a binary body is).
    mutating func walkMessage(_ m: LabeledMessage) {
        guard !m.bytes.isEmpty else { return }
        let origin = FieldOrigin(location: m.label, decodings: m.decodings)
        if let pruning, !m.protobufFirst, pruning.matcher.looksLikeText(m.bytes.prefix(512)), pruning.matcher.spans(m.bytes[...]).isEmpty {
            return
        }
        if m.protobufFirst || !ByteCodecs.looksLikeText(m.bytes.prefix(512)) {
            if walkProtobuf(m.bytes[...], origin: origin, topLevel: false, path: "", depth: 0) { return }
        }
        walkDocument(m.bytes[...], contentType: DocumentType(lowercased: ""), origin: origin, topLevel: false, depth: 0)
    }

    /// Notes the streams add to a walk's result at most.
    static let maxMessageNotes = 32
}

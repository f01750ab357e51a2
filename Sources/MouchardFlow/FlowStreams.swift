import MouchardWire

/// The messages a flow carries inside its exchange, whatever frames them: a WebSocket connection's
/// messages (`Flow.messages`), the length-prefixed messages of a gRPC or gRPC-Web body, the events
/// of a `text/event-stream` response. One list, in order, each message with its direction and its
/// index in its stream, so that every consumer (inspection, `flows`, reports, the store) reads the
/// three the same way.
///
/// Pure splitting only: a gRPC message compressed with the stream's `grpc-encoding` is given as
/// sent, with `encoding` set (the inspector inflates it); a content-encoded event stream is not split.
public struct FlowStreams: Sendable {
    /// What frames the messages.
    public enum Kind: String, Sendable, Hashable, CaseIterable {
        case webSocket = "websocket"
        case grpc
        case grpcWeb = "grpc-web"
        case serverSentEvents = "sse"

        /// The name people know it by.
        public var displayName: String {
            switch self {
            case .webSocket: "WebSocket"
            case .grpc: "gRPC"
            case .grpcWeb: "gRPC-Web"
            case .serverSentEvents: "SSE"
            }
        }
    }

    /// One message.
    public struct Message: Sendable {
        public var direction: FlowMessage.Direction
        /// Index in its stream: the connection's message list for WebSocket (both directions, from
        /// `Flow.firstMessageIndex`), the request's or the response's messages for gRPC, the events.
        public var index: Int
        public var bytes: ArraySlice<UInt8>
        /// gRPC: the message is compressed with this coding (`gzip`, `deflate`...).
        public var encoding: String?
        /// The bytes were base64 in the body (`application/grpc-web-text`).
        public var fromBase64: Bool
        /// WebSocket: it travelled compressed (`permessage-deflate`, already inflated in `bytes`).
        public var deflated: Bool
        /// WebSocket opcode (1 text, 2 binary); 0 for the others.
        public var opcode: Int
        /// SSE: the `event:` name.
        public var eventType: String?
    }

    public var kind: Kind
    /// The request path the messages belong to (`/chat`, `/package.Service/Method`).
    public var path: String
    public var messages: [Message]
    /// gRPC status and message (from the in-body trailers of gRPC-Web, or the response headers of a
    /// Trailers-Only response, or the flow's `_grpcStatus`/`_grpcMessage` extras).
    public var grpcStatus: String?
    public var grpcMessage: String?
    /// What could not be split (a body cut inside a message, a bad base64 body, too many messages).
    public var notes: [String]

    /// Messages per direction.
    public var clientCount: Int { messages.count { $0.direction == .client } }
    public var serverCount: Int { messages.count { $0.direction == .server } }

    /// What frames the messages of `flow`, nil for a plain exchange (read from its heads: nothing is split).
    public static func kind(of flow: Flow) -> Kind? {
        guard let request = flow.request else { return nil }
        if !flow.messages.isEmpty || (flow.response?.status == 101 && isWebSocketUpgrade(flow)) { return .webSocket }
        // Nearly every flow is a plain exchange: told from the Content-Type bytes, in place, before
        // any text is made (the inspector asks for every flow).
        guard mayFrameMessages(request.headers) || flow.response.map({ mayFrameMessages($0.headers) }) == true else { return nil }
        if let grpc = grpcKind(mediaType(request.headers["Content-Type"])) ?? grpcKind(mediaType(flow.response?.headers["Content-Type"])) {
            return grpc.kind
        }
        return mediaType(flow.response?.headers["Content-Type"]) == "text/event-stream" ? .serverSentEvents : nil
    }

    /// The flow's message streams, nil when it carries none of the kinds.
    public init?(_ flow: Flow) {
        guard let kind = Self.kind(of: flow), let request = flow.request else { return nil }
        self.kind = kind
        path = request.path
        messages = []
        notes = []
        switch kind {
        case .webSocket:
            let first = flow.firstMessageIndex
            for (k, m) in flow.messages.enumerated() {
                messages.append(Message(direction: m.direction, index: first + k, bytes: m.data[...], encoding: nil, fromBase64: false,
                                        deflated: m.compressed, opcode: m.opcode, eventType: nil))
            }
            if let dropped = flow.extras[Flow.messagesDroppedField], dropped != "0" { notes.append("\(dropped) messages not kept") }
        case .grpc, .grpcWeb:
            let requestGRPC = Self.grpcKind(Self.mediaType(request.headers["Content-Type"]))
            let responseGRPC = Self.grpcKind(Self.mediaType(flow.response?.headers["Content-Type"]))
            let text = (requestGRPC ?? responseGRPC)?.text ?? false
            addGRPC(request.body[...], direction: .client, text: text, encoding: request.headers["grpc-encoding"],
                    truncated: request.bodyTruncated)
            if let response = flow.response {
                addGRPC(response.body[...], direction: .server, text: responseGRPC?.text ?? text, encoding: response.headers["grpc-encoding"],
                        truncated: response.bodyTruncated)
                if grpcStatus == nil, let status = response.headers["grpc-status"] {
                    grpcStatus = status
                    grpcMessage = response.headers["grpc-message"]
                }
            }
            if grpcStatus == nil, let s = flow.extras[Flow.grpcStatusField] { grpcStatus = Self.unquoted(s) }
            if grpcMessage == nil, let m = flow.extras[Flow.grpcMessageField] { grpcMessage = Self.unquoted(m) }
        case .serverSentEvents:
            guard let response = flow.response else { return }
            let coding = response.headers["Content-Encoding"]?.lowercased() ?? "identity"
            guard coding == "identity" || coding.isEmpty else {
                notes.append("event stream with Content-Encoding \(coding) not split")
                return
            }
            let split = ServerSentEvents.split(response.body[...])
            for (k, e) in split.events.enumerated() {
                messages.append(Message(direction: .server, index: k, bytes: e.data[...], encoding: nil, fromBase64: false, deflated: false,
                                        opcode: 0, eventType: e.type))
            }
            if split.stoppedAtLimit { notes.append("more than \(ServerSentEvents.defaultMaxEvents) events: the rest not split") }
        }
    }

    /// Splits one gRPC body into messages of `direction` (trailers frames give the status).
    private mutating func addGRPC(_ body: ArraySlice<UInt8>, direction: FlowMessage.Direction, text: Bool, encoding: String?,
                                  truncated: Bool) {
        guard !body.isEmpty else { return }
        var bytes = body
        if text {
            guard let decoded = GRPCFrames.decodeWebText(body) else {
                notes.append("\(direction) body: not base64 (grpc-web-text)")
                return
            }
            bytes = decoded[...]
        }
        let split = GRPCFrames.split(bytes)
        var index = 0
        let coding = encoding.map { $0.trimmingSpaces.lowercased() }
        for f in split.frames {
            if f.isTrailers {
                for (name, value) in GRPCFrames.trailerFields(f.payload) {
                    if name == "grpc-status" { grpcStatus = value }
                    if name == "grpc-message" { grpcMessage = value }
                }
                continue
            }
            messages.append(Message(direction: direction, index: index, bytes: f.payload,
                                    encoding: f.isCompressed ? (coding ?? "identity") : nil, fromBase64: text, deflated: false,
                                    opcode: 0, eventType: nil))
            index += 1
        }
        if let cut = split.incomplete {
            notes.append("\(direction) body \(truncated ? "cut" : "ends") inside message \(index) at byte \(cut.offset)"
                         + " (\(cut.available) of \(cut.declared) bytes)")
        }
        if split.stoppedAtLimit { notes.append("\(direction) body: more than \(GRPCFrames.defaultMaxFrames) messages, the rest not split") }
    }

    /// A Content-Type field of `headers` holds `grpc` or `event-stream` (ASCII case folded): the
    /// only types that frame messages. Reads the fields in place.
    static func mayFrameMessages(_ headers: HTTPHeaders) -> Bool {
        let fields = headers.fields
        for i in fields.indices where fields[i].name.utf8.count == 12 {
            guard isContentType(fields[i].name) else { continue }
            if contains(fields[i].valueBytes, "grpc") || contains(fields[i].valueBytes, "event-stream") { return true }
        }
        return false
    }

    /// `name` is `Content-Type`, ASCII case folded: its bytes compared in place (the generic
    /// `elementsEqual` of two UTF-8 views cost some 900 instructions a header, asked for every flow).
    private static func isContentType(_ name: String) -> Bool {
        let wanted: StaticString = "content-type"
        let w = wanted.utf8Start
        return name.utf8.withContiguousStorageIfAvailable { b in
            guard b.count == wanted.utf8CodeUnitCount else { return false }
            for k in 0..<b.count where b[k] | 0x20 != w[k] | 0x20 { return false }
            return true
        } ?? name.utf8.elementsEqual(wanted.description.utf8, by: { a, b in a | 0x20 == b | 0x20 })
    }

    /// `word` (lower case) in `bytes`, ASCII case folded.
    private static func contains(_ bytes: [UInt8], _ word: StaticString) -> Bool {
        let n = word.utf8CodeUnitCount
        guard bytes.count >= n else { return false }
        let w = word.utf8Start
        for start in 0...(bytes.count - n) {
            var k = 0
            while k < n, bytes[start + k] | 0x20 == w[k] { k += 1 }
            if k == n { return true }
        }
        return false
    }

    /// `application/grpc` and its `+proto`/`+json` forms, and gRPC-Web's binary and text forms.
    static func grpcKind(_ type: String?) -> (kind: Kind, text: Bool)? {
        guard let type, type.hasPrefix("application/grpc") else { return nil }
        let rest = type.dropFirst("application/grpc".count)
        if rest.hasPrefix("-web-text") { return (.grpcWeb, true) }
        if rest.hasPrefix("-web") { return (.grpcWeb, false) }
        if rest.isEmpty || rest.hasPrefix("+") { return (.grpc, false) }
        return nil
    }

    /// The media type of a Content-Type value, lower-cased, without parameters.
    static func mediaType(_ value: String?) -> String? {
        guard let value else { return nil }
        let type = value.split(separator: ";", maxSplits: 1, omittingEmptySubsequences: false).first ?? ""
        return String(type).trimmingSpaces.lowercased()
    }

    /// A 101 answering `Upgrade: websocket`.
    static func isWebSocketUpgrade(_ flow: Flow) -> Bool {
        guard flow.response?.status == 101, let upgrade = flow.response?.headers["Upgrade"] ?? flow.request?.headers["Upgrade"] else {
            return false
        }
        return upgrade.lowercased().contains("websocket")
    }

    /// A JSON string's text (extras hold JSON), or the text itself.
    static func unquoted(_ json: String) -> String {
        guard json.count >= 2, json.hasPrefix("\""), json.hasSuffix("\"") else { return json }
        return String(json.dropFirst().dropLast())
    }
}

extension Flow {
    /// `extras` entries holding a gRPC response's `grpc-status` and `grpc-message` trailers (JSON
    /// strings), for transports that keep trailers outside the body (HTTP/2).
    public static let grpcStatusField = "_grpcStatus"
    public static let grpcMessageField = "_grpcMessage"
}

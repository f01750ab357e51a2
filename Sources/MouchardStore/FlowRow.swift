import Foundation
import MouchardFindings
import MouchardFlow
import MouchardWire

/// How a `Flow` maps to a row of the `flows` table and back, exactly (dates as reference-date
/// seconds, header bytes in `HeaderBlob`s, bodies as BLOBs, lists and extras as JSON). The fleet
/// store's `flows` table has the same columns, so rows move between the two unchanged.
public enum FlowRow {
    public static let columns = [
        "id", "source", "transport", "started",
        "t_blocked", "t_dns", "t_connect", "t_ssl", "t_send", "t_wait", "t_receive",
        "client_address", "client_port", "server_address", "server_port",
        "has_tls", "tls_server_name", "tls_alpn", "tls_version",
        "error", "extras", "host", "url",
        "req_method", "req_target", "req_version", "req_scheme", "req_fallback_authority",
        "req_headers", "req_body", "req_body_truncated",
        "resp_status", "resp_reason", "resp_version", "resp_headers", "resp_body", "resp_body_truncated",
        "protocol", "client_messages", "server_messages",
    ]

    static let insertSQL = "INSERT INTO flows (\(columns.joined(separator: ", "))) VALUES (\(columns.map { _ in "?" }.joined(separator: ", ")))"
    static let selectSQL = "SELECT \(columns.joined(separator: ", ")) FROM flows"

    /// The row values, in `columns` order; `id` nil lets SQLite assign the next id.
    public static func values(_ f: Flow, id: Int?) -> [SQLValue] {
        func text(_ s: String?) -> SQLValue { s.map { .text($0) } ?? .null }
        func real(_ d: Double?) -> SQLValue { d.map { .real($0) } ?? .null }
        func int(_ n: Int?) -> SQLValue { n.map { .integer(Int64($0)) } ?? .null }
        let t = f.timings
        var v: [SQLValue] = [
            int(id), .text(f.source.rawValue), .text(f.transport.rawValue), .real(t.started.timeIntervalSinceReferenceDate),
            real(t.blocked), real(t.dns), real(t.connect), real(t.ssl), real(t.send), real(t.wait), real(t.receive),
            text(f.client?.address), int(f.client?.port), text(f.server?.address), int(f.server?.port),
            .integer(f.tls == nil ? 0 : 1), text(f.tls?.serverName), text(f.tls.map { StoreJSON.encode($0.alpn) }), text(f.tls?.version),
            text(f.error), f.extras.isEmpty ? .null : .text(StoreJSON.encode(f.extras)), .text(f.host), text(f.request?.url),
        ]
        if let r = f.request {
            v += [.text(r.method), .text(r.head.target), .text(version(r.head.version)), .text(r.scheme),
                  text(r.fallbackAuthority), .blob(HeaderBlob.encode(r.headers)), .blob(r.body), .integer(r.bodyTruncated ? 1 : 0)]
        } else {
            v += Array(repeating: .null, count: 8)
        }
        if let r = f.response {
            v += [.integer(Int64(r.status)), .text(r.head.reason), .text(version(r.head.version)),
                  .blob(HeaderBlob.encode(r.headers)), .blob(r.body), .integer(r.bodyTruncated ? 1 : 0)]
        } else {
            v += Array(repeating: .null, count: 6)
        }
        if let streams = FlowStreams(f) {
            v += [.text(streams.kind.rawValue), .integer(Int64(streams.clientCount)), .integer(Int64(streams.serverCount))]
        } else {
            v += [.null, .null, .null]
        }
        return v
    }

    // MARK: - Messages

    /// The columns of the `messages` table, local and fleet alike: a message is keyed by its flow
    /// and its place (`seq`) in the flow's messages.
    public static let messageColumns = ["flow", "seq", "direction", "time", "opcode", "data", "compressed", "truncated"]

    static let insertMessageSQL =
        "INSERT INTO messages (\(messageColumns.joined(separator: ", "))) VALUES (\(messageColumns.map { _ in "?" }.joined(separator: ", ")))"
    static let selectMessagesSQL = "SELECT \(messageColumns.joined(separator: ", ")) FROM messages"

    /// The row values of one message, in `messageColumns` order.
    public static func messageValues(_ m: FlowMessage, flow: Int, seq: Int) -> [SQLValue] {
        [.integer(Int64(flow)), .integer(Int64(seq)), .text(m.direction.rawValue), .real(m.time.timeIntervalSinceReferenceDate),
         .integer(Int64(m.opcode)), .blob(m.data), .integer(m.compressed ? 1 : 0), .integer(m.truncated ? 1 : 0)]
    }

    /// Reads a row holding `messageColumns` in order: the flow id and the message.
    public static func decodeMessage(_ s: some StoreRow, file: String) throws(StoreError) -> (Int, FlowMessage) {
        let flow = s.int(0)
        guard let direction = FlowMessage.Direction(rawValue: s.text(2)) else {
            throw StoreError(file: file, message: "flow \(flow): a message's direction is damaged")
        }
        return (flow, FlowMessage(direction: direction, time: Date(timeIntervalSinceReferenceDate: s.double(3)), opcode: s.int(4),
                                  data: s.blob(5), compressed: s.int(6) != 0, truncated: s.int(7) != 0))
    }

    /// `flows` with the messages of `rows` (flow id and message, in each flow's order) attached.
    public static func attach(_ rows: [(Int, FlowMessage)], to flows: [Flow]) -> [Flow] {
        guard !rows.isEmpty else { return flows }
        var byFlow: [Int: [FlowMessage]] = [:]
        for (flow, m) in rows { byFlow[flow, default: []].append(m) }
        return flows.map { f in
            guard let messages = byFlow[f.id] else { return f }
            var with = f
            with.messages = messages
            return with
        }
    }

    /// Reads a row holding `columns` in order (from `selectSQL`, or the fleet store's select).
    public static func decode(_ s: some StoreRow, file: String) throws(StoreError) -> Flow {
        let id = s.int(0)
        func corrupt(_ what: String) -> StoreError {
            StoreError(file: file, message: "flow \(id): \(what) is damaged")
        }
        guard let source = FlowSource(rawValue: s.text(1)) else { throw corrupt("source") }
        guard let transport = FlowTransport(rawValue: s.text(2)) else { throw corrupt("transport") }
        let timings = FlowTimings(started: Date(timeIntervalSinceReferenceDate: s.double(3)),
                                  blocked: s.optionalDouble(4), dns: s.optionalDouble(5), connect: s.optionalDouble(6),
                                  ssl: s.optionalDouble(7), send: s.optionalDouble(8), wait: s.optionalDouble(9),
                                  receive: s.optionalDouble(10))
        let client = s.optionalText(11).map { Endpoint(address: $0, port: s.int(12)) }
        let server = s.optionalText(13).map { Endpoint(address: $0, port: s.int(14)) }
        var tls: TLSFacts?
        if s.int(15) != 0 {
            guard let alpn = s.optionalText(17).map({ StoreJSON.decode([String].self, $0) }) ?? [] else { throw corrupt("TLS ALPN list") }
            tls = TLSFacts(serverName: s.optionalText(16), alpn: alpn, version: s.optionalText(18))
        }
        var extras: [String: String] = [:]
        if let e = s.optionalText(20) {
            guard let d = StoreJSON.decode([String: String].self, e) else { throw corrupt("extras") }
            extras = d
        }
        var request: HTTPRequest?
        if let method = s.optionalText(23) {
            guard let headers = HeaderBlob.decode(s.blob(28)) else { throw corrupt("request headers") }
            guard let v = parseVersion(s.text(25)) else { throw corrupt("request version") }
            request = HTTPRequest(head: HTTPRequestHead(method: method, target: s.text(24), version: v, headers: headers),
                                  scheme: s.text(26), fallbackAuthority: s.optionalText(27), body: s.blob(29),
                                  bodyTruncated: s.int(30) != 0)
        }
        var response: HTTPResponse?
        if !s.isNull(31) {
            guard let headers = HeaderBlob.decode(s.blob(34)) else { throw corrupt("response headers") }
            guard let v = parseVersion(s.text(33)) else { throw corrupt("response version") }
            response = HTTPResponse(head: HTTPResponseHead(version: v, status: s.int(31), reason: s.text(32), headers: headers),
                                    body: s.blob(35), bodyTruncated: s.int(36) != 0)
        }
        return Flow(id: id, source: source, transport: transport, request: request, response: response, timings: timings,
                    client: client, server: server, tls: tls, error: s.optionalText(19), extras: extras)
    }

    static func version(_ v: HTTPVersion) -> String { "\(v.major).\(v.minor)" }

    static func parseVersion(_ s: String) -> HTTPVersion? {
        let parts = s.split(separator: ".")
        guard parts.count == 2, let major = Int(parts[0]), let minor = Int(parts[1]) else { return nil }
        return HTTPVersion(major: major, minor: minor)
    }
}

/// The JSON texts the stores keep (TLS ALPN lists, extras, findings, DNS answers). Lists, string maps
/// and findings are written by hand, keys sorted (what `JSONEncoder` with sorted keys gives, and
/// a tenth of its cost: findings are stored as fast as flows come); they are read back with
/// `JSONDecoder`.
public enum StoreJSON {
    /// `["a","b"]`.
    public static func encode(_ list: [String]) -> String {
        var w = JSONWriter(pretty: false)
        w.write(raw: "[")
        for (k, s) in list.enumerated() {
            if k > 0 { w.write(raw: ",") }
            w.write(string: s)
        }
        w.write(raw: "]")
        return String(decoding: w.output, as: UTF8.self)
    }

    /// `{"a":"1","b":"2"}`, keys sorted.
    public static func encode(_ map: [String: String]) -> String {
        var w = JSONWriter(pretty: false)
        w.write(raw: "{")
        for (k, key) in map.keys.sorted().enumerated() {
            if k > 0 { w.write(raw: ",") }
            w.write(string: key)
            w.write(raw: ":")
            w.write(string: map[key]!)
        }
        w.write(raw: "}")
        return String(decoding: w.output, as: UTF8.self)
    }

    /// A finding as one object in the shape of docs/findings.md, keys sorted (absent optionals left out).
    public static func encode(_ f: Finding) -> String {
        var w = JSONWriter(pretty: false)
        func member(_ name: String, _ value: String?, first: Bool = false) {
            guard let value else { return }
            w.write(raw: first ? "{\"\(name)\":" : ",\"\(name)\":")
            w.write(string: value)
        }
        member("category", f.category.rawValue, first: true)
        if let c = f.confidence { w.write(raw: ",\"confidence\":" + (c.isFinite ? "\(c)" : "null")) }
        member("description", f.description)
        w.write(raw: ",\"destination\":{\"host\":")
        w.write(string: f.destination.host)
        member("owner", f.destination.owner)
        w.write(raw: ",\"third_party\":\(f.destination.thirdParty)")
        member("tracker", f.destination.tracker)
        member("tracker_category", f.destination.trackerCategory)
        w.write(raw: "}")
        member("encoding", f.encoding)
        member("evidence", f.evidence)
        if let n = f.flow { w.write(raw: ",\"flow\":\(n)") }
        member("inner", f.inner)
        w.write(raw: ",\"request\":{\"method\":")
        w.write(string: f.request.method)
        member("url", f.request.url)
        w.write(raw: "}")
        member("rule", f.rule)
        member("severity", f.severity?.rawValue)
        member("time", f.time)
        member("transport", f.transport)
        member("type", f.type)
        member("where", f.where)
        w.write(raw: "}")
        return String(decoding: w.output, as: UTF8.self)
    }

    /// The value decoded from JSON text, nil when the text does not hold one.
    public static func decode<T: Decodable>(_ type: T.Type, _ text: String) -> T? {
        try? JSONDecoder().decode(type, from: Data(text.utf8))
    }
}

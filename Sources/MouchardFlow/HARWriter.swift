import Foundation
import MouchardWire

/// Writes flows as a HAR 1.2 document (creator `mouchard`) that `HARReader` reads back to the same
/// method, URL, header list (order, case, duplicates) and request body.
///
/// Decisions:
/// - Text bodies (valid UTF-8 without control bytes other than tab/CR/LF, no `Content-Encoding`)
///   go in `text`; any other body is base64 with `"encoding": "base64"`. Form bodies also list
///   `params`; `queryString` and `cookies` are derived from the URL and the Cookie/Set-Cookie headers.
/// - Unknown timings are `-1` (never null); `time` is the sum of the known phases;
///   `startedDateTime` is UTC with milliseconds.
/// - Mouchard's own fields: `_flowId`, `_transport`, `_error`, `_tls` (`serverName`, `alpn`,
///   `version`), `_serverPort`, `_clientAddress`, `_clientPort`, `request._target` (when the
///   request-target is not what the URL implies, e.g. absolute-form through a proxy),
///   `request._bodyTruncated`, `response._bodyTruncated`.
/// - WebSocket messages as Chrome writes them (`_resourceType` `websocket`, `_webSocketMessages`,
///   see `HARWebSocketMessages`).
/// - A flow without a request (tls-metadata: only SNI/ALPN seen) is still written, so an export
///   keeps every destination: a `CONNECT` request to `https://SNI:PORT` with `"_noRequest": true`
///   and `"_transport": "tls-metadata"`; the reader turns it back into a flow without a request.
///   A flow without a response gets `status: 0` and no headers, read back as no response.
/// - `Flow.extras` are written back where the reader found them (see `HARReader`).
/// - HAR is text: a header value whose bytes are not UTF-8 is written as its `value` text
///   (Latin-1 view), so it reads back with the same text but UTF-8 bytes. The session store keeps the bytes.
public struct HARWriter: Sendable {
    public var creatorName: String
    public var creatorVersion: String
    /// Two-space indentation and one member per line (as browsers export); false for compact output.
    public var pretty: Bool

    public init(creatorName: String = "mouchard", creatorVersion: String, pretty: Bool = true) {
        self.creatorName = creatorName
        self.creatorVersion = creatorVersion
        self.pretty = pretty
    }

    /// The whole document.
    public func document(_ flows: [Flow]) -> Data {
        var out = begin()
        for (k, f) in flows.enumerated() { out += entry(f, isFirst: k == 0) }
        out += end()
        return Data(out)
    }

    // Streaming: begin(), then entry(_:isFirst:) for each flow, then end(), concatenated.

    /// Everything before the first entry. `logFields` are other members of `log` (name and JSON
    /// text, e.g. `pages` or `comment` kept by `import`), written before `entries`.
    public func begin(logFields: [(String, String)] = []) -> [UInt8] {
        let creator = JSONValue.object([("name", .string(creatorName)), ("version", .string(creatorVersion))])
        let c = String(decoding: JSONWriter.serialize(creator, pretty: false), as: UTF8.self)
        var text = pretty ? "{\n  \"log\": {\n    \"version\": \"1.2\",\n    \"creator\": \(c),"
                          : "{\"log\":{\"version\":\"1.2\",\"creator\":\(c),"
        for (name, json) in logFields {
            guard let v = try? JSONParser.har.parse(Array(json.utf8)) else { continue }
            var w = JSONWriter(pretty: pretty)
            w.write(v, indent: 2)
            let key = String(decoding: JSONWriter.serialize(.string(name), pretty: false), as: UTF8.self)
            text += (pretty ? "\n    \(key): " : "\(key):") + String(decoding: w.output, as: UTF8.self) + ","
        }
        text += pretty ? "\n    \"entries\": [" : "\"entries\":["
        return Array(text.utf8)
    }

    /// An entry kept verbatim (one `import` could not read), preceded by the separator unless first.
    public func rawEntry(_ json: String, isFirst: Bool) -> [UInt8] {
        guard let v = try? JSONParser.har.parse(Array(json.utf8)) else { return [] }
        var s = JSONWriter(pretty: pretty)
        var out: [UInt8] = isFirst ? [] : [UInt8(ascii: ",")]
        if pretty { out += Array("\n      ".utf8) }
        s.write(v, indent: 3)
        return out + s.output
    }

    /// One entry, preceded by the separator unless it is the first.
    public func entry(_ flow: Flow, isFirst: Bool) -> [UInt8] {
        var s = JSONWriter(pretty: pretty)
        var out: [UInt8] = isFirst ? [] : [UInt8(ascii: ",")]
        if pretty { out += Array("\n      ".utf8) }
        s.write(Self.entryValue(flow), indent: 3)
        return out + s.output
    }

    /// Everything after the last entry.
    public func end() -> [UInt8] { Array((pretty ? "\n    ]\n  }\n}\n" : "]}}").utf8) }

    // MARK: - Building the JSON

    static func entryValue(_ flow: Flow) -> JSONValue {
        var extras = ExtrasByPlace(flow.extras)
        var entry: [(String, JSONValue)] = [
            ("startedDateTime", .string(ISO8601Time.format(flow.timings.started))),
            ("time", number(flow.timings.total)),
            ("request", requestValue(flow, extras: &extras)),
            ("response", responseValue(flow.response, extras: &extras)),
            ("cache", .object([])),
            ("timings", timingsValue(flow.timings, extras: extras.take("timings."))),
        ]
        if let server = flow.server {
            entry.append(("serverIPAddress", .string(server.address)))
        }
        entry.append(("_flowId", .number(String(flow.id))))
        entry.append(("_transport", .string(flow.transport.rawValue)))
        if flow.request == nil { entry.append(("_noRequest", .bool(true))) }
        if let e = flow.error { entry.append(("_error", .string(e))) }
        if let tls = flow.tls {
            var t: [(String, JSONValue)] = []
            if let sni = tls.serverName { t.append(("serverName", .string(sni))) }
            t.append(("alpn", .array(tls.alpn.map { .string($0) })))
            if let v = tls.version { t.append(("version", .string(v))) }
            entry.append(("_tls", .object(t)))
        }
        if let server = flow.server { entry.append(("_serverPort", .number(String(server.port)))) }
        if let client = flow.client {
            entry.append(("_clientAddress", .string(client.address)))
            entry.append(("_clientPort", .number(String(client.port))))
        }
        if !flow.messages.isEmpty {
            entry.append(("_resourceType", .string("websocket")))
            entry.append((HARWebSocketMessages.member, HARWebSocketMessages.value(flow.messages)))
        }
        appendExtras(extras.take(""), to: &entry)
        var value = JSONValue.object(entry)
        HAROriginals.apply(flow.extras, to: &value)
        return value
    }

    static func requestValue(_ flow: Flow, extras: inout ExtrasByPlace) -> JSONValue {
        let postDataExtras = extras.take("request.postData.")
        let requestExtras = extras.take("request.")
        guard let r = flow.request else {
            let host = flow.tls?.serverName ?? flow.server?.address ?? "unknown"
            let port = flow.server?.port ?? 443
            let authority = host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)"
            var v: [(String, JSONValue)] = [
                ("method", .string("CONNECT")), ("url", .string("https://\(authority)")), ("httpVersion", .string("")),
                ("cookies", .array([])), ("headers", .array([])), ("queryString", .array([])),
                ("headersSize", .number("-1")), ("bodySize", .number("0")),
            ]
            appendExtras(requestExtras, to: &v)
            return .object(v)
        }
        let url = r.url
        let parts = URLParts(absolute: url)
        // The request-target the reader derives from the URL alone.
        let impliedTarget = parts.map { r.method == "CONNECT" ? $0.authority : $0.pathAndQuery } ?? r.head.target
        var v: [(String, JSONValue)] = [
            ("method", .string(r.method)),
            ("url", .string(url)),
            ("httpVersion", .string(r.head.version.description)),
            ("cookies", .array(cookies(r.headers.values(for: "Cookie").flatMap { $0.split(separator: ";") }))),
            ("headers", headersValue(r.headers, pseudo: r.head.version.major >= 2
                ? [(":method", r.method), (":authority", r.authority), (":scheme", r.scheme), (":path", r.pathAndQuery)] : [])),
            ("queryString", .array(queryPairs(query(of: parts?.pathAndQuery ?? ""), plusIsSpace: false).map(nameValue))),
        ]
        if !r.body.isEmpty {
            let mime = r.headers["Content-Type"] ?? ""
            var pd: [(String, JSONValue)] = [("mimeType", .string(mime))]
            let (text, base64) = bodyText(r.body, headers: r.headers)
            pd.append(("text", .string(text)))
            if base64 { pd.append(("encoding", .string("base64"))) }
            if !base64, mime.lowercased().hasPrefix("application/x-www-form-urlencoded") {
                pd.append(("params", .array(queryPairs(text, plusIsSpace: true).map(nameValue))))
            }
            appendExtras(postDataExtras, to: &pd)
            v.append(("postData", .object(pd)))
        }
        v.append(("headersSize", .number("-1")))
        v.append(("bodySize", .number(String(r.body.count))))
        if r.head.target != impliedTarget { v.append(("_target", .string(r.head.target))) }
        if r.bodyTruncated { v.append(("_bodyTruncated", .bool(true))) }
        appendExtras(requestExtras, to: &v)
        return .object(v)
    }

    /// The query of a path-and-query (without `?`, up to a `#`), empty when there is none.
    static func query(of pathAndQuery: String) -> String {
        guard let q = pathAndQuery.utf8.firstIndex(of: UInt8(ascii: "?")) else { return "" }
        let rest = pathAndQuery.utf8[pathAndQuery.utf8.index(after: q)...]
        let end = rest.firstIndex(of: UInt8(ascii: "#")) ?? rest.endIndex
        return String(rest[..<end]) ?? ""
    }

    static func responseValue(_ response: HTTPResponse?, extras: inout ExtrasByPlace) -> JSONValue {
        let contentExtras = extras.take("response.content.")
        let responseExtras = extras.take("response.")
        guard let r = response else {
            var v: [(String, JSONValue)] = [
                ("status", .number("0")), ("statusText", .string("")), ("httpVersion", .string("")),
                ("cookies", .array([])), ("headers", .array([])),
                ("content", .object([("size", .number("0")), ("mimeType", .string("x-unknown"))])),
                ("redirectURL", .string("")), ("headersSize", .number("-1")), ("bodySize", .number("-1")),
            ]
            appendExtras(responseExtras, to: &v)
            return .object(v)
        }
        var content: [(String, JSONValue)] = [
            ("size", .number(String(r.body.count))),
            ("mimeType", .string(r.headers["Content-Type"] ?? "")),
        ]
        if !r.body.isEmpty {
            let (text, base64) = bodyText(r.body, headers: r.headers)
            content.append(("text", .string(text)))
            if base64 { content.append(("encoding", .string("base64"))) }
        }
        appendExtras(contentExtras, to: &content)
        let setCookies = r.headers.values(for: "Set-Cookie").compactMap { $0.split(separator: ";").first }
        var v: [(String, JSONValue)] = [
            ("status", .number(String(r.status))),
            ("statusText", .string(r.head.reason)),
            ("httpVersion", .string(r.head.version.description)),
            ("cookies", .array(cookies(setCookies))),
            ("headers", headersValue(r.headers, pseudo: r.head.version.major >= 2 ? [(":status", String(r.status))] : [])),
            ("content", .object(content)),
            ("redirectURL", .string(r.headers["Location"] ?? "")),
            ("headersSize", .number("-1")),
            ("bodySize", .number(String(r.body.count))),
        ]
        if r.bodyTruncated { v.append(("_bodyTruncated", .bool(true))) }
        appendExtras(responseExtras, to: &v)
        return .object(v)
    }

    static func timingsValue(_ t: FlowTimings, extras: [(String, String)]) -> JSONValue {
        func phase(_ d: Double?) -> JSONValue { d.map(number) ?? .number("-1") }
        var v: [(String, JSONValue)] = [
            ("blocked", phase(t.blocked)), ("dns", phase(t.dns)), ("connect", phase(t.connect)), ("ssl", phase(t.ssl)),
            ("send", phase(t.send)), ("wait", phase(t.wait)), ("receive", phase(t.receive)),
        ]
        appendExtras(extras, to: &v)
        return .object(v)
    }

    /// The headers, after the pseudo-headers of an HTTP/2 or HTTP/3 message, first as Chrome lists
    /// them (the reader drops pseudo-headers: the URL, method and status say the same).
    static func headersValue(_ headers: HTTPHeaders, pseudo: [(String, String)] = []) -> JSONValue {
        .array(pseudo.map(nameValue) + headers.map { nameValue(($0.name, $0.value)) })
    }

    static func nameValue(_ pair: (String, String)) -> JSONValue {
        .object([("name", .string(pair.0)), ("value", .string(pair.1))])
    }

    /// `name=value` pairs (attributes after the first `;` of Set-Cookie already removed by the caller).
    static func cookies<S: StringProtocol>(_ parts: [S]) -> [JSONValue] {
        parts.compactMap { part in
            let p = String(part).trimmingSpaces
            guard !p.isEmpty else { return nil }
            guard let eq = p.firstIndex(of: "=") else { return nameValue((p, "")) }
            return nameValue((String(p[..<eq]), String(p[p.index(after: eq)...])))
        }
    }

    /// Pairs of a query string or form body, percent-decoded when that gives UTF-8 (else kept raw).
    static func queryPairs(_ q: String, plusIsSpace: Bool) -> [(String, String)] {
        guard !q.isEmpty else { return [] }
        return q.split(separator: "&", omittingEmptySubsequences: true).map { item in
            let parts = item.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let name = percentDecoded(String(parts[0]), plusIsSpace: plusIsSpace)
            let value = parts.count > 1 ? percentDecoded(String(parts[1]), plusIsSpace: plusIsSpace) : ""
            return (name, value)
        }
    }

    static func percentDecoded(_ s: String, plusIsSpace: Bool) -> String {
        let b = Array(s.utf8)
        var out: [UInt8] = []
        out.reserveCapacity(b.count)
        var i = 0
        while i < b.count {
            if b[i] == UInt8(ascii: "%"), i + 2 < b.count, let h = hexNibble(b[i + 1]), let l = hexNibble(b[i + 2]) {
                out.append(h << 4 | l)
                i += 3
            } else {
                out.append(plusIsSpace && b[i] == UInt8(ascii: "+") ? 0x20 : b[i])
                i += 1
            }
        }
        return String(validating: out, as: UTF8.self) ?? s
    }

    /// The body as HAR text, and whether it is base64.
    static func bodyText(_ body: [UInt8], headers: HTTPHeaders) -> (String, Bool) {
        let encoded = headers["Content-Encoding"].map { !$0.trimmingSpaces.isEmpty && !asciiCaseInsensitiveEquals($0.trimmingSpaces, "identity") } ?? false
        let hasControl = body.contains { ($0 < 0x20 && $0 != 0x09 && $0 != 0x0A && $0 != 0x0D) || $0 == 0x7F }
        if !encoded, !hasControl, let text = String(validating: body, as: UTF8.self) { return (text, false) }
        return (Data(body).base64EncodedString(), true)
    }

    static func number(_ d: Double) -> JSONValue {
        guard d.isFinite else { return .number("-1") }
        if d == d.rounded(), abs(d) < 1e15 { return .number(String(Int(d))) }
        return .number("\(d)")
    }

    static func appendExtras(_ extras: [(String, String)], to members: inout [(String, JSONValue)]) {
        for (key, text) in extras where !members.contains(where: { $0.0 == key }) {
            let value = (try? JSONParser.har.parse(Array(text.utf8))) ?? .string(text)
            members.append((key, value))
        }
    }
}

/// `Flow.extras` split by where they go back in the entry (`request.postData._x` → postData `_x`).
struct ExtrasByPlace {
    private var remaining: [(String, String)]

    init(_ extras: [String: String]) {
        remaining = extras.filter { !HAROriginals.isKept($0.key) }.sorted { $0.key < $1.key }.map { ($0.key, $0.value) }
    }

    /// Takes the extras under `prefix` (names without it, with no further dot); `""` takes the entry-level rest.
    mutating func take(_ prefix: String) -> [(String, String)] {
        var taken: [(String, String)] = []
        var kept: [(String, String)] = []
        for (key, value) in remaining {
            if key.hasPrefix(prefix) {
                let name = String(key.dropFirst(prefix.count))
                if !name.contains(".") { taken.append((name, value)); continue }
            }
            kept.append((key, value))
        }
        remaining = kept
        return taken
    }
}

import Foundation
import MouchardWire

/// Reads a HAR 1.2 file (Chrome, Firefox, mitmproxy, Charles, Mouchard's own export) into flows.
///
/// Decisions, so every consumer knows what it gets:
/// - Flows get ids 1...n in file order, `source: .har`, transport from the URL scheme
///   (`https`/`wss` → `.https`, else `.http`) unless Mouchard's `_transport` says otherwise.
/// - The entry's `request.url` is the truth. The request-target is the URL's path and query
///   byte for byte (never re-encoded) and `fallbackAuthority` is the URL's authority. When a Host
///   header disagrees with the URL, the target becomes the absolute URL itself, so
///   `HTTPRequest.url` still reproduces the HAR's URL (modulo scheme/host case and default port).
/// - HTTP/2 pseudo-headers (`:authority`, `:method`, `:path`, `:scheme`, `:status`) that Chrome
///   lists are dropped: the URL, method and status already say the same, and keeping `:path`
///   would show every query value twice to the inspector. Other headers keep order, case and duplicates.
/// - Request body: `postData.text` (base64-decoded when `postData.encoding` is `base64`); only when
///   `text` is absent, `postData.params` are encoded as `application/x-www-form-urlencoded`.
///   `queryString` and `cookies` are ignored on read (the URL and the Cookie header are the truth).
/// - Response body: `content.text` (base64-decoded when `encoding` is `base64`). Browsers store
///   the body after content decoding even when `Content-Encoding: gzip` is listed; it is kept as stored.
///   A response with status 0, no headers and no body (a request that never got an answer) becomes nil.
/// - Timings: -1, negative or missing → nil. `startedDateTime` missing → 1970-01-01.
/// - `serverIPAddress` (brackets stripped) + the URL's port → `server`.
/// - Fields with no home in `Flow` are kept in `Flow.extras` (JSON text) for the round trip:
///   entry members starting with `_` plus `connection`, `comment`, `pageref` under their own
///   name, and `_` members of request, response, timings, postData and content under
///   `request._x`, `response._x`, `timings._x`, `request.postData._x`, `response.content._x`.
///   Mouchard's own fields (`_flowId`, `_transport`, `_error`, `_tls`, `_noRequest`, `_serverPort`,
///   `_clientAddress`, `_clientPort`, `request._target`, `_bodyTruncated`) and `_webSocketMessages` (as Chrome writes
///   it) are read back into the flow (see `HARWriter`).
public enum HARReader {
    /// Parses a HAR file. Throws `HARError` naming the JSON path (or byte offset) of the first problem.
    public static func read(_ data: Data) throws(HARError) -> [Flow] {
        try read(bytes: [UInt8](data))
    }

    public static func read(bytes: [UInt8]) throws(HARError) -> [Flow] {
        var flows: [Flow] = []
        try forEachEntry(bytes) { (k, e) throws(HARError) in flows.append(try flow(e, id: k + 1)) }
        return flows
    }

    /// Like `read`, but a malformed entry is skipped and reported instead of failing the file.
    /// Flow ids stay the entry positions (1-based), so a skipped entry leaves a gap.
    /// Throws only when the document itself is unusable (invalid JSON, no `log.entries`).
    public static func readSkippingBadEntries(_ data: Data) throws(HARError) -> (flows: [Flow], skipped: [HARError]) {
        var flows: [Flow] = []
        var skipped: [HARError] = []
        try forEachEntry([UInt8](data)) { (k, e) throws(HARError) in
            do throws(HARError) {
                flows.append(try flow(e, id: k + 1))
            } catch {
                skipped.append(error)
            }
        }
        return (flows, skipped)
    }

    /// What `import` keeps of a HAR file: its flows with the originals of the fields `HARWriter`
    /// would not reproduce (`HAROriginals`), the entries that could not be read (kept verbatim,
    /// so that `export` writes them back where they were), and the members of `log` other than
    /// `entries` (`pages`, `comment`, `browser`...).
    public struct Document: Sendable {
        public var flows: [Flow] = []
        /// Why each unreadable entry was skipped.
        public var skipped: [HARError] = []
        /// Unreadable entries: their index in the file and their compact JSON text.
        public var unread: [(index: Int, json: String)] = []
        /// `log` members other than `version`, `creator` and `entries`: name and compact JSON text.
        public var logFields: [(String, String)] = []
        public init() {}
    }

    /// Reads a HAR file for a faithful import; `strict` fails on the first unreadable entry, and
    /// so does a file none of whose entries can be read.
    public static func readDocument(_ data: Data, strict: Bool) throws(HARError) -> Document {
        let bytes = [UInt8](data)
        var doc = Document()
        try forEachEntry(bytes) { (k, e) throws(HARError) in
            do throws(HARError) {
                var f = try flow(e, id: k + 1)
                HAROriginals.record(original: e.value, written: HARWriter.entryValue(f), into: &f.extras)
                doc.flows.append(f)
            } catch {
                if strict { throw error }
                doc.skipped.append(error)
                doc.unread.append((k, String(decoding: JSONWriter.serialize(e.value, pretty: false), as: UTF8.self)))
            }
        }
        // Not one entry readable: the file is no usable HAR, whatever its shape.
        if doc.flows.isEmpty, let first = doc.skipped.first(where: { !$0.notNetwork }) { throw first }
        let start = bytes.starts(with: [0xEF, 0xBB, 0xBF]) ? 3 : 0
        let skimmer = JSONSkimmer(bytes, maxDepth: JSONParser.har.maxDepth)
        if let root = skimmer.validate(start..<bytes.count), root.kind == .object,
           let log = skimmer.members(of: root).first(where: { skimmer.string($0.key) == Array("log".utf8) })?.value,
           log.kind == .object {
            for m in skimmer.members(of: log) {
                let name = String(decoding: skimmer.string(m.key), as: UTF8.self)
                guard !["version", "creator", "entries"].contains(name),
                      let v = try? JSONParser.har.parse(bytes[m.value.start..<m.value.end]) else { continue }
                doc.logFields.append((name, String(decoding: JSONWriter.serialize(v, pretty: false), as: UTF8.self)))
            }
        }
        return doc
    }

    /// Calls `body` with each entry of `log.entries` (its index and node), building one entry's
    /// tree at a time: the document is first checked whole with a `JSONSkimmer` (the parser's
    /// grammar, nothing built), so a HAR of N bytes needs about N bytes plus its flows, not a tree
    /// several times its size. A document that is not valid JSON or has no usable `log.entries`
    /// goes through `entryNodes`, which says what is wrong and where.
    static func forEachEntry(_ bytes: [UInt8], _ body: (Int, HARNode) throws(HARError) -> Void) throws(HARError) {
        let start = bytes.starts(with: [0xEF, 0xBB, 0xBF]) ? 3 : 0
        let skimmer = JSONSkimmer(bytes, maxDepth: JSONParser.har.maxDepth)
        func firstMember(_ key: String, of object: JSONSkimmer.Span) -> JSONSkimmer.Span? {
            let wanted = Array(key.utf8)
            return skimmer.members(of: object).first { skimmer.string($0.key) == wanted }?.value
        }
        guard let root = skimmer.validate(start..<bytes.count), root.kind == .object,
              let log = firstMember("log", of: root), log.kind == .object,
              let entries = firstMember("entries", of: log), entries.kind == .array else {
            for (k, e) in try entryNodes(bytes).enumerated() { try body(k, e) }
            return
        }
        for (k, item) in skimmer.items(of: entries).enumerated() {
            let value: JSONValue
            do {
                value = try JSONParser.har.parse(bytes[item.start..<item.end])
            } catch {
                // Not expected after validation; said the same way as a document error.
                throw HARError(path: "log.entries[\(k)]", byteOffset: item.start + error.offset, message: error.message)
            }
            try body(k, HARNode(value: value, path: "log.entries[\(k)]"))
        }
    }

    /// The nodes of `log.entries`, from the whole document's tree (see `forEachEntry`).
    static func entryNodes(_ bytes: [UInt8]) throws(HARError) -> [HARNode] {
        let root: JSONValue
        do {
            root = try JSONParser.har.parse(bytes)
        } catch {
            throw HARError(path: "", byteOffset: error.offset, message: error.message)
        }
        let top = HARNode(value: root, path: "")
        try top.requireObject()
        let log = try top.required("log")
        try log.requireObject()
        return try log.required("entries").items()
    }

    /// Entry members that have a home in `Flow` or are derived from it; not copied to `extras`.
    static let ownEntryFields: Set<String> = [
        "startedDateTime", "time", "request", "response", "cache", "timings", "serverIPAddress",
        "_flowId", "_transport", "_error", "_tls", "_noRequest", "_serverPort", "_clientAddress", "_clientPort",
        HARWebSocketMessages.member,
    ]
    /// Standard entry members kept in `extras` under their own name.
    static let keptStandardFields: Set<String> = ["connection", "comment", "pageref"]

    static func flow(_ e: HARNode, id: Int) throws(HARError) -> Flow {
        try e.requireObject()
        var extras: [String: String] = [:]
        for m in try e.members() where !ownEntryFields.contains(m.key) {
            if m.key.hasPrefix("_") || keptStandardFields.contains(m.key) {
                extras[m.key] = String(decoding: JSONWriter.serialize(m.value, pretty: false), as: UTF8.self)
            }
        }

        var started = Date(timeIntervalSince1970: 0)
        if let s = e.child("startedDateTime") {
            let text = try s.string()
            guard let d = ISO8601Time.parse(text) else { throw s.fail("expected an ISO 8601 date, found \"\(text.prefix(40))\"") }
            started = d
        }

        let requestNode = try e.required("request")
        try requestNode.requireObject()
        try collectCustom(requestNode, prefix: "request.", own: ["_bodyTruncated", "_target"], into: &extras)
        let noRequest = try e.child("_noRequest")?.bool() ?? false
        var transport: FlowTransport?
        if let t = e.child("_transport") { transport = FlowTransport(rawValue: try t.string()) }

        var request: HTTPRequest?
        var urlAuthority: String?
        var urlScheme = "http"
        if !noRequest && transport != .tlsMetadata {
            let (r, authority) = try readRequest(requestNode, extras: &extras)
            request = r
            urlAuthority = authority
            urlScheme = r.scheme
        }
        if transport == nil { transport = (urlScheme == "https" || urlScheme == "wss") ? .https : .http }

        var flowError = try e.child("_error")?.string()
        var response: HTTPResponse?
        if let rs = e.child("response") {
            try rs.requireObject()
            try collectCustom(rs, prefix: "response.", own: ["_bodyTruncated", "_error"], into: &extras)
            response = try readResponse(rs, extras: &extras)
            if flowError == nil, let err = rs.child("_error") { flowError = try err.string() }
        }

        var timings = FlowTimings(started: started)
        if let t = e.child("timings") {
            try collectCustom(t, prefix: "timings.", own: [], into: &extras)
            func phase(_ name: String) throws(HARError) -> Double? {
                guard let n = t.child(name) else { return nil }
                let v = try n.double()
                return v < 0 ? nil : v
            }
            timings.blocked = try phase("blocked")
            timings.dns = try phase("dns")
            timings.connect = try phase("connect")
            timings.ssl = try phase("ssl")
            timings.send = try phase("send")
            timings.wait = try phase("wait")
            timings.receive = try phase("receive")
        }

        var server: Endpoint?
        if let ipNode = e.child("serverIPAddress") {
            var ip = try ipNode.string()
            if ip.hasPrefix("["), ip.hasSuffix("]") { ip = String(ip.dropFirst().dropLast()) }
            if !ip.isEmpty {
                var port = urlAuthority.flatMap { URLParts.port(authority: $0) } ?? (urlScheme == "https" ? 443 : 80)
                if let p = e.child("_serverPort") { port = try p.int() }
                server = Endpoint(address: ip, port: port)
            }
        }
        var client: Endpoint?
        if let a = e.child("_clientAddress") {
            client = Endpoint(address: try a.string(), port: try e.child("_clientPort")?.int() ?? 0)
        }
        var tls: TLSFacts?
        if let t = e.child("_tls") {
            try t.requireObject()
            var facts = TLSFacts()
            facts.serverName = try t.child("serverName")?.string()
            facts.version = try t.child("version")?.string()
            if let alpn = t.child("alpn") {
                var protocols: [String] = []
                for item in try alpn.items() { protocols.append(try item.string()) }
                facts.alpn = protocols
            }
            tls = facts
        }

        let messages = try e.child(HARWebSocketMessages.member).map { n throws(HARError) in try HARWebSocketMessages.read(n) } ?? []
        return Flow(id: id, source: .har, transport: transport ?? .http, request: request, response: response,
                    timings: timings, client: client, server: server, tls: tls, error: flowError, extras: extras,
                    messages: messages)
    }

    /// URL schemes browsers record in HAR files for content that never left the device.
    static let localSchemes: Set<String> = ["data", "blob", "about", "javascript", "chrome-extension", "moz-extension",
                                            "safari-extension", "chrome", "file"]

    /// The request and the authority of its URL.
    static func readRequest(_ rq: HARNode, extras: inout [String: String]) throws(HARError) -> (HTTPRequest, String) {
        let method = try rq.required("method").string()
        let urlNode = try rq.required("url")
        let url = try urlNode.string()
        if let colon = url.firstIndex(of: ":"), Self.localSchemes.contains(url[..<colon].lowercased()) {
            throw HARError(path: urlNode.path, message: "a \(url[..<colon].lowercased()): URL, no network request (\"\(url.prefix(40))\")",
                           notNetwork: true)
        }
        guard let parts = URLParts(absolute: url), !parts.authority.isEmpty else {
            throw urlNode.fail("expected an absolute URL (scheme://host/path), found \"\(url.prefix(80))\"")
        }
        let version = try httpVersion(rq.child("httpVersion")?.string())
        let headers = try readHeaders(rq.child("headers"))
        var body: [UInt8] = []
        if let pd = rq.child("postData") {
            try pd.requireObject()
            try collectCustom(pd, prefix: "request.postData.", own: [], into: &extras)
            if let textNode = pd.child("text") {
                body = try decodeText(textNode, encoding: pd.child("encoding"))
            } else if let params = pd.child("params") {
                var pairs: [String] = []
                for p in try params.items() {
                    let name = try p.required("name").string()
                    let value = try p.child("value")?.string() ?? ""
                    pairs.append(formEncode(name) + "=" + formEncode(value))
                }
                body = Array(pairs.joined(separator: "&").utf8)
            }
        }
        let target = method == "CONNECT" ? parts.authority : parts.pathAndQuery
        var request = HTTPRequest(head: HTTPRequestHead(method: method, target: target, version: version, headers: headers),
                                  scheme: parts.scheme, fallbackAuthority: parts.authority, body: body,
                                  bodyTruncated: try rq.child("_bodyTruncated")?.bool() ?? false)
        let shownAuthority = URLParts.droppingDefaultPort(authority: parts.authority, scheme: parts.scheme)
        let expected = "\(parts.scheme)://\(shownAuthority)\(parts.pathAndQuery)"
        // `request.url` takes the authority from the Host header first (the target is origin-form
        // here); compared without building the URL, which is costly on large files.
        let host = headers["Host"].flatMap { $0.isEmpty ? nil : $0 }
        if method != "CONNECT", let host, URLParts.droppingDefaultPort(authority: host, scheme: parts.scheme) != shownAuthority {
            // A Host header that disagrees with the URL: the URL wins (absolute-form target).
            request.head.target = url
        }
        if let t = rq.child("_target") {
            // Mouchard's exact request-target, used when it still gives the entry's URL.
            var exact = request
            exact.head.target = try t.string()
            if exact.url == expected { request = exact }
        }
        return (request, parts.authority)
    }

    static func readResponse(_ rs: HARNode, extras: inout [String: String]) throws(HARError) -> HTTPResponse? {
        let status = try rs.child("status")?.int() ?? 0
        let reason = try rs.child("statusText")?.string() ?? ""
        let version = try httpVersion(rs.child("httpVersion")?.string())
        let headers = try readHeaders(rs.child("headers"))
        var body: [UInt8] = []
        if let content = rs.child("content") {
            try content.requireObject()
            try collectCustom(content, prefix: "response.content.", own: [], into: &extras)
            if let textNode = content.child("text") {
                body = try decodeText(textNode, encoding: content.child("encoding"))
            }
        }
        if status == 0, headers.isEmpty, body.isEmpty { return nil }
        return HTTPResponse(head: HTTPResponseHead(version: version, status: status, reason: reason, headers: headers),
                            body: body, bodyTruncated: try rs.child("_bodyTruncated")?.bool() ?? false)
    }

    static func readHeaders(_ node: HARNode?) throws(HARError) -> HTTPHeaders {
        guard let node else { return [] }
        var headers = HTTPHeaders()
        for item in try node.items() {
            try item.requireObject()
            let name = try item.required("name").string()
            let value = try item.child("value")?.string() ?? ""
            if name.hasPrefix(":") { continue }
            headers.add(name: name, value: value)
        }
        return headers
    }

    /// `text` as bytes: UTF-8, or base64-decoded when `encoding` says `base64`.
    static func decodeText(_ text: HARNode, encoding: HARNode?) throws(HARError) -> [UInt8] {
        let s = try text.string()
        guard let enc = try encoding?.string(), asciiCaseInsensitiveEquals(enc, "base64") else { return Array(s.utf8) }
        guard let bytes = decodeBase64(s) else { throw text.fail("invalid base64") }
        return bytes
    }

    /// Standard base64, whitespace ignored, padding optional.
    static func decodeBase64(_ s: String) -> [UInt8]? {
        var clean = s.filter { !$0.isWhitespace }
        let r = clean.utf8.count % 4
        if r == 1 { return nil }
        if r > 0 { clean += String(repeating: "=", count: 4 - r) }
        guard let d = Data(base64Encoded: clean) else { return nil }
        return [UInt8](d)
    }

    /// `HTTP/1.1`, `http/2.0`, `h2`, `HTTP/3`... → a version; empty or unknown → HTTP/1.1.
    static func httpVersion(_ text: String?) -> HTTPVersion {
        guard var t = text?.trimmingSpaces.lowercased(), !t.isEmpty else { return .http11 }
        if t.hasPrefix("http/") { t.removeFirst(5) } else if t.hasPrefix("h") { t.removeFirst() }
        let parts = t.split(separator: ".", maxSplits: 1)
        guard let major = parts.first.flatMap({ Int($0) }), (0...9).contains(major) else { return .http11 }
        let minor = parts.count > 1 ? Int(parts[1]) ?? 0 : 0
        return HTTPVersion(major: major, minor: minor)
    }

    /// Copies `_custom` members of `node` into `extras` under `prefix`, except the ones in `own`.
    static func collectCustom(_ node: HARNode, prefix: String, own: Set<String>,
                              into extras: inout [String: String]) throws(HARError) {
        for m in try node.members() where m.key.hasPrefix("_") && !own.contains(m.key) {
            extras[prefix + m.key] = String(decoding: JSONWriter.serialize(m.value, pretty: false), as: UTF8.self)
        }
    }

    /// `application/x-www-form-urlencoded` encoding: unreserved bytes kept, space → `+`, the rest `%XX`.
    static func formEncode(_ s: String) -> String {
        var out = ""
        for b in s.utf8 {
            switch b {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                 UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"),
                 UInt8(ascii: "~"), UInt8(ascii: "*"):
                out.unicodeScalars.append(Unicode.Scalar(b))
            case 0x20: out += "+"
            default:
                let hex = Array("0123456789ABCDEF".unicodeScalars)
                out.unicodeScalars.append("%")
                out.unicodeScalars.append(hex[Int(b >> 4)])
                out.unicodeScalars.append(hex[Int(b & 0xF)])
            }
        }
        return out
    }
}

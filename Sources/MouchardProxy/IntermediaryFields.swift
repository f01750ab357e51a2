import MouchardWire

/// What RFC 9110 asks of an intermediary beyond removing hop-by-hop fields: `Via` on every message
/// it forwards (§7.6.3), `Max-Forwards` for TRACE and OPTIONS (§7.6.2), the asterisk form of a
/// server-wide OPTIONS (RFC 9112 §3.2.4) and one `Content-Length` where identical ones were repeated
/// (RFC 9110 §8.6). Pure functions of heads, used by `ForwardProxyMachine`.
enum IntermediaryFields {
    /// The methods whose `Max-Forwards` a proxy must honour.
    static let maxForwardsMethods: Set<String> = ["TRACE", "OPTIONS"]

    /// Request fields left out of a TRACE echo (RFC 9110 §9.3.8: likely to hold credentials).
    static let sensitiveTraceFields = ["Authorization", "Proxy-Authorization", "Cookie"]

    /// The methods this proxy forwards, listed in `Allow` when it answers OPTIONS itself.
    static let allowedMethods = "GET, HEAD, POST, PUT, DELETE, CONNECT, OPTIONS, TRACE, PATCH"

    /// `Via` element for a message received with `version`: `1.1 mouchard`, `1.0 mouchard`.
    static func viaElement(received version: HTTPVersion, pseudonym: String) -> String {
        version.minor == 0 && version.major == 1 ? "1.0 \(pseudonym)" : "\(version.major).\(version.minor) \(pseudonym)"
    }

    /// True when one of the `Via` elements was added by a proxy named `pseudonym` (a forwarding loop).
    static func viaNames(_ headers: HTTPHeaders, pseudonym: String) -> Bool {
        for value in headers.values(for: "Via") {
            for element in value.split(separator: ",") {
                // received-protocol RWS received-by [ RWS comment ]
                let words = element.split(whereSeparator: { $0 == " " || $0 == "\t" })
                if words.count >= 2, words[1].lowercased() == pseudonym.lowercased() { return true }
            }
        }
        return false
    }

    /// The `Max-Forwards` of a TRACE or OPTIONS request (nil: another method, absent or not a number).
    static func maxForwards(_ head: HTTPRequestHead) -> Int? {
        guard maxForwardsMethods.contains(head.method) else { return nil }
        let values = head.headers.values(for: "Max-Forwards")
        guard values.count == 1 else { return nil }
        let text = values[0].trimmingSpaces()
        guard !text.isEmpty, text.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) else { return nil }
        return Int(text.prefix(9))
    }

    /// The answer of the proxy as the final recipient of a TRACE or OPTIONS whose `Max-Forwards` is 0.
    static func finalRecipientResponse(_ head: HTTPRequestHead, pseudonym: String) -> LocalResponse {
        let via = viaElement(received: head.version, pseudonym: pseudonym)
        if head.method == "TRACE" {
            var echoed = head
            for name in sensitiveTraceFields { echoed.headers.remove(name: name) }
            return LocalResponse(status: 200, reason: "OK", contentType: "message/http", body: echoed.serialized,
                                 extraHeaders: [("Via", via)])
        }
        return LocalResponse(status: 200, reason: "OK", body: [], extraHeaders: [("Allow", allowedMethods), ("Via", via)])
    }

    /// True for an absolute-form target with an empty path and no query (`http://host:port`): an
    /// OPTIONS for the whole server, forwarded as `OPTIONS *`.
    static func isServerWide(_ target: String) -> Bool {
        guard let start = target.range(of: "://") else { return false }
        return !target[start.upperBound...].contains(where: { $0 == "/" || $0 == "?" })
    }

    /// Replaces repeated identical `Content-Length` values (the parser rejected differing ones)
    /// with one field, so the next hop sees a single valid value.
    static func collapseContentLength(_ headers: inout HTTPHeaders, length: Int) {
        let values = headers.values(for: "Content-Length")
        guard values.count > 1 || values.contains(where: { $0.contains(",") }) else { return }
        headers.replaceOrAdd(name: "Content-Length", value: String(length))
    }
}

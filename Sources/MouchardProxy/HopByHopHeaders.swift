import MouchardWire

/// RFC 9110 §7.6.1: header fields that concern one connection only and must not be forwarded.
public enum HopByHopHeaders {
    /// Always removed, whatever `Connection` says. `Transfer-Encoding` is removed too because the
    /// proxy re-frames every body it forwards; `Proxy-Authorization`/`Proxy-Authenticate` concern us only.
    /// `Trailer` is end-to-end (RFC 9110 §6.6.2) and stays: the trailers it announces are forwarded.
    public static let fixed = [
        "Connection", "Proxy-Connection", "Keep-Alive", "TE", "Transfer-Encoding", "Upgrade",
        "Proxy-Authorization", "Proxy-Authenticate",
    ]

    /// The tokens listed in every `Connection` and `Proxy-Connection` field, lower-cased.
    public static func connectionTokens(_ headers: HTTPHeaders) -> [String] {
        var tokens: [String] = []
        for field in headers.fields
        where asciiCaseInsensitiveEquals(field.name, "Connection") || asciiCaseInsensitiveEquals(field.name, "Proxy-Connection") {
            for part in field.value.split(separator: ",") {
                let t = part.trimmingSpaces().lowercased()
                if !t.isEmpty { tokens.append(t) }
            }
        }
        return tokens
    }

    /// Removes the fixed hop-by-hop fields and those named by `Connection`.
    public static func strip(_ headers: inout HTTPHeaders) {
        let listed = connectionTokens(headers)
        for name in listed where name != "close" && name != "keep-alive" { headers.remove(name: name) }
        for name in fixed { headers.remove(name: name) }
    }

    /// Whether the sender of a message with these headers and version wants the connection kept open.
    public static func wantsKeepAlive(_ headers: HTTPHeaders, version: HTTPVersion) -> Bool {
        let tokens = connectionTokens(headers)
        if tokens.contains("close") { return false }
        if version.major == 1 && version.minor == 0 { return tokens.contains("keep-alive") }
        return version.major >= 1
    }
}

extension StringProtocol {
    /// The text without leading and trailing spaces and tabs.
    func trimmingSpaces() -> String {
        var s = Substring(self)
        while let f = s.first, f == " " || f == "\t" { s.removeFirst() }
        while let l = s.last, l == " " || l == "\t" { s.removeLast() }
        return String(s)
    }
}

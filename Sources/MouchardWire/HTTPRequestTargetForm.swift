/// The four forms of request-target (RFC 9112 §3.2): which one a request uses tells a proxy
/// whether it was addressed as a proxy (absolute-form), as a tunnel (authority-form, CONNECT),
/// as an origin server (origin-form) or server-wide (asterisk-form, OPTIONS).
public enum HTTPRequestTargetForm: Sendable, Hashable {
    /// `/path?query`
    case origin
    /// `http://host:port/path?query`
    case absolute
    /// `host:port` (CONNECT only)
    case authority
    /// `*` (OPTIONS only)
    case asterisk

    /// The form of `target` for a request with `method`, or nil when the target fits no form the
    /// method allows (CONNECT needs `host:port`; `*` needs OPTIONS; others need `/...` or `scheme:...`).
    public init?<C: BidirectionalCollection<UInt8>>(target: C, method: String) {
        guard let first = target.first else { return nil }
        if method == "CONNECT" {
            // uri-host ":" port, with a non-empty host and a decimal port; no path, query or userinfo.
            guard let colon = target.lastIndex(of: 0x3A), colon != target.startIndex else { return nil }
            let port = target[target.index(after: colon)...]
            guard !port.isEmpty, port.count <= 5, port.allSatisfy(HTTPByteClass.isDigit) else { return nil }
            guard !target.contains(where: { $0 == 0x2F || $0 == 0x3F || $0 == 0x23 || $0 == 0x40 }) else { return nil }
            self = .authority
            return
        }
        if first == 0x2F {
            self = .origin
            return
        }
        if target.count == 1, first == 0x2A {
            guard method == "OPTIONS" else { return nil }
            self = .asterisk
            return
        }
        // absolute-URI = scheme ":" hier-part; scheme = ALPHA *( ALPHA / DIGIT / "+" / "-" / "." )
        guard first &- 0x41 < 26 || first &- 0x61 < 26 else { return nil }
        for b in target.dropFirst() {
            if b == 0x3A { self = .absolute; return }
            let ok = b &- 0x41 < 26 || b &- 0x61 < 26 || HTTPByteClass.isDigit(b) || b == 0x2B || b == 0x2D || b == 0x2E
            if !ok { return nil }
        }
        return nil
    }
}

extension HTTPRequestHead {
    /// The form of this request's target, or nil if it fits none (only for heads not built by the parser).
    public var targetForm: HTTPRequestTargetForm? { HTTPRequestTargetForm(target: target.utf8, method: method) }
}

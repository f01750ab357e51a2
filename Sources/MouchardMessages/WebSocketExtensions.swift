/// What a 101's `Sec-WebSocket-Extensions` agreed on (RFC 7692 §7.1): `permessage-deflate` and its
/// parameters, or an extension Mouchard cannot read frames through.
public struct WebSocketExtensions: Sendable, Equatable {
    /// `permessage-deflate` was accepted: RSV1 marks compressed messages.
    public var deflate = false
    /// The server resets its compressor for every message it sends.
    public var serverNoContextTakeover = false
    /// The client resets its compressor for every message it sends.
    public var clientNoContextTakeover = false
    /// Extensions other than `permessage-deflate` (their frames cannot be read).
    public var unknown: [String] = []

    public init() {}

    /// Reads the response's header value (nil or empty: no extension).
    public init(header: String?) {
        guard let header else { return }
        for offer in header.split(separator: ",") {
            let params = offer.split(separator: ";").map { $0.trimmed(of: " \t").lowercased() }
            guard let name = params.first, !name.isEmpty else { continue }
            guard name == "permessage-deflate", !deflate else {
                unknown.append(name)
                continue
            }
            deflate = true
            for p in params.dropFirst() {
                let key = p.split(separator: "=", maxSplits: 1).first.map { String($0).trimmed(of: " \t") } ?? ""
                if key == "server_no_context_takeover" { serverNoContextTakeover = true }
                if key == "client_no_context_takeover" { clientNoContextTakeover = true }
            }
        }
    }

    /// The frames can be read: no extension, or `permessage-deflate` alone.
    public var isReadable: Bool { unknown.isEmpty }
}

extension StringProtocol {
    /// The text without `characters` at either end.
    func trimmed(of characters: String) -> String {
        var s = Substring(self)
        while let f = s.first, characters.contains(f) { s = s.dropFirst() }
        while let l = s.last, characters.contains(l) { s = s.dropLast() }
        return String(s)
    }
}

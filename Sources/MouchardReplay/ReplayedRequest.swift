import MouchardFlow
import MouchardProxy
import MouchardWire

/// The bytes a recorded request is sent as: method, origin-form target and headers as recorded,
/// in order, with the body bytes. Only what concerns the recorded connection changes: hop-by-hop
/// fields go (`Connection`, `Keep-Alive`, `Proxy-*`, `TE`, `Trailer`, `Transfer-Encoding`,
/// `Upgrade`), HTTP/2 pseudo-fields (`:authority`...) go, and `Content-Length` is recomputed for
/// the body (which is sent whole, never chunked). A request without `Host` gets the recorded authority.
public enum ReplayedRequest {
    public struct Refusal: Error, Sendable, CustomStringConvertible {
        public var description: String
    }

    public static func bytes(for request: HTTPRequest, flow: Int, bodyLimit: Int) throws(Refusal) -> [UInt8] {
        if request.bodyTruncated {
            throw Refusal(description: "flow \(flow) (\(request.method) \(request.url)): its request body was cut at capture; " +
                                       "it cannot be sent as recorded (leave it out with --flows)")
        }
        if request.body.count > bodyLimit {
            throw Refusal(description: "flow \(flow) (\(request.method) \(request.url)): request body of \(request.body.count) bytes " +
                                       "is larger than the limit (\(bodyLimit) bytes, --max-body)")
        }
        if request.method == "CONNECT" {
            throw Refusal(description: "flow \(flow): a CONNECT request cannot be replayed on its own")
        }
        var head = request.head
        head.target = request.pathAndQuery
        head.version = .http11
        var hadLength = false
        var fields: [HTTPField] = []
        let listed = Set(HopByHopHeaders.connectionTokens(head.headers))
        for f in head.headers.fields {
            let lower = f.name.lowercased()
            if lower.hasPrefix(":") { continue }
            if lower == "content-length" {
                // Recomputed in place (the field keeps its position and spelling).
                if !hadLength { fields.append(HTTPField(name: f.name, value: String(request.body.count))) }
                hadLength = true
                continue
            }
            if HopByHopHeaders.fixed.contains(where: { asciiCaseInsensitiveEquals($0, f.name) }) || listed.contains(lower) { continue }
            fields.append(f)
        }
        if !fields.contains(where: { asciiCaseInsensitiveEquals($0.name, "Host") }) {
            fields.insert(HTTPField(name: "Host", value: request.authority), at: 0)
        }
        if !hadLength, !request.body.isEmpty || request.method == "POST" || request.method == "PUT" || request.method == "PATCH" {
            fields.append(HTTPField(name: "Content-Length", value: String(request.body.count)))
        }
        head.headers = HTTPHeaders(fields)
        return head.serialized + request.body
    }
}

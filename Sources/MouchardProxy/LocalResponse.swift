import MouchardWire

/// A response the proxy writes itself (errors, the onboarding page): status, a few headers, a short body.
public struct LocalResponse: Sendable, Hashable {
    public var status: Int
    public var reason: String
    public var headers: HTTPHeaders
    public var body: [UInt8]

    public init(status: Int, reason: String, contentType: String = "text/plain; charset=utf-8", body: [UInt8],
                extraHeaders: HTTPHeaders = []) {
        self.status = status
        self.reason = reason
        var h: HTTPHeaders = [("Content-Type", contentType), ("Content-Length", String(body.count))]
        h.fields.append(contentsOf: extraHeaders.fields)
        self.headers = h
        self.body = body
    }

    /// A plain-text error response whose body names the cause, e.g. 502 for a refused connection.
    public static func error(status: Int, message: String) -> LocalResponse {
        LocalResponse(status: status, reason: reasonPhrase(status), body: Array("mouchard: \(message)\n".utf8))
    }

    public var head: HTTPResponseHead {
        HTTPResponseHead(version: .http11, status: status, reason: reason, headers: headers)
    }

    static func reasonPhrase(_ status: Int) -> String {
        switch status {
        case 200: return "OK"
        case 400: return "Bad Request"
        case 403: return "Forbidden"
        case 404: return "Not Found"
        case 405: return "Method Not Allowed"
        case 413: return "Content Too Large"
        case 431: return "Request Header Fields Too Large"
        case 500: return "Internal Server Error"
        case 501: return "Not Implemented"
        case 502: return "Bad Gateway"
        case 504: return "Gateway Timeout"
        case 505: return "HTTP Version Not Supported"
        case 508: return "Loop Detected"
        default: return "Error"
        }
    }
}

import Foundation
import MouchardFlow

/// What a listing shows of a flow, read without its bodies.
public struct FlowSummary: Sendable, Hashable {
    public var id: Int
    public var started: Date
    public var transport: FlowTransport
    /// Nil for a flow without a request (tls-metadata).
    public var method: String?
    public var url: String?
    /// Nil when no response was seen.
    public var status: Int?
    public var requestBodySize: Int
    public var responseBodySize: Int
    public var host: String
    /// TLS SNI, when seen.
    public var serverName: String?
    public var error: String?
    /// What its messages speak (WebSocket, gRPC, gRPC-Web, SSE), nil for a plain exchange.
    public var `protocol`: FlowStreams.Kind?
    /// Messages each side sent (WebSocket messages, gRPC messages, SSE events).
    public var clientMessages = 0
    public var serverMessages = 0
    /// The request's HTTP version as stored (`1.1`, `2.0`), nil without a request.
    public var httpVersion: String?
    /// The client's HTTP/2 stream id (`_streamId`), nil for HTTP/1.
    public var streamID: Int?

    /// The select list of a summary (the same SQL in SQLite and PostgreSQL).
    public static let selectList = """
        id, started, transport, req_method, url, resp_status, length(req_body), length(resp_body), host, \
        tls_server_name, error, protocol, client_messages, server_messages, req_version, \
        CASE WHEN extras LIKE '%"_streamId"%' THEN extras END
        """

    /// The protocol as people name it: `HTTP/1.1`, `HTTP/2` (not `HTTP/2.0`), `HTTP/3`.
    public var httpVersionName: String? {
        guard let v = httpVersion else { return nil }
        let number = v.hasPrefix("HTTP/") ? String(v.dropFirst(5)) : v
        return "HTTP/" + (number.hasSuffix(".0") && !number.hasPrefix("1") ? String(number.dropLast(2)) : number)
    }

    /// Reads a row of `selectList`.
    public init(_ s: some StoreRow) {
        self.init(id: s.int(0), started: Date(timeIntervalSinceReferenceDate: s.double(1)),
                  transport: FlowTransport(rawValue: s.text(2)) ?? .http, method: s.optionalText(3),
                  url: s.optionalText(4), status: s.optionalInt(5), requestBodySize: s.int(6),
                  responseBodySize: s.int(7), host: s.text(8), serverName: s.optionalText(9), error: s.optionalText(10),
                  protocol: s.optionalText(11).flatMap { FlowStreams.Kind(rawValue: $0) }, clientMessages: s.int(12),
                  serverMessages: s.int(13))
        httpVersion = s.optionalText(14)
        // Only the extras of HTTP/2 flows are read (the SQL keeps those naming a stream).
        streamID = s.optionalText(15).flatMap { StoreJSON.decode([String: String].self, $0)?["_streamId"] }.flatMap { Int($0) }
    }

    public init(id: Int, started: Date, transport: FlowTransport, method: String?, url: String?, status: Int?,
                requestBodySize: Int, responseBodySize: Int, host: String, serverName: String?, error: String?,
                protocol: FlowStreams.Kind? = nil, clientMessages: Int = 0, serverMessages: Int = 0) {
        self.id = id
        self.started = started
        self.transport = transport
        self.method = method
        self.url = url
        self.status = status
        self.requestBodySize = requestBodySize
        self.responseBodySize = responseBodySize
        self.host = host
        self.serverName = serverName
        self.error = error
        self.protocol = `protocol`
        self.clientMessages = clientMessages
        self.serverMessages = serverMessages
    }
}

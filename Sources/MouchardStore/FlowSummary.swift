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

    /// The select list of a summary (the same SQL in SQLite and PostgreSQL).
    public static let selectList = """
        id, started, transport, req_method, url, resp_status, length(req_body), length(resp_body), host, \
        tls_server_name, error, protocol, client_messages, server_messages
        """

    /// Reads a row of `selectList`.
    public init(_ s: some StoreRow) {
        self.init(id: s.int(0), started: Date(timeIntervalSinceReferenceDate: s.double(1)),
                  transport: FlowTransport(rawValue: s.text(2)) ?? .http, method: s.optionalText(3),
                  url: s.optionalText(4), status: s.optionalInt(5), requestBodySize: s.int(6),
                  responseBodySize: s.int(7), host: s.text(8), serverName: s.optionalText(9), error: s.optionalText(10),
                  protocol: s.optionalText(11).flatMap { FlowStreams.Kind(rawValue: $0) }, clientMessages: s.int(12),
                  serverMessages: s.int(13))
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

import Foundation
import MouchardWire

/// One exchange seen leaving the device: what every source (proxy, sniffer, HAR import)
/// produces and every consumer (inspector, store, reports, replay) reads.
///
/// A `tls-metadata` flow has no request: only the TLS facts (SNI, ALPN) and endpoints were seen.
public struct Flow: Sendable, Hashable, Identifiable {
    /// Stable within its session: 1, 2, 3... in the order flows completed or were imported.
    public var id: Int
    public var source: FlowSource
    public var transport: FlowTransport
    public var request: HTTPRequest?
    public var response: HTTPResponse?
    public var timings: FlowTimings
    public var client: Endpoint?
    public var server: Endpoint?
    public var tls: TLSFacts?
    /// Why the exchange failed (upstream refused, client rejected our certificate, gap in capture...).
    public var error: String?
    /// Extra fields kept for round trips (HAR `_custom` fields, comments), name → JSON text.
    public var extras: [String: String]
    /// Messages sent after the exchange switched protocols (WebSocket), in the order they were seen.
    public var messages: [FlowMessage]

    public init(id: Int, source: FlowSource, transport: FlowTransport, request: HTTPRequest? = nil,
                response: HTTPResponse? = nil, timings: FlowTimings = FlowTimings(started: Date(timeIntervalSince1970: 0)),
                client: Endpoint? = nil, server: Endpoint? = nil, tls: TLSFacts? = nil, error: String? = nil,
                extras: [String: String] = [:], messages: [FlowMessage] = []) {
        self.id = id
        self.source = source
        self.transport = transport
        self.request = request
        self.response = response
        self.timings = timings
        self.client = client
        self.server = server
        self.tls = tls
        self.error = error
        self.extras = extras
        self.messages = messages
    }

    /// The host the flow went to: the request's host, else the SNI, else the name a DNS answer
    /// gave the server address (`_dnsName`, set by the gateway from the answers it saw), else the
    /// server address.
    public var host: String {
        if let r = request, !r.host.isEmpty { return r.host }
        if let sni = tls?.serverName, !sni.isEmpty { return sni.lowercased() }
        if let name = dnsName { return name }
        return server?.address ?? ""
    }

    /// The `_dnsName` extra (a JSON string): the name the client resolved to the server address.
    public var dnsName: String? {
        guard let raw = extras[Flow.dnsNameKey], raw.count > 2, raw.hasPrefix("\""), raw.hasSuffix("\"") else { return nil }
        let name = String(raw.dropFirst().dropLast())
        return name.isEmpty || name.contains("\\") ? nil : name.lowercased()
    }

    public static let dnsNameKey = "_dnsName"
}

/// Where a flow was captured.
public enum FlowSource: String, Sendable, Hashable, CaseIterable, Codable {
    case proxy, transparent, pcap, har
}

/// How the flow travelled and what we could see of it.
public enum FlowTransport: String, Sendable, Hashable, CaseIterable, Codable {
    /// Cleartext HTTP on the wire.
    case http
    /// TLS that Mouchard decrypted (intercepting proxy) or that a HAR recorded decrypted.
    case https
    /// TLS that stayed encrypted: only SNI, ALPN and endpoints are known.
    case tlsMetadata = "tls-metadata"
}

/// An IP endpoint (v4 or v6 literal, or a host name when that is all a source gives).
public struct Endpoint: Sendable, Hashable, CustomStringConvertible {
    public var address: String
    public var port: Int
    public init(address: String, port: Int) { self.address = address; self.port = port }
    public var description: String { address.contains(":") ? "[\(address)]:\(port)" : "\(address):\(port)" }
}

/// What the TLS handshake told us.
public struct TLSFacts: Sendable, Hashable {
    public var serverName: String?
    public var alpn: [String]
    /// `TLSv1.3`, `TLSv1.2`...
    public var version: String?
    public init(serverName: String? = nil, alpn: [String] = [], version: String? = nil) {
        self.serverName = serverName
        self.alpn = alpn
        self.version = version
    }
}

/// When the exchange started and how long its phases took, in milliseconds; nil = unknown
/// (written as -1 in HAR).
public struct FlowTimings: Sendable, Hashable {
    public var started: Date
    public var blocked: Double?
    public var dns: Double?
    public var connect: Double?
    public var ssl: Double?
    public var send: Double?
    public var wait: Double?
    public var receive: Double?

    public init(started: Date, blocked: Double? = nil, dns: Double? = nil, connect: Double? = nil, ssl: Double? = nil,
                send: Double? = nil, wait: Double? = nil, receive: Double? = nil) {
        self.started = started
        self.blocked = blocked
        self.dns = dns
        self.connect = connect
        self.ssl = ssl
        self.send = send
        self.wait = wait
        self.receive = receive
    }

    /// Total time in ms: the sum of the known phases (HAR's `time`).
    public var total: Double {
        [blocked, dns, connect, send, wait, receive].compactMap { $0 }.filter { $0 > 0 }.reduce(0, +)
    }
}

extension Flow {
    /// The `extras` entry (HAR custom field) that marks an exchange decrypted from a packet capture
    /// with TLS keys (a key log or a pcapng secrets block), as opposed to intercepted by the proxy.
    public static let decryptedFromCaptureField = "_decryptedFromCapture"

    /// True for HTTPS exchanges Mouchard decrypted from a capture with TLS keys.
    public var isDecryptedFromCapture: Bool {
        get { extras[Flow.decryptedFromCaptureField] == "true" }
        set { extras[Flow.decryptedFromCaptureField] = newValue ? "true" : nil }
    }
}

import Foundation
import MouchardWire

/// What a session does differently when its proxy serves from recordings and answers as an origin.
extension ProxySession {
    /// First byte of a TLS handshake record.
    static let tlsHandshakeRecord: UInt8 = 0x16

    /// A TLS ClientHello sent straight to a proxy that answers as an origin (no CONNECT before it):
    /// decrypted like an intercepted tunnel whose target is the client's SNI. True when taken over.
    func startsDirectTLS(_ bytes: [UInt8]) -> Bool {
        guard !sawClientBytes else { return false }
        sawClientBytes = true
        guard let replay = shared.configuration.replay, replay.acceptsOriginRequests, shared.interceptor != nil,
              bytes.first == Self.tlsHandshakeRecord else { return false }
        tunnel = TunnelFacts(target: UpstreamTarget(host: "", port: 443, tls: true), started: Date(),
                             startedMonotonic: loop.now)
        mode = .intercepting
        let i = TunnelInterception(target: UpstreamTarget(host: "", port: 443, tls: true))
        interception = i
        i.clientBytes(bytes, session: self)
        updateReading()
        return true
    }

    /// `text` as a JSON string literal (for `Flow.extras`).
    static func jsonString(_ text: String) -> String {
        String(decoding: JSONWriter.serialize(.string(text), pretty: false), as: UTF8.self)
    }
}

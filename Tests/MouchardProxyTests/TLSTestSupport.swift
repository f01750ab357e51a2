import Foundation
import MouchardTLS

/// A fresh temporary directory (acts as MOUCHARD_HOME) for one test.
func makeTemporaryDirectory(_ label: String = "mouchard-tls") throws -> String {
    let path = NSTemporaryDirectory() + "\(label)-\(UUID().uuidString)"
    try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    return path
}

/// A CA, a minter and both contexts, with the client trusting only that CA.
struct TLSFixture {
    let directory: String
    let authority: CertificateAuthority
    let minter: LeafCertificateMinter
    let server: TLSServerContext
    let client: TLSClientContext

    init(keyLog: TLSKeyLog? = nil, clientVerification: UpstreamVerification? = nil) throws {
        directory = try makeTemporaryDirectory()
        authority = try CertificateAuthority.loadOrCreate(directory: directory)
        minter = try LeafCertificateMinter(authority: authority)
        server = try TLSServerContext(keyLog: keyLog)
        client = try TLSClientContext(verification: clientVerification ?? .only(anchorFiles: [authority.certificatePath]),
                                      keyLog: keyLog)
    }
}

/// What a pumped exchange saw on each side.
struct PumpResult {
    var serverEvents: [TLSSessionEvent] = []
    var clientEvents: [TLSSessionEvent] = []
    var serverPlaintext: [UInt8] { plaintext(serverEvents) }
    var clientPlaintext: [UInt8] { plaintext(clientEvents) }
    private func plaintext(_ events: [TLSSessionEvent]) -> [UInt8] {
        var bytes: [UInt8] = []
        for case .plaintext(let chunk) in events { bytes += chunk }
        return bytes
    }
    var serverFailure: TLSError? { serverEvents.lazy.compactMap { if case .failed(let e) = $0 { e } else { nil } }.first }
    var clientFailure: TLSError? { clientEvents.lazy.compactMap { if case .failed(let e) = $0 { e } else { nil } }.first }
}

/// Moves bytes between the two sessions until neither has output (bounded rounds). When the
/// server pauses at the ClientHello, `identity` supplies its leaf.
@discardableResult
func pump(client: TLSClientSession, server: TLSServerSession, maxRounds: Int = 20,
          identity: (TLSClientHello) throws -> TLSIdentity) rethrows -> PumpResult {
    var result = PumpResult()
    for _ in 0..<maxRounds {
        let toServer = client.pendingOutput()
        if !toServer.isEmpty {
            let events = server.feed(toServer)
            result.serverEvents += events
            for case .clientHello(let hello) in events {
                result.serverEvents += server.provideIdentity(try identity(hello))
            }
        }
        let toClient = server.pendingOutput()
        if !toClient.isEmpty { result.clientEvents += client.feed(toClient) }
        if toServer.isEmpty, toClient.isEmpty { break }
    }
    return result
}

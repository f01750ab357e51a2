import Foundation
import MouchardWire
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

/// Runs a command-line tool found in PATH (openssl, curl) and returns its exit status and
/// combined output.
func runTool(_ name: String, _ arguments: [String]) throws -> (status: Int32, output: String) {
    let search = (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin").split(separator: ":")
    guard let tool = search.map({ "\($0)/\(name)" }).first(where: { FileManager.default.isExecutableFile(atPath: $0) }) else {
        throw TLSError.file(path: name, reason: "the \(name) tool is not installed (make deps)")
    }
    let process = Process()
    process.executableURL = URL(fileURLWithPath: tool)
    process.arguments = arguments
    let pipe = Pipe()
    process.standardOutput = pipe
    process.standardError = pipe
    try process.run()
    let data = pipe.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return (process.terminationStatus, String(decoding: data, as: UTF8.self))
}

func runOpenSSL(_ arguments: [String]) throws -> (status: Int32, output: String) { try runTool("openssl", arguments) }

/// Writes bytes to a file in `directory` and returns its path.
func writeFile(_ directory: String, _ name: String, _ bytes: [UInt8]) throws -> String {
    let path = (directory as NSString).appendingPathComponent(name)
    try Data(bytes).write(to: URL(fileURLWithPath: path))
    return path
}

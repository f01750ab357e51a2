import MouchardWire

/// The TLS secrets a capture is decrypted with: key log files (`--keylog`), the pcapng Decryption
/// Secrets Blocks met while reading, and lines appended to a key log while `sniff` captures.
/// Shared by every connection of an extraction; `generation` changes whenever secrets are added,
/// so a connection waiting for its keys knows when to look again.
public final class TLSKeyStore {
    public private(set) var keyLog = NSSKeyLog()
    /// Bumped by every `add`.
    public private(set) var generation = 0
    /// TLS 1.2 master secrets by session id, learnt from decrypted handshakes: a session resumed by
    /// id in a later connection uses the same master secret even when the key log has no line for
    /// the new client random.
    private var masterSecretsBySessionID: [[UInt8]: [UInt8]] = [:]
    /// Pcapng secrets blocks read, and those of an unknown type (skipped).
    public private(set) var secretsBlocks = 0
    public private(set) var unknownSecretsBlocks = 0

    public init() {}

    public init(keyLog: NSSKeyLog) {
        self.keyLog = keyLog
    }

    public var isEmpty: Bool { keyLog.isEmpty }

    /// Adds the secrets of a parsed key log (its warnings stay with it).
    public func add(_ log: NSSKeyLog) {
        keyLog.merge(log)
        generation += 1
    }

    /// Adds bytes read from a key log that grows (the last line may be incomplete: it is finished
    /// by the next call); returns how many new secrets they gave.
    @discardableResult
    public func add(appended bytes: ArraySlice<UInt8>) -> Int {
        let before = keyLog.secretCount
        keyLog.add(bytes)
        if keyLog.secretCount != before { generation += 1 }
        return keyLog.secretCount - before
    }

    /// Adds the secrets of a pcapng Decryption Secrets Block; returns the key log's warnings.
    @discardableResult
    public func addSecretsBlock(type: UInt32, data: ArraySlice<UInt8>) -> [NSSKeyLog.Warning] {
        secretsBlocks += 1
        guard type == CaptureFileParser.tlsKeyLogSecretsType else {
            unknownSecretsBlocks += 1
            return []
        }
        let log = NSSKeyLog(text: data)
        add(log)
        return log.warnings
    }

    func secrets(clientRandom: [UInt8]) -> NSSKeyLog.Secrets? { keyLog.secrets(clientRandom: clientRandom) }

    func masterSecret(sessionID: [UInt8]) -> [UInt8]? {
        sessionID.isEmpty ? nil : masterSecretsBySessionID[sessionID]
    }

    func remember(masterSecret: [UInt8], sessionID: [UInt8]) {
        guard !sessionID.isEmpty, masterSecretsBySessionID.count < 100_000 else { return }
        masterSecretsBySessionID[sessionID] = masterSecret
    }
}

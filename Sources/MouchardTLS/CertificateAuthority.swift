import COpenSSL
import Foundation

/// Mouchard's own certificate authority: the root the auditor installs on the test phone, and
/// the signer of every leaf we mint. Created on first use in `MouchardHome.directory()` (key file
/// 0600, directory 0700), loaded on later runs. Immutable once loaded; share one per process.
public final class CertificateAuthority: @unchecked Sendable {
    /// File names inside the home directory.
    public static let certificateFileName = "mouchard-ca.pem"
    public static let keyFileName = "mouchard-ca.key"
    /// CA validity: ten years (iOS accepts long-lived roots; only leaves are capped at 397 days).
    public static let validityDays = 3650

    public let certificate: Certificate
    public let key: PrivateKey
    /// The directory, certificate and key paths it was loaded from or created in.
    public let directory: String
    public let certificatePath: String
    public let keyPath: String
    /// True when this call created the CA (first run).
    public let wasCreated: Bool

    init(certificate: Certificate, key: PrivateKey, directory: String, wasCreated: Bool) {
        self.certificate = certificate
        self.key = key
        self.directory = directory
        self.certificatePath = (directory as NSString).appendingPathComponent(Self.certificateFileName)
        self.keyPath = (directory as NSString).appendingPathComponent(Self.keyFileName)
        self.wasCreated = wasCreated
    }

    /// Loads the CA from `directory` (default `$MOUCHARD_HOME` or `~/.mouchard`), creating it
    /// there if neither file exists. A lone key or lone certificate is an error (never
    /// overwritten: the phone may trust the old CA).
    public static func loadOrCreate(directory: String = MouchardHome.directory(),
                                    algorithm: PrivateKey.Algorithm = .p256) throws(TLSError) -> CertificateAuthority {
        let certificatePath = (directory as NSString).appendingPathComponent(certificateFileName)
        let keyPath = (directory as NSString).appendingPathComponent(keyFileName)
        let manager = FileManager.default
        switch (manager.fileExists(atPath: certificatePath), manager.fileExists(atPath: keyPath)) {
        case (true, true):
            return try load(directory: directory, certificatePath: certificatePath, keyPath: keyPath)
        case (false, false):
            try PrivateFile.makeDirectory(directory)
            let key = try PrivateKey.generate(algorithm)
            let certificate = try makeRootCertificate(key: key)
            // The key is placed exclusively: if another process created the CA meanwhile, use theirs.
            guard try PrivateFile.writeNew(keyPath, try key.pem(), mode: 0o600, exclusive: true) else {
                try waitForCertificate(certificatePath)
                return try load(directory: directory, certificatePath: certificatePath, keyPath: keyPath)
            }
            try PrivateFile.writeNew(certificatePath, certificate.pem, mode: 0o644)
            return CertificateAuthority(certificate: certificate, key: key, directory: directory, wasCreated: true)
        case (true, false):
            throw .file(path: keyPath, reason: "missing while \(certificatePath) exists; restore it or remove both to make a new CA")
        case (false, true):
            // A key written seconds ago: another process is between writing the key and the certificate.
            let age = (try? manager.attributesOfItem(atPath: keyPath)[.modificationDate] as? Date).map { -$0.timeIntervalSinceNow }
            guard let age, age < 10 else {
                throw .file(path: certificatePath, reason: "missing while \(keyPath) exists; restore it or remove both to make a new CA")
            }
            try waitForCertificate(certificatePath)
            return try load(directory: directory, certificatePath: certificatePath, keyPath: keyPath)
        }
    }

    private static func load(directory: String, certificatePath: String, keyPath: String) throws(TLSError) -> CertificateAuthority {
        let certificate = try Certificate(pem: try read(certificatePath))
        let key = try PrivateKey(pem: try read(keyPath))
        guard certificate.matches(key) else {
            throw .file(path: keyPath, reason: "this key does not belong to \(certificatePath)")
        }
        return CertificateAuthority(certificate: certificate, key: key, directory: directory, wasCreated: false)
    }

    /// Waits up to 2 s for a certificate another process is about to write.
    private static func waitForCertificate(_ certificatePath: String) throws(TLSError) {
        for _ in 0..<40 {
            if FileManager.default.fileExists(atPath: certificatePath) { return }
            usleep(50_000)
        }
        throw .file(path: certificatePath, reason: "missing while the CA key exists; restore it or remove both to make a new CA")
    }

    /// The self-signed root: CA:TRUE (critical), keyCertSign + cRLSign (critical), SHA-256,
    /// CN "Mouchard CA (hostname, date)" so several auditors' CAs can be told apart on a phone.
    static func makeRootCertificate(key: PrivateKey) throws(TLSError) -> Certificate {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "yyyy-MM-dd"
        let host = String(ProcessInfo.processInfo.hostName.prefix(24))
        let builder = CertificateBuilder(
            subject: [("O", "Mouchard"), ("OU", "privacy audit interception CA"),
                      ("CN", "Mouchard CA (\(host), \(formatter.string(from: Date())))")],
            notBeforeOffset: -3600,
            notAfterOffset: validityDays * 86400,
            extensions: [
                (NID_basic_constraints, "critical,CA:TRUE,pathlen:0"),
                (NID_key_usage, "critical,keyCertSign,cRLSign,digitalSignature"),
                (NID_subject_key_identifier, "hash"),
            ])
        return try builder.sign(publicKeyOf: key, issuer: nil, signer: key)
    }

    /// The permission bits of the key file (0o600 expected), nil if it cannot be read.
    public var keyFileMode: Int? { PrivateFile.mode(of: keyPath) }

    private static func read(_ path: String) throws(TLSError) -> [UInt8] {
        guard let data = FileManager.default.contents(atPath: path) else { throw .file(path: path, reason: "cannot read") }
        return [UInt8](data)
    }
}

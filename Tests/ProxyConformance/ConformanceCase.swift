import Foundation

/// Where the proxy under test listens and what it was told, for the cases to use.
public struct ConformanceContext: Sendable {
    public var proxyHost: String
    public var proxyPort: Int
    /// The proxy's upstream (response) timeout in seconds: the 504 case waits a little longer.
    public var upstreamTimeout: Double
    /// How long a case waits for an answer that should come at once.
    public var patience: Double

    public init(proxyHost: String = "127.0.0.1", proxyPort: Int, upstreamTimeout: Double, patience: Double = 5) {
        self.proxyHost = proxyHost
        self.proxyPort = proxyPort
        self.upstreamTimeout = upstreamTimeout
        self.patience = patience
    }

    /// A new client connection to the proxy.
    public func client() throws -> RawConnection {
        try RawConnection.connect(host: proxyHost, port: proxyPort, timeout: patience)
    }
}

/// One black-box check of a forward proxy: a client speaking raw bytes, a scripted origin, and
/// the requirement (with its RFC section) the exchange must meet. `run` throws what went wrong.
public struct ConformanceCase: Sendable, CustomStringConvertible {
    public var name: String
    /// `RFC 9110 §7.6.3` and the like.
    public var reference: String
    public var requirement: String
    public var run: @Sendable (ConformanceContext) throws -> Void

    public var description: String { name }
}

/// The outcome of one case against one proxy.
public struct ConformanceResult: Sendable {
    public var name: String
    public var reference: String
    public var passed: Bool
    /// Why it failed (empty when it passed).
    public var detail: String
    public var seconds: Double
}

extension ConformanceCase {
    /// Runs the case, turning a thrown error into a failed result.
    public func result(in context: ConformanceContext) -> ConformanceResult {
        let start = Date()
        do {
            try run(context)
            return ConformanceResult(name: name, reference: reference, passed: true, detail: "",
                                     seconds: Date().timeIntervalSince(start))
        } catch {
            return ConformanceResult(name: name, reference: reference, passed: false, detail: "\(error)",
                                     seconds: Date().timeIntervalSince(start))
        }
    }
}

/// Fails the case with `message` unless `condition` holds.
func require(_ condition: Bool, _ message: @autoclosure () -> String) throws {
    if !condition { throw ConformanceError(message()) }
}

#if canImport(Glibc)
import Glibc
#endif
import CMouchardShims

/// A failed system call: which operation, and errno mapped to a kind the proxy can act on
/// (502 for refused/reset/unreachable, 504 for timed out...). The only error type MouchardPosix throws.
public struct PosixError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What errno meant, in the terms callers decide on.
    public enum Kind: String, Sendable, Hashable {
        case wouldBlock = "would block"
        case interrupted
        case inProgress = "in progress"
        case connectionRefused = "connection refused"
        case connectionReset = "connection reset"
        case connectionAborted = "connection aborted"
        case brokenPipe = "broken pipe"
        case timedOut = "timed out"
        case hostUnreachable = "host unreachable"
        case networkUnreachable = "network unreachable"
        case addressInUse = "address in use"
        case addressNotAvailable = "address not available"
        case tooManyOpenFiles = "too many open files"
        case permissionDenied = "permission denied"
        case invalidArgument = "invalid argument"
        case notConnected = "not connected"
        case nameResolution = "name resolution failed"
        case other
    }

    public var kind: Kind
    /// The system call or step that failed (`connect`, `bind 127.0.0.1:8080`, `getaddrinfo example.com`...).
    public var operation: String
    /// The raw errno (or the EAI code for name resolution).
    public var code: Int32

    public init(kind: Kind, operation: String, code: Int32) {
        self.kind = kind
        self.operation = operation
        self.code = code
    }

    /// Maps `errno` (the calling thread's, by default) to a typed error.
    public init(operation: String, errno code: Int32 = mouchard_errno()) {
        self.operation = operation
        self.code = code
        self.kind = PosixError.kind(of: code)
    }

    static func kind(of code: Int32) -> Kind {
        switch code {
        case EAGAIN, EWOULDBLOCK: return .wouldBlock
        case EINTR: return .interrupted
        case EINPROGRESS: return .inProgress
        case ECONNREFUSED: return .connectionRefused
        case ECONNRESET: return .connectionReset
        case ECONNABORTED: return .connectionAborted
        case EPIPE: return .brokenPipe
        case ETIMEDOUT: return .timedOut
        case EHOSTUNREACH, EHOSTDOWN: return .hostUnreachable
        case ENETUNREACH, ENETDOWN: return .networkUnreachable
        case EADDRINUSE: return .addressInUse
        case EADDRNOTAVAIL: return .addressNotAvailable
        case EMFILE, ENFILE: return .tooManyOpenFiles
        case EACCES, EPERM: return .permissionDenied
        case EINVAL: return .invalidArgument
        case ENOTCONN: return .notConnected
        default: return .other
        }
    }

    public var description: String {
        let text = kind == .other || kind == .nameResolution ? String(cString: strerror(code)) : kind.rawValue
        if kind == .nameResolution { return "\(operation): \(String(cString: gai_strerror(code)))" }
        return "\(operation): \(text) (errno \(code))"
    }
}

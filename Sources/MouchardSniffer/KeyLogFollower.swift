import Glibc

/// Follows a key log file that a TLS client keeps appending to (`SSLKEYLOGFILE` while `sniff`
/// captures): each `poll` reads what was added since the last one into the key store. A file that
/// does not exist yet is waited for; a file that shrank (rewritten) is read again from its start.
public final class KeyLogFollower {
    public let path: String
    public let keys: TLSKeyStore
    private var offset: off_t = 0
    /// Bytes read per poll at most (a poll stays short; the rest comes with the next).
    static let maxReadPerPoll = 1 << 20

    public init(path: String, keys: TLSKeyStore) {
        self.path = path
        self.keys = keys
    }

    /// Reads what was appended; returns the number of new secrets.
    @discardableResult
    public func poll() -> Int {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return 0 }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0 else { return 0 }
        if info.st_size < offset { offset = 0 }
        guard info.st_size > offset else { return 0 }
        let count = min(Int(info.st_size - offset), KeyLogFollower.maxReadPerPoll)
        var buffer = [UInt8](repeating: 0, count: count)
        let n = buffer.withUnsafeMutableBytes { pread(fd, $0.baseAddress, count, offset) }
        guard n > 0 else { return 0 }
        offset += off_t(n)
        return keys.add(appended: buffer[0..<n])
    }
}

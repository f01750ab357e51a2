import Foundation

/// `--ssl-keylog FILE`: appends TLS secrets of both sides (phone↔proxy and proxy↔origin) in the
/// NSS key log format (`CLIENT_RANDOM ...`, `CLIENT_HANDSHAKE_TRAFFIC_SECRET ...`) so Wireshark
/// can decrypt a parallel capture. The file is created 0600; every line is one `write(2)` with
/// O_APPEND, so it is flushed per line and lines from several loops never interleave.
public final class TLSKeyLog: Sendable {
    public let path: String
    private let descriptor: Int32

    public init(path: String) throws(TLSError) {
        self.path = path
        self.descriptor = try PrivateFile.openForAppend(path)
    }

    deinit { close(descriptor) }

    /// Appends one line (a newline is added).
    public func append(line: UnsafeBufferPointer<UInt8>) {
        guard line.count > 0, line.count < 4096, let base = line.baseAddress else { return }
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: line.count + 1) { buffer in
            guard let target = buffer.baseAddress else { return }
            target.update(from: base, count: line.count)
            target[line.count] = 0x0A
            var offset = 0
            while offset < line.count + 1 {
                let n = write(descriptor, target + offset, line.count + 1 - offset)
                if n < 0, errno == EINTR { continue }
                if n <= 0 { return }
                offset += n
            }
        }
    }

    public func append(line: String) {
        var text = line
        text.withUTF8 { append(line: $0) }
    }
}

import Glibc
import MouchardWire

/// Streams the packets of a pcap or pcapng file (told apart by magic bytes, not by extension)
/// in bounded memory: the file is read in chunks and each packet is handed to the caller while
/// its bytes are still in the chunk. A bad record stops the reading with a `CaptureFileError`
/// that names the byte offset; every packet before it has already been handed over.
public struct CaptureFileReader: Sendable {
    public var path: String
    /// Bytes read per `read(2)`.
    public var chunkSize: Int

    public init(path: String, chunkSize: Int = 1 << 20) {
        self.path = path
        self.chunkSize = chunkSize
    }

    /// What reading a whole file gave.
    public struct Outcome: Sendable {
        public var format: CaptureFileParser.Format?
        public var packets: Int
        /// Bytes of the file consumed by good records.
        public var bytesRead: Int
        /// Why reading stopped before the end of the file, if it did.
        public var error: CaptureFileError?
    }

    /// The file could not be opened or read at all.
    public struct OpenError: Error, Sendable, CustomStringConvertible {
        public var path: String
        public var reason: String
        public var description: String { "\(path): \(reason)" }
    }

    /// Calls `body` for every packet in file order. Throws only when the file cannot be opened or
    /// read; format problems end the walk and come back in `Outcome.error`.
    /// `secrets` sees each pcapng Decryption Secrets Block (type and data) where it lies in the file.
    public func forEachPacket(secrets: ((UInt32, ArraySlice<UInt8>) throws -> Void)? = nil,
                              _ body: (CapturedPacket) throws -> Void) throws -> Outcome {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw OpenError(path: path, reason: String(cString: strerror(errno))) }
        defer { close(fd) }
        var parser = CaptureFileParser()
        // One buffer for the whole file: bytes position..<filled are read and not consumed yet.
        // Reads go straight into it (no copy of what is read, no fresh pages to fault in per chunk).
        var buffer = [UInt8](repeating: 0, count: chunkSize * 2)
        var position = 0
        var filled = 0
        var endOfFile = false
        var packets = 0
        var want = chunkSize

        /// Moves the unconsumed bytes to the front and reads until `atLeast` more bytes are
        /// buffered (or end of file), growing the buffer for a record larger than it.
        func refill(atLeast: Int) throws {
            var needed = max(atLeast, 1)
            let kept = filled - position
            if kept + max(needed, chunkSize) > buffer.count {
                buffer += [UInt8](repeating: 0, count: kept + max(needed, chunkSize) - buffer.count)
            }
            var failure: Int32 = 0
            buffer.withUnsafeMutableBufferPointer { b in
                guard let base = b.baseAddress else { return }
                if position > 0 && kept > 0 { memmove(base, base + position, kept) }
                filled = kept
                position = 0
                while needed > 0 && !endOfFile && filled < b.count {
                    let n = Glibc.read(fd, base + filled, b.count - filled)
                    if n < 0 {
                        if errno == EINTR { continue }
                        failure = errno
                        return
                    }
                    if n == 0 { endOfFile = true; break }
                    filled += n
                    needed -= n
                }
            }
            if failure != 0 { throw OpenError(path: path, reason: "read failed: \(String(cString: strerror(failure)))") }
        }

        try refill(atLeast: want)
        while true {
            let step: CaptureFileParser.Step
            do {
                step = try parser.next(buffer[position..<filled], endOfFile: endOfFile)
            } catch {
                return Outcome(format: parser.format, packets: packets, bytesRead: parser.offset, error: error)
            }
            switch step {
            case .packet(let p, let n):
                packets += 1
                position += n
                try body(p)
            case .skipped(let n):
                position += n
            case .decryptionSecrets(let type, let data, let n):
                position += n
                try secrets?(type, data)
            case .needMore(let atLeast):
                want = atLeast - (filled - position)
                try refill(atLeast: want)
            case .end:
                return Outcome(format: parser.format, packets: packets, bytesRead: parser.offset, error: nil)
            }
        }
    }
}

/// One TLS record as it travelled: the 5-byte header and the (protected or clear) fragment.
struct TLSRecord {
    static let changeCipherSpec: UInt8 = 20
    static let alert: UInt8 = 21
    static let handshake: UInt8 = 22
    static let applicationData: UInt8 = 23

    var header: [UInt8]
    var fragment: ArraySlice<UInt8>
    var type: UInt8 { header[0] }
}

/// Cuts one direction's reassembled TCP bytes into TLS records (RFC 8446 §5.1), however the
/// segments split them. Bytes are kept only until their record is complete.
struct TLSRecordSplitter {
    enum Step {
        case record(TLSRecord)
        case needMore
        case malformed(String)
    }

    /// The largest fragment a record may carry: 2^14 plus TLS 1.2's expansion allowance.
    static let maxFragmentLength = (1 << 14) + 2048
    static let headerLength = 5

    private var buffer: [UInt8] = []
    private var start = 0

    var bufferedCount: Int { buffer.count - start }

    mutating func append(_ bytes: ArraySlice<UInt8>) {
        if start > 0 && start == buffer.count {
            buffer.removeAll(keepingCapacity: true)
            start = 0
        } else if start > 1 << 16 {
            buffer.removeSubrange(0..<start)
            start = 0
        }
        buffer.append(contentsOf: bytes)
    }

    mutating func next() -> Step {
        guard buffer.count - start >= TLSRecordSplitter.headerLength else { return .needMore }
        let type = buffer[start], major = buffer[start + 1]
        let length = Int(buffer[start + 3]) << 8 | Int(buffer[start + 4])
        guard (20...24).contains(type), major == 3 else {
            return .malformed("content type \(type), version \(major).\(buffer[start + 2]) at a record boundary")
        }
        guard length <= TLSRecordSplitter.maxFragmentLength else {
            return .malformed("record of \(length) bytes (at most \(TLSRecordSplitter.maxFragmentLength))")
        }
        let end = start + TLSRecordSplitter.headerLength + length
        guard end <= buffer.count else { return .needMore }
        let header = Array(buffer[start..<(start + TLSRecordSplitter.headerLength)])
        let fragment = ArraySlice(buffer[(start + TLSRecordSplitter.headerLength)..<end])
        start = end
        return .record(TLSRecord(header: header, fragment: fragment))
    }
}

/// Gathers handshake messages (type, 24-bit length, body) from the handshake content of one
/// direction, across records. A message larger than `maxMessageLength` (a huge certificate
/// chain) is skipped, not buffered.
struct TLSHandshakeReassembler {
    static let maxMessageLength = 1 << 20

    private var buffer: [UInt8] = []
    private var skipping = 0

    mutating func append(_ bytes: ArraySlice<UInt8>) {
        var bytes = bytes
        if skipping > 0 {
            let n = min(skipping, bytes.count)
            skipping -= n
            bytes = bytes.dropFirst(n)
        }
        buffer.append(contentsOf: bytes)
    }

    mutating func next() -> (type: UInt8, body: ArraySlice<UInt8>)? {
        guard skipping == 0, buffer.count >= 4 else { return nil }
        let length = Int(buffer[1]) << 16 | Int(buffer[2]) << 8 | Int(buffer[3])
        if length > TLSHandshakeReassembler.maxMessageLength {
            let have = buffer.count - 4
            skipping = max(0, length - have)
            buffer.removeFirst(min(buffer.count, 4 + length))
            return next()
        }
        guard buffer.count >= 4 + length else { return nil }
        let type = buffer[0]
        let body = ArraySlice(buffer[4..<(4 + length)])
        buffer.removeFirst(4 + length)
        return (type, body)
    }
}

/// One TLS record as it travelled: the 5-byte header and the (protected or clear) fragment.
struct TLSRecord {
    static let changeCipherSpec: UInt8 = 20
    static let alert: UInt8 = 21
    static let handshake: UInt8 = 22
    static let applicationData: UInt8 = 23

    /// The 5 header bytes, a slice of the bytes the record was cut from (no copy per record).
    var header: ArraySlice<UInt8>
    var fragment: ArraySlice<UInt8>
    var type: UInt8 { header[header.startIndex] }
}

/// Cuts one direction's reassembled TCP bytes into TLS records (RFC 8446 §5.1), however the
/// segments split them. A record that lies whole in the bytes given is handed out as a slice of
/// them (no copy); only a record cut by a segment boundary is gathered in a buffer until complete.
struct TLSRecordSplitter {
    enum Step {
        case record(TLSRecord)
        case needMore
        case malformed(String)
    }

    /// The largest fragment a record may carry: 2^14 plus TLS 1.2's expansion allowance.
    static let maxFragmentLength = (1 << 14) + 2048
    static let headerLength = 5

    /// The start of a record that the bytes given so far did not complete.
    private var partial: [UInt8] = []
    /// Bytes given and not cut into records yet (after `partial`).
    private var input: ArraySlice<UInt8> = []

    var bufferedCount: Int { partial.count + input.count }

    mutating func append(_ bytes: ArraySlice<UInt8>) {
        if input.isEmpty {
            input = bytes
        } else {
            // Bytes left from the previous call: they start a record, which is gathered.
            partial.append(contentsOf: input)
            input = bytes
        }
    }

    mutating func next() -> Step {
        if !partial.isEmpty { return completePartial() }
        guard input.count >= TLSRecordSplitter.headerLength else { return keepRest() }
        let h = input.startIndex
        let length = Int(input[h + 3]) << 8 | Int(input[h + 4])
        if let problem = TLSRecordSplitter.check(type: input[h], major: input[h + 1], minor: input[h + 2], length: length) {
            return .malformed(problem)
        }
        let end = h + TLSRecordSplitter.headerLength + length
        guard end <= input.endIndex else { return keepRest() }
        let record = TLSRecord(header: input[h..<(h + TLSRecordSplitter.headerLength)],
                               fragment: input[(h + TLSRecordSplitter.headerLength)..<end])
        input = input[end...]
        return .record(record)
    }

    /// Moves what is left of the input into `partial` (a record cut by the end of the bytes given).
    private mutating func keepRest() -> Step {
        reserveRecord(header: input)
        partial.append(contentsOf: input)
        input = []
        return .needMore
    }

    /// Adds input bytes to the record started in `partial`, just as many as it needs.
    private mutating func completePartial() -> Step {
        if partial.count < TLSRecordSplitter.headerLength {
            let take = min(TLSRecordSplitter.headerLength - partial.count, input.count)
            partial.append(contentsOf: input.prefix(take))
            input = input.dropFirst(take)
            guard partial.count == TLSRecordSplitter.headerLength else { return .needMore }
            reserveRecord(header: partial[...])
        }
        let length = Int(partial[3]) << 8 | Int(partial[4])
        if let problem = TLSRecordSplitter.check(type: partial[0], major: partial[1], minor: partial[2], length: length) {
            return .malformed(problem)
        }
        let total = TLSRecordSplitter.headerLength + length
        let take = min(total - partial.count, input.count)
        partial.append(contentsOf: input.prefix(take))
        input = input.dropFirst(take)
        guard partial.count == total else { return .needMore }
        let whole = partial
        partial = []
        return .record(TLSRecord(header: whole[0..<TLSRecordSplitter.headerLength],
                                 fragment: whole[TLSRecordSplitter.headerLength...]))
    }

    /// Makes room in `partial` for the whole record that `header` starts (when its header is
    /// there and plausible), so that gathering it allocates once instead of growing step by step.
    private mutating func reserveRecord(header: ArraySlice<UInt8>) {
        guard header.count >= TLSRecordSplitter.headerLength else { return }
        let h = header.startIndex
        let length = Int(header[h + 3]) << 8 | Int(header[h + 4])
        guard length <= TLSRecordSplitter.maxFragmentLength else { return }
        partial.reserveCapacity(TLSRecordSplitter.headerLength + length)
    }

    /// Why a record header cannot be one, nil when it can.
    private static func check(type: UInt8, major: UInt8, minor: UInt8, length: Int) -> String? {
        guard (20...24).contains(type), major == 3 else {
            return "content type \(type), version \(major).\(minor) at a record boundary"
        }
        guard length <= maxFragmentLength else { return "record of \(length) bytes (at most \(maxFragmentLength))" }
        return nil
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

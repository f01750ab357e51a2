/// A bounds-checked cursor over bytes for binary protocol dissectors (Ethernet, IP, TCP, DNS, TLS...).
///
/// Every read checks what is left and throws `ByteReaderError.truncated` instead of trapping.
/// Positions are indices of the underlying `ArraySlice`, so a sub-reader made with `readReader(count:)`
/// reports offsets relative to the original buffer: an error says where in the packet or file it
/// happened. Multi-byte integers are big-endian (network order) unless the name says `LE`.
public struct ByteReader: Sendable {
    /// The bytes this reader walks over; `position` is an index into them.
    public let bytes: ArraySlice<UInt8>
    /// Index of the next byte to read (an index of `bytes`, not a count from zero).
    public private(set) var position: Int

    public init(_ bytes: [UInt8]) { self.init(bytes[...]) }

    public init(_ bytes: ArraySlice<UInt8>) {
        self.bytes = bytes
        self.position = bytes.startIndex
    }

    /// Number of bytes left to read.
    @inlinable public var remainingCount: Int { bytes.endIndex - position }
    @inlinable public var isAtEnd: Bool { position >= bytes.endIndex }
    /// How many bytes have been read or skipped since the start of this reader.
    @inlinable public var consumedCount: Int { position - bytes.startIndex }

    /// The bytes not read yet (does not move the cursor).
    public var remainingBytes: ArraySlice<UInt8> { bytes[position...] }

    @inlinable func require(_ count: Int) throws(ByteReaderError) {
        guard count >= 0, count <= remainingCount else {
            throw ByteReaderError.truncated(offset: position, needed: count, available: remainingCount)
        }
    }

    public mutating func readUInt8() throws(ByteReaderError) -> UInt8 {
        try require(1)
        defer { position += 1 }
        return bytes[position]
    }

    public mutating func readUInt16() throws(ByteReaderError) -> UInt16 {
        try require(2)
        defer { position += 2 }
        return UInt16(bytes[position]) << 8 | UInt16(bytes[position + 1])
    }

    public mutating func readUInt24() throws(ByteReaderError) -> UInt32 {
        try require(3)
        defer { position += 3 }
        return UInt32(bytes[position]) << 16 | UInt32(bytes[position + 1]) << 8 | UInt32(bytes[position + 2])
    }

    public mutating func readUInt32() throws(ByteReaderError) -> UInt32 {
        try require(4)
        defer { position += 4 }
        var v: UInt32 = 0
        for i in 0..<4 { v = v << 8 | UInt32(bytes[position + i]) }
        return v
    }

    public mutating func readUInt64() throws(ByteReaderError) -> UInt64 {
        try require(8)
        defer { position += 8 }
        var v: UInt64 = 0
        for i in 0..<8 { v = v << 8 | UInt64(bytes[position + i]) }
        return v
    }

    public mutating func readUInt16LE() throws(ByteReaderError) -> UInt16 {
        try require(2)
        defer { position += 2 }
        return UInt16(bytes[position]) | UInt16(bytes[position + 1]) << 8
    }

    public mutating func readUInt32LE() throws(ByteReaderError) -> UInt32 {
        try require(4)
        defer { position += 4 }
        var v: UInt32 = 0
        for i in (0..<4).reversed() { v = v << 8 | UInt32(bytes[position + i]) }
        return v
    }

    public mutating func readUInt64LE() throws(ByteReaderError) -> UInt64 {
        try require(8)
        defer { position += 8 }
        var v: UInt64 = 0
        for i in (0..<8).reversed() { v = v << 8 | UInt64(bytes[position + i]) }
        return v
    }

    /// The next `count` bytes (a slice sharing storage, indices of the original buffer).
    public mutating func readBytes(_ count: Int) throws(ByteReaderError) -> ArraySlice<UInt8> {
        try require(count)
        defer { position += count }
        return bytes[position..<position + count]
    }

    /// A reader over the next `count` bytes; this reader moves past them.
    public mutating func readReader(count: Int) throws(ByteReaderError) -> ByteReader {
        ByteReader(try readBytes(count))
    }

    public mutating func skip(_ count: Int) throws(ByteReaderError) {
        try require(count)
        position += count
    }

    /// The byte `ahead` positions after the cursor, without moving it.
    public func peekUInt8(ahead: Int = 0) throws(ByteReaderError) -> UInt8 {
        guard ahead >= 0, ahead < remainingCount else {
            // Saturated: `ahead` may be any Int a dissector read from the input (Int.max + 1 would trap).
            throw ByteReaderError.truncated(offset: position, needed: min(ahead, Int.max - 1) + 1, available: remainingCount)
        }
        return bytes[position + ahead]
    }

    /// Moves the cursor to `index` (an index of `bytes`, `endIndex` allowed).
    public mutating func seek(to index: Int) throws(ByteReaderError) {
        guard index >= bytes.startIndex, index <= bytes.endIndex else {
            throw ByteReaderError.outOfBounds(offset: index, start: bytes.startIndex, end: bytes.endIndex)
        }
        position = index
    }
}

/// Why a `ByteReader` read failed, with the offset (index in the original buffer) where it happened.
public enum ByteReaderError: Error, Sendable, Hashable, CustomStringConvertible {
    /// A read needed `needed` bytes at `offset` but only `available` were left.
    case truncated(offset: Int, needed: Int, available: Int)
    /// A seek to `offset` outside `start...end`.
    case outOfBounds(offset: Int, start: Int, end: Int)

    public var offset: Int {
        switch self {
        case .truncated(let o, _, _), .outOfBounds(let o, _, _): o
        }
    }

    public var description: String {
        switch self {
        case .truncated(let offset, let needed, let available):
            "truncated at byte \(offset): needed \(needed) byte(s), \(available) left"
        case .outOfBounds(let offset, let start, let end):
            "seek to byte \(offset) outside \(start)...\(end)"
        }
    }
}

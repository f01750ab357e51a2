/// Bounds-checked reads of fixed-size fields at offsets relative to the start of a byte slice,
/// the way packet dissectors read headers: every read returns nil instead of trapping when the
/// field lies beyond the captured bytes.
extension ArraySlice where Element == UInt8 {
    /// The byte at `offset` (relative to `startIndex`), or nil past the end.
    @inlinable public func u8(at offset: Int) -> UInt8? {
        guard offset >= 0, offset < count else { return nil }
        return self[startIndex &+ offset]
    }

    /// Big-endian (network order) 16-bit field at `offset`.
    @inlinable public func be16(at offset: Int) -> UInt16? {
        guard offset >= 0, offset &+ 2 <= count else { return nil }
        let i = startIndex &+ offset
        return UInt16(self[i]) << 8 | UInt16(self[i &+ 1])
    }

    /// Big-endian 32-bit field at `offset`.
    @inlinable public func be32(at offset: Int) -> UInt32? {
        guard offset >= 0, offset &+ 4 <= count else { return nil }
        let i = startIndex &+ offset
        return UInt32(self[i]) << 24 | UInt32(self[i &+ 1]) << 16 | UInt32(self[i &+ 2]) << 8 | UInt32(self[i &+ 3])
    }

    /// Little-endian 16-bit field at `offset`.
    @inlinable public func le16(at offset: Int) -> UInt16? {
        guard offset >= 0, offset &+ 2 <= count else { return nil }
        let i = startIndex &+ offset
        return UInt16(self[i]) | UInt16(self[i &+ 1]) << 8
    }

    /// Little-endian 32-bit field at `offset`.
    @inlinable public func le32(at offset: Int) -> UInt32? {
        guard offset >= 0, offset &+ 4 <= count else { return nil }
        let i = startIndex &+ offset
        return UInt32(self[i]) | UInt32(self[i &+ 1]) << 8 | UInt32(self[i &+ 2]) << 16 | UInt32(self[i &+ 3]) << 24
    }

    /// `length` bytes starting at `offset`, or nil when they are not all there.
    @inlinable public func field(at offset: Int, length: Int) -> ArraySlice<UInt8>? {
        guard offset >= 0, length >= 0, offset &+ length <= count else { return nil }
        let i = startIndex &+ offset
        return self[i..<(i &+ length)]
    }

    /// Everything from `offset` to the end, or nil when `offset` is past the end.
    @inlinable public func tail(from offset: Int) -> ArraySlice<UInt8>? {
        guard offset >= 0, offset <= count else { return nil }
        return self[(startIndex &+ offset)...]
    }

    /// True when the slice starts with `prefix`.
    @inlinable public func hasBytePrefix(_ prefix: [UInt8]) -> Bool {
        guard count >= prefix.count else { return false }
        var i = startIndex
        for b in prefix {
            if self[i] != b { return false }
            i &+= 1
        }
        return true
    }
}

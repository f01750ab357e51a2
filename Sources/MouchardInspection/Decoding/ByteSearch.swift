/// Byte searches the decode walk runs over whole values (a query string's `&`, a pair's `%`),
/// eight bytes at a time: the same answers as `firstIndex(of:)` and `contains(where:)`, without a
/// bounds check and a compare per byte.
enum ByteSearch {
    private static let ones: UInt64 = 0x0101_0101_0101_0101
    private static let highs: UInt64 = 0x8080_8080_8080_8080

    /// Nonzero when one of the eight bytes of `w` is `byte` (exact as a yes/no answer).
    @inline(__always)
    private static func matches(_ w: UInt64, _ byte: UInt8) -> UInt64 {
        let x = w ^ (ones &* UInt64(byte))
        return (x &- ones) & ~x & highs
    }

    /// The index of the first `byte` in `bytes` at or after `from`, or `bytes.endIndex`.
    @inline(__always)
    static func index(of byte: UInt8, in bytes: ArraySlice<UInt8>, from: Int) -> Int {
        let lower = max(from, bytes.startIndex)
        guard lower < bytes.endIndex else { return bytes.endIndex }
        return bytes.withUnsafeBufferPointer { p -> Int in
            guard let base = p.baseAddress else { return bytes.endIndex }
            var k = lower - bytes.startIndex
            let n = p.count
            while k + 8 <= n {
                // The first match is the lowest flagged byte (see `bytesBefore`).
                let found = matches(UInt64(littleEndian: UnsafeRawPointer(base + k).loadUnaligned(as: UInt64.self)), byte)
                if found != 0 { return bytes.startIndex + k + found.trailingZeroBitCount >> 3 }
                k += 8
            }
            while k < n, p[k] != byte { k += 1 }
            return bytes.startIndex + k
        }
    }

    /// How many of the eight bytes of `w` (little-endian: the first byte lowest) come before the first `a` or `b`
    /// (8 when none is either): the lowest flagged byte is exact (a false flag only sits above a true one).
    @inline(__always)
    static func bytesBefore(_ a: UInt8, or b: UInt8, in w: UInt64) -> Int {
        let found = matches(w, a) | matches(w, b)
        return found == 0 ? 8 : found.trailingZeroBitCount >> 3
    }

    /// True when `bytes` holds `a` or `b`.
    @inline(__always)
    static func contains(_ a: UInt8, or b: UInt8, in bytes: ArraySlice<UInt8>) -> Bool {
        contains(in: bytes, word: { matches($0, a) | matches($0, b) != 0 }, byte: { $0 == a || $0 == b })
    }

    /// True when `bytes` holds an ASCII upper-case letter or `byte`.
    static func containsUppercase(or byte: UInt8, in bytes: ArraySlice<UInt8>) -> Bool {
        contains(in: bytes, word: { uppercase($0) | matches($0, byte) != 0 }, byte: { isUppercase($0) || $0 == byte })
    }

    /// True when every byte of `bytes` is ASCII and none is an upper-case letter (`bytes` read as
    /// text is its own `lowercased()`).
    static func isLowercaseASCII(_ bytes: [UInt8]) -> Bool {
        !contains(in: bytes[...], word: { uppercase($0) | ($0 & highs) != 0 }, byte: { isUppercase($0) || $0 >= 0x80 })
    }

    /// The high bit of each byte of `w` that is an ASCII upper-case letter: per byte on its low
    /// seven bits (no carry leaves a byte), at least `A`, not past `Z`, and an ASCII byte (high bit clear).
    @inline(__always)
    static func uppercase(_ w: UInt64) -> UInt64 {
        let low = w & ~highs
        let atLeastA = low &+ ones &* (0x80 - 0x41)
        let pastZ = low &+ ones &* (0x80 - 0x5B)
        return atLeastA & ~pastZ & ~w & highs
    }

    @inline(__always)
    private static func isUppercase(_ b: UInt8) -> Bool { b >= 0x41 && b <= 0x5A }

    /// True when some eight bytes of `bytes` pass `word` (read as one little-endian word), or some
    /// byte of the last fewer than eight passes `byte`: the two tests must agree.
    @inline(__always)
    private static func contains(in bytes: ArraySlice<UInt8>, word: (UInt64) -> Bool, byte: (UInt8) -> Bool) -> Bool {
        bytes.withUnsafeBufferPointer { p -> Bool in
            guard let base = p.baseAddress else { return false }
            var k = 0
            let n = p.count
            while k + 8 <= n {
                if word(UnsafeRawPointer(base + k).loadUnaligned(as: UInt64.self)) { return true }
                k += 8
            }
            while k < n {
                if byte(p[k]) { return true }
                k += 1
            }
            return false
        }
    }
}

/// Whether bytes are well-formed UTF-8 (RFC 3629, Unicode table 3-7: no overlong forms, no
/// surrogates, nothing past U+10FFFF, no truncated sequence): the answer of
/// `String(validating:as: UTF8.self) != nil` without making a string. The decode checks ask it
/// of decoded blobs that hold non-ASCII bytes, and the standard library's generic validation
/// costs about a thousand instructions a call there (metadata lookups), more than the check.
enum UTF8Validation {
    static func isValid(_ p: UnsafeBufferPointer<UInt8>) -> Bool {
        var i = 0
        while i < p.count {
            if p[i] < 0x80 { i += 1; continue }
            let length = sequenceLength(p, at: i)
            if length == 0 { return false }
            i += length
        }
        return true
    }

    static func isValid(_ bytes: ArraySlice<UInt8>) -> Bool {
        bytes.withUnsafeBufferPointer { isValid($0) }
    }

    /// The length of the well-formed sequence of 2 to 4 bytes that starts at `p[i]` (a byte
    /// 0x80 or above), 0 when there is none. The lead byte gives the length and the allowed range
    /// of the second byte; the others are 80...BF.
    @inline(__always)
    static func sequenceLength(_ p: UnsafeBufferPointer<UInt8>, at i: Int) -> Int {
        var low: UInt8 = 0x80, high: UInt8 = 0xBF
        let length: Int
        switch p[i] {
        case 0xC2...0xDF: length = 2
        case 0xE0: length = 3; low = 0xA0
        case 0xE1...0xEC, 0xEE...0xEF: length = 3
        case 0xED: length = 3; high = 0x9F
        case 0xF0: length = 4; low = 0x90
        case 0xF1...0xF3: length = 4
        case 0xF4: length = 4; high = 0x8F
        default: return 0
        }
        guard p.count - i >= length, p[i + 1] >= low, p[i + 1] <= high else { return 0 }
        for k in 2..<length where p[i + k] & 0xC0 != 0x80 { return 0 }
        return length
    }
}

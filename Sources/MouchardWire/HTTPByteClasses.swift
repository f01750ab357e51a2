/// Byte classes of the HTTP/1 grammar (RFC 9110 §5.6) and the fast scans the parser uses.
/// Bit masks instead of tables: no global initialisation on the hot path.
enum HTTPByteClass {
    // tchar = "!" / "#" / "$" / "%" / "&" / "'" / "*" / "+" / "-" / "." / "^" / "_" / "`" / "|" / "~" / DIGIT / ALPHA
    @inline(__always)
    static func isToken(_ b: UInt8) -> Bool {
        if b < 64 {
            // ! # $ % & ' * + - . 0-9
            return (0x03FF_6CFA_0000_0000 as UInt64) >> UInt64(b) & 1 == 1
        }
        if b < 128 {
            // A-Z ^ _ ` a-z | ~
            return (0x57FF_FFFF_C7FF_FFFE as UInt64) >> UInt64(b - 64) & 1 == 1
        }
        return false
    }

    /// field-vchar / SP / HTAB: every byte but the controls (0x00-0x1F except HTAB, and DEL).
    /// obs-text (0x80-0xFF) is allowed.
    @inline(__always)
    static func isFieldValueByte(_ b: UInt8) -> Bool {
        (b >= 0x20 && b != 0x7F) || b == 0x09
    }

    @inline(__always)
    static func isWhitespace(_ b: UInt8) -> Bool { b == 0x20 || b == 0x09 }

    @inline(__always)
    static func isDigit(_ b: UInt8) -> Bool { b &- 0x30 < 10 }

    /// ASCII lower-casing of one byte.
    @inline(__always)
    static func lower(_ b: UInt8) -> UInt8 { b &- 0x41 < 26 ? b | 0x20 : b }
}

extension UnsafeBufferPointer<UInt8> {
    /// Index of the first `byte` at or after `start`, or nil. Scans eight bytes at a time.
    @inline(__always)
    func firstIndex(of byte: UInt8, from start: Int) -> Int? {
        guard let base = baseAddress else { return nil }
        var i = start
        let n = count
        let pattern = UInt64(byte) &* 0x0101_0101_0101_0101
        let raw = UnsafeRawPointer(base)
        while i + 8 <= n {
            let x = raw.loadUnaligned(fromByteOffset: i, as: UInt64.self) ^ pattern
            // A zero byte in x marks a match (classic "has zero byte" test).
            let found = (x &- 0x0101_0101_0101_0101) & ~x & 0x8080_8080_8080_8080
            if found != 0 { return i + found.trailingZeroBitCount / 8 }
            i += 8
        }
        while i < n {
            if base[i] == byte { return i }
            i += 1
        }
        return nil
    }

    /// Index of the first byte in `range` that is not allowed in a field value, or nil.
    @inline(__always)
    func firstInvalidFieldValueByte(in range: Range<Int>) -> Int? {
        guard let base = baseAddress else { return nil }
        var i = range.lowerBound
        let end = range.upperBound
        let raw = UnsafeRawPointer(base)
        while i + 8 <= end {
            let x = raw.loadUnaligned(fromByteOffset: i, as: UInt64.self)
            // Bytes < 0x20 (among those < 0x80) and bytes equal to 0x7F.
            let low = (x &- 0x2020_2020_2020_2020) & ~x & 0x8080_8080_8080_8080
            let d = x ^ 0x7F7F_7F7F_7F7F_7F7F
            let del = (d &- 0x0101_0101_0101_0101) & ~d & 0x8080_8080_8080_8080
            if low | del != 0 {
                for k in i..<i + 8 where !HTTPByteClass.isFieldValueByte(base[k]) { return k }
            }
            i += 8
        }
        while i < end {
            if !HTTPByteClass.isFieldValueByte(base[i]) { return i }
            i += 1
        }
        return nil
    }

    /// True when no byte has its high bit set. Eight bytes at a time.
    @inline(__always)
    var isASCII: Bool {
        guard let base = baseAddress else { return true }
        let raw = UnsafeRawPointer(base)
        var i = 0
        var acc: UInt64 = 0
        while i + 8 <= count {
            acc |= raw.loadUnaligned(fromByteOffset: i, as: UInt64.self)
            i += 8
        }
        while i < count {
            acc |= UInt64(base[i])
            i += 1
        }
        return acc & 0x8080_8080_8080_8080 == 0
    }

    /// The bytes as text the way `decodeFieldText` reads them, with a fast path for ASCII.
    @inline(__always)
    var fieldText: String {
        isASCII ? String(decoding: self, as: UTF8.self) : decodeFieldText(self)
    }

    /// True when the bytes in `range` equal the ASCII `lowercase` name, ignoring ASCII case.
    @inline(__always)
    func equalsIgnoringCase(_ range: Range<Int>, _ lowercase: StaticString) -> Bool {
        guard range.count == lowercase.utf8CodeUnitCount else { return false }
        let p = lowercase.utf8Start
        for (k, i) in range.enumerated() where HTTPByteClass.lower(self[i]) != p[k] { return false }
        return true
    }
}

/// What one pass over a leaf value's bytes tells `FieldWalker.leaf` about the decodings worth
/// trying: a `%XX` escape, a form (`a=1&b=2`), a decimal point. The walker used to
/// read the value once per question; this reads it once for all of them, with the same answers.
struct LeafShape {
    /// Holds at least one `%XX` escape (`ByteCodecs.hasPercentEscape`).
    var hasPercentEscape = false
    /// `FieldWalker.looksLikeForm`'s answer.
    var looksLikeForm = false
    /// Holds a `.` (`numbersInString` may find decimals).
    var hasDot = false
    /// Holds an ASCII upper-case letter or a `=` (`ByteSearch.containsUppercase(or: "=")`): without
    /// either no run is a base64 candidate (`FieldWalker.tryBase64`).
    var hasUppercaseOrEquals = false
    /// Holds a `:` (a URL, protobuf text format).
    var hasColon = false
    /// Holds a line feed or a `{` (protobuf text format's lines and blocks).
    var hasNewlineOrBrace = false
    /// Holds a byte that is not ASCII (a degree sign, primes).
    var hasNonASCII = false

    init(_ bytes: ArraySlice<UInt8>) {
        let n = bytes.count
        var any: UInt8 = 0
        var keyBytes: UInt8 = 0xFF
        var eq = -1
        // The high bit of each upper-case letter seen in a whole word.
        var upperInWords: UInt64 = 0
        // Every byte's high bit, over the whole value.
        var highBits: UInt8 = 0
        bytes.withUnsafeBufferPointer { p in
            guard let base = p.baseAddress else { return }
            LeafShape.classes.withUnsafeBufferPointer { table in
                // Eight bytes at a time, looked at closely only when one may be of interest.
                @inline(__always) func look(_ k: Int) {
                    let b = p[k]
                    any |= table[Int(b)]
                    highBits |= b
                    if b == 0x3D, eq < 0 { eq = k }
                }
                var k = 0
                var words: UInt64 = 0
                while k + 8 <= n {
                    let w = UnsafeRawPointer(base + k).loadUnaligned(as: UInt64.self)
                    words |= w
                    upperInWords |= ByteSearch.uppercase(w)
                    if LeafShape.mayHoldMarked(w) {
                        for j in k..<(k + 8) { look(j) }
                    }
                    k += 8
                }
                while k < n {
                    look(k)
                    k += 1
                }
                if words & 0x8080_8080_8080_8080 != 0 { highBits |= 0x80 }
                // The form key's bytes (before the first `=`), when the rest could make a form.
                if eq > 0, any & LeafShape.spaceOrNewline == 0 {
                    for j in 0..<eq { keyBytes &= table[Int(p[j])] }
                }
            }
        }
        // A `%` seen: is it an escape (rare, looked at again)?
        if any & LeafShape.percent != 0 { hasPercentEscape = ByteCodecs.hasPercentEscape(bytes) }
        hasDot = any & LeafShape.dot != 0
        hasColon = any & LeafShape.colon != 0
        hasNewlineOrBrace = any & LeafShape.newlineOrBrace != 0
        hasNonASCII = highBits & 0x80 != 0
        // `=` is found wherever it is; upper-case letters in whole words by the word test, in
        // the last bytes by their class.
        hasUppercaseOrEquals = eq >= 0 || upperInWords != 0 || any & LeafShape.uppercase != 0
        // The rules of `FieldWalker.looksLikeForm`, from what the pass saw.
        if n >= 3, n < 1 << 20, eq > 0, keyBytes & LeafShape.keyByte != 0, any & LeafShape.spaceOrNewline == 0 {
            let base = bytes.startIndex
            if eq + 1 < n, bytes[base + eq + 1] != 0x3D {
                looksLikeForm = any & LeafShape.ampersand != 0 || eq <= 32
            }
        }
    }

    /// True when one of the eight bytes of `w` may be `%`, `.`, space, LF, `&`, `=`, `:` or `{` (the
    /// bytes the pass looks for): no false negatives, a few false positives.
    @inline(__always)
    private static func mayHoldMarked(_ w: UInt64) -> Bool {
        let low: UInt64 = 0x0101_0101_0101_0101
        let high: UInt64 = 0x8080_8080_8080_8080
        @inline(__always) func zeroByte(_ x: UInt64) -> UInt64 { (x &- low) & ~x & high }
        return zeroByte(w ^ (low &* 0x25)) | zeroByte(w ^ (low &* 0x2E)) | zeroByte(w ^ (low &* 0x20))
            | zeroByte(w ^ (low &* 0x0A)) | zeroByte(w ^ (low &* 0x26)) | zeroByte(w ^ (low &* 0x3D))
            | zeroByte(w ^ (low &* 0x3A)) | zeroByte(w ^ (low &* 0x7B)) != 0
    }

    // Byte classes (bits of `classes`).
    /// Allowed in a form key before the first `=`: alphanumerics and `_-.[]%$`.
    private static let keyByte: UInt8 = 2
    private static let spaceOrNewline: UInt8 = 4
    private static let ampersand: UInt8 = 8
    private static let dot: UInt8 = 16
    private static let percent: UInt8 = 32
    /// An ASCII upper-case letter (only read for the bytes after the last whole word).
    private static let uppercase: UInt8 = 64
    private static let colon: UInt8 = 128
    /// LF or `{` (a class of its own: `spaceOrNewline` holds spaces too).
    private static let newlineOrBrace: UInt8 = 1

    private static let classes: [UInt8] = (0..<256).map { i in
        let b = UInt8(i)
        var c: UInt8 = 0
        if isASCIIAlnum(b) || b == 0x5F || b == 0x2D || b == 0x2E || b == 0x5B || b == 0x5D || b == 0x25 || b == 0x24 { c |= keyByte }
        if b == 0x20 || b == 0x0A { c |= spaceOrNewline }
        if b == 0x26 { c |= ampersand }
        if b == 0x2E { c |= dot }
        if b == 0x25 { c |= percent }
        if b >= 0x41 && b <= 0x5A { c |= uppercase }
        if b == 0x3A { c |= colon }
        if b == 0x0A || b == 0x7B { c |= newlineOrBrace }
        return c
    }
}

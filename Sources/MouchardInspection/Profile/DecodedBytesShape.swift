/// What the walk's decoders accept of decoded bytes, answered on a buffer without building
/// anything: the span scan's base64 check (`base64CandidateMatters`) asks it of every candidate
/// run, nearly all of them tokens that decode to random bytes, rejected within a few bytes.
///
/// Each answer is exactly the walk's (tests compare them): `looksLikeText` is
/// `ByteCodecs.looksLikeText` (no `String` is made to validate UTF-8), `isProtobufMessage` is
/// `ProtobufScanner.scan(...) != nil` (no field array, no copy of the bytes).
enum DecodedBytesShape {
    /// `ByteCodecs.looksLikeText`: not empty, valid UTF-8 (random bytes fail it at once), and at
    /// most one byte in ten a control byte other than tab, LF and CR. One pass: printable ASCII
    /// 8 bytes at a time, other ASCII bytes counted, longer sequences checked as
    /// `UTF8Validation` does.
    static func looksLikeText(_ p: UnsafeBufferPointer<UInt8>) -> Bool {
        guard let base = p.baseAddress, !p.isEmpty else { return false }
        let n = p.count
        let ones: UInt64 = 0x0101_0101_0101_0101, highs: UInt64 = 0x8080_8080_8080_8080
        var bad = 0
        var i = 0
        while i < n {
            if i + 8 <= n {
                let x = UnsafeRawPointer(base + i).loadUnaligned(as: UInt64.self)
                let below20 = (x &- 0x20 &* ones) & ~x & highs
                let del = ((x ^ 0x7F &* ones) &- ones) & ~(x ^ 0x7F &* ones) & highs
                if (x & highs) | below20 | del == 0 { i += 8; continue }
            }
            let b = p[i]
            if b < 0x80 {
                if (b < 0x20 && b != 0x09 && b != 0x0A && b != 0x0D) || b == 0x7F { bad += 1 }
                i += 1
                continue
            }
            let length = UTF8Validation.sequenceLength(p, at: i)
            if length == 0 { return false }
            i += length
        }
        return bad * 10 <= n
    }

    /// `ProtobufScanner.scan(bytes, maxFields:) != nil`: the whole of `p` is well-formed fields,
    /// at least one, at most `maxFields`.
    static func isProtobufMessage(_ p: UnsafeBufferPointer<UInt8>, maxFields: Int = 10_000) -> Bool {
        let n = p.count
        var i = 0
        var fields = 0
        while i < n {
            guard fields < maxFields, let tag = ProtobufScanner.varint(p, &i) else { return false }
            let number = tag >> 3
            guard number >= 1, number <= 536_870_911 else { return false }
            switch tag & 7 {
            case 0: guard ProtobufScanner.varint(p, &i) != nil else { return false }
            case 1:
                guard n - i >= 8 else { return false }
                i += 8
            case 2:
                guard let length = ProtobufScanner.varint(p, &i), length <= UInt64(n - i) else { return false }
                i += Int(length)
            case 5:
                guard n - i >= 4 else { return false }
                i += 4
            default: return false
            }
            fields += 1
        }
        return fields > 0
    }
}

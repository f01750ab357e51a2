/// Coordinates that carry their own marks in text: hemisphere letters before or after the number
/// (`53.55034N;9.99207E`, `S 30.03 W 51.22`) and degrees-minutes-seconds
/// (`53°33'01.1"N 9°59'31.6"E`, also with `º`, `′`, `″` or `''`). Pure: bytes in, signed degrees out.
///
/// A number is marked when a hemisphere letter stands next to it (not inside a word) or it has a
/// degree sign followed by minutes; `S` and `W` make it negative. Only text with two marked numbers
/// or more gives anything: a letter next to one number is most often a unit or a size.
enum MarkedCoordinates {
    /// One degree value read, with the decimals that its precision is worth.
    struct Value: Equatable {
        var degrees: Double
        var decimals: Int
    }

    /// Texts longer than this are no coordinate pair (a sentence, a document).
    static let maxLength = 200
    /// Marked numbers read at most in one text.
    static let maxValues = 8

    /// The marked numbers of `text`, in order, or nil when fewer than two.
    static func read(_ text: ArraySlice<UInt8>) -> [Value]? {
        guard text.count >= 5, text.count <= maxLength else { return nil }
        let b = Array(text)
        var out: [Value] = []
        var i = 0
        while i < b.count, out.count < maxValues {
            // A token starts with a hemisphere letter, a minus sign or a digit: no other byte is
            // tried (most of a long text).
            if mayStartToken(b[i]), let (value, end) = token(b, at: i) {
                out.append(value)
                i = end
            } else {
                i += 1
            }
        }
        return out.count >= 2 ? out : nil
    }

    /// True when `text` may hold a marked number: an upper-case hemisphere letter, or the first byte
    /// of a degree, prime or double prime sign (UTF-8 `C2`, `E2`). A cheap test before `read`.
    static func mayHoldMarks(_ text: ArraySlice<UInt8>) -> Bool {
        text.count >= 5 && text.count <= maxLength && text.contains { hemisphere($0) != nil || $0 == 0xC2 || $0 == 0xE2 }
    }

    /// +1 for `N`/`E`, -1 for `S`/`W`, nil for any other byte.
    private static func hemisphere(_ b: UInt8) -> Double? {
        switch b {
        case UInt8(ascii: "N"), UInt8(ascii: "E"): 1
        case UInt8(ascii: "S"), UInt8(ascii: "W"): -1
        default: nil
        }
    }

    /// A hemisphere letter at `i` that is a word of its own (no letter or digit before it, when
    /// `before`; none after it, when `!before`, digits excepted since a number follows a prefix).
    private static func standaloneLetter(_ b: [UInt8], _ i: Int, prefix: Bool) -> Double? {
        guard i >= 0, i < b.count, let sign = hemisphere(b[i]) else { return nil }
        if prefix {
            if i > 0, isASCIIAlnum(b[i - 1]) { return nil }
            if i + 1 < b.count, isASCIILetter(b[i + 1]) { return nil }
        } else if i + 1 < b.count, isASCIIAlnum(b[i + 1]) {
            return nil
        }
        return sign
    }

    private static func isASCIILetter(_ b: UInt8) -> Bool { (b | 0x20) >= 0x61 && (b | 0x20) <= 0x7A }

    /// An unsigned decimal at `i` (`12`, `01.1`): value, decimals, end; nil when no digit is there.
    private static func number(_ b: [UInt8], at i: Int, maxIntegerDigits: Int) -> (value: Double, decimals: Int, end: Int)? {
        var k = i
        var v = 0.0
        while k < b.count, b[k] >= 0x30, b[k] <= 0x39, k - i < maxIntegerDigits + 1 {
            v = v * 10 + Double(b[k] - 0x30)
            k += 1
        }
        guard k > i, k - i <= maxIntegerDigits else { return nil }
        var decimals = 0
        if k + 1 < b.count, b[k] == 0x2E, b[k + 1] >= 0x30, b[k + 1] <= 0x39 {
            k += 1
            var scale = 1.0
            while k < b.count, b[k] >= 0x30, b[k] <= 0x39, decimals < 12 {
                scale /= 10
                v += Double(b[k] - 0x30) * scale
                decimals += 1
                k += 1
            }
        }
        return (v, decimals, k)
    }

    /// `token` finds nothing at a byte other than these.
    private static func mayStartToken(_ b: UInt8) -> Bool {
        hemisphere(b) != nil || b == UInt8(ascii: "-") || (b >= 0x30 && b <= 0x39)
    }

    /// The length of the mark at `i` among `marks` (byte sequences), 0 when none is there.
    private static func mark(_ b: [UInt8], at i: Int, _ marks: [[UInt8]]) -> Int {
        for m in marks where i + m.count <= b.count && b[i..<(i + m.count)].elementsEqual(m) { return m.count }
        return 0
    }

    private static let degreeMarks: [[UInt8]] = [[0xC2, 0xB0], [0xC2, 0xBA]]
    private static let minuteMarks: [[UInt8]] = [[0xE2, 0x80, 0xB2], [0x27]]
    private static let secondMarks: [[UInt8]] = [[0xE2, 0x80, 0xB3], [0x27, 0x27], [0x22]]

    private static func skipSpaces(_ b: [UInt8], _ i: Int) -> Int {
        var k = i
        while k < b.count, b[k] == 0x20, k - i < 2 { k += 1 }
        return k
    }

    /// A marked number starting at `i`: `[H ][-]D[.d][° M[.m]′ [S[.s]″]][ H]`.
    private static func token(_ b: [UInt8], at i: Int) -> (Value, Int)? {
        var k = i
        var sign = 1.0
        var marked = false
        var lettered = false
        if let s = standaloneLetter(b, k, prefix: true) {
            sign = s
            marked = true
            lettered = true
            k = skipSpaces(b, k + 1)
        } else if i > 0, isASCIIAlnum(b[i - 1]) || b[i - 1] == 0x2E {
            // Inside a word or a longer number.
            return nil
        }
        var negative = false
        if k < b.count, b[k] == 0x2D { negative = true; k += 1 }
        guard let deg = number(b, at: k, maxIntegerDigits: 3) else { return nil }
        k = deg.end
        var degrees = deg.value
        var decimals = deg.decimals
        let degreeMark = mark(b, at: k, degreeMarks)
        if degreeMark > 0 {
            k = skipSpaces(b, k + degreeMark)
            if deg.decimals == 0, let min = number(b, at: k, maxIntegerDigits: 2), min.value < 60 {
                let minuteMark = mark(b, at: min.end, minuteMarks)
                if minuteMark > 0, !(minuteMark == 1 && min.end + 1 < b.count && b[min.end + 1] == 0x27) {
                    degrees += min.value / 60
                    decimals = 2 + min.decimals
                    marked = true
                    k = skipSpaces(b, min.end + minuteMark)
                    if let sec = number(b, at: k, maxIntegerDigits: 2), sec.value < 60 {
                        let secondMark = mark(b, at: sec.end, secondMarks)
                        if secondMark > 0 {
                            degrees += sec.value / 3600
                            decimals = 4 + sec.decimals
                            k = sec.end + secondMark
                        }
                    }
                }
            }
        }
        if !lettered {
            let after = skipSpaces(b, k)
            if let s = standaloneLetter(b, after, prefix: false) {
                sign = s
                marked = true
                k = after + 1
            }
        }
        guard marked, k <= b.count else { return nil }
        if k < b.count, isASCIIAlnum(b[k]) { return nil }
        var scale = 1.0
        for _ in 0..<min(decimals, 12) { scale *= 10 }
        let rounded = (degrees * scale).rounded() / scale
        let value = (negative ? -1 : 1) * sign * rounded
        guard abs(value) <= 180 else { return nil }
        return (Value(degrees: value, decimals: decimals), k)
    }
}

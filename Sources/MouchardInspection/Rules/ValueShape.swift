/// What one pass over a field's bytes says about the candidates its pattern rules could find:
/// the longest run of each byte class a shape is made of, how many digits, and whether there is an
/// `@`. A rule whose shape needs more than the field has (a UUID needs 36 hex digits and dashes in
/// a row, an e-mail an `@`) is not scanned for (`ShapeNeed`). The pass replaces a scan per rule:
/// most fields hold no candidate of any rule and are answered by it alone.
struct ValueShape {
    /// Longest runs of hex digits; of hex digits and `-` (UUIDs); of hex digits, `:` and `-`
    /// (MACs); of decimal digits; of ASCII letters and digits (tokens).
    var hexRun = 0
    var uuidRun = 0
    var macRun = 0
    var digitRun = 0
    var alnumRun = 0
    /// Decimal digits in all (a phone number has 8 or more, with separators between).
    var digits = 0
    /// Some hex letter (`a`-`f`, either case): a hex candidate holds one.
    var hasHexLetter = false
    var hasAt = false

    init(_ bytes: ArraySlice<UInt8>) {
        var hex = 0, uuid = 0, mac = 0, digit = 0, alnum = 0
        var classes: UInt8 = 0
        bytes.withUnsafeBufferPointer { p in
            for b in p {
                let c = ByteClass.table[Int(b)]
                classes |= c
                hex = c & ByteClass.hex != 0 ? hex + 1 : 0
                uuid = c & (ByteClass.hex | ByteClass.dash) != 0 ? uuid + 1 : 0
                mac = c & (ByteClass.hex | ByteClass.dash | ByteClass.colon) != 0 ? mac + 1 : 0
                digit = c & ByteClass.digit != 0 ? digit + 1 : 0
                alnum = c & ByteClass.alnum != 0 ? alnum + 1 : 0
                hexRun = max(hexRun, hex)
                uuidRun = max(uuidRun, uuid)
                macRun = max(macRun, mac)
                digitRun = max(digitRun, digit)
                alnumRun = max(alnumRun, alnum)
                digits += Int(c & ByteClass.digit)
            }
        }
        hasHexLetter = classes & ByteClass.hexLetter != 0
        hasAt = classes & ByteClass.at != 0
    }

    /// The byte classes of `init`, one bit each (`digit` is 1: added up as the digit count).
    enum ByteClass {
        static let digit: UInt8 = 1
        static let hex: UInt8 = 2
        static let hexLetter: UInt8 = 4
        static let dash: UInt8 = 8
        static let colon: UInt8 = 16
        static let alnum: UInt8 = 32
        static let at: UInt8 = 64

        static let table: [UInt8] = (0..<256).map { i in
            let b = UInt8(i)
            var c: UInt8 = 0
            let isDigit = b >= 0x30 && b <= 0x39
            let isHexLetter = (b >= 0x41 && b <= 0x46) || (b >= 0x61 && b <= 0x66)
            if isDigit { c |= digit }
            if isDigit || isHexLetter { c |= hex }
            if isHexLetter { c |= hexLetter }
            if b == 0x2D { c |= dash }
            if b == 0x3A { c |= colon }
            if b == 0x40 { c |= at }
            if isASCIIAlnum(b) { c |= alnum }
            return c
        }
    }
}

/// What a field must have (`ValueShape`) for one rule's scan to find a candidate in it: a
/// necessary condition read from the rule's shape and lengths once, when the detector is made.
/// It only ever rules out fields where `PatternDetector.candidates` finds nothing.
enum ShapeNeed: Sendable {
    /// Nothing cheaper than the scan itself (free text, regexes without a prefilter).
    case any
    /// Never a candidate (`decimal` is read from number groups, not fields).
    case never
    case uuid, mac, email
    case hexRun(Int)
    case digitRun(Int)
    case alnumRun(Int)
    /// Phone numbers: this many digits in the field, whatever separates them.
    case digitCount(Int)
    /// The regex's prefilter bytes, ignoring ASCII case.
    case folded(FoldedKeySearch)

    /// UUIDs are 36 characters, MACs 17; phone numbers have 8 digits or more (`phones`).
    static let uuidLength = 36
    static let macLength = 17
    static let phoneDigits = 8

    init(_ rule: PatternRule) {
        // The shortest candidate the rule's lengths allow.
        let shortest = rule.lengths.min() ?? rule.minLength
        switch rule.shape {
        case .uuid: self = .uuid
        case .mac: self = .mac
        case .email: self = .email
        case .hex: self = .hexRun(shortest)
        case .digits: self = .digitRun(shortest)
        // A whole-value token may have `-` and `_` between its letters and digits.
        case .token: self = rule.wholeValue ? .any : .alnumRun(shortest)
        case .phone: self = .digitCount(Self.phoneDigits)
        case .decimal: self = .never
        case .text: self = .any
        case .regex: self = rule.prefilter.isEmpty ? .any : .folded(FoldedKeySearch([String(decoding: rule.prefilter, as: UTF8.self)]))
        }
    }

    /// The field may hold a candidate: `shape` is `bytes`' (the regex prefilter reads the bytes).
    func mayMatch(_ shape: ValueShape, _ bytes: ArraySlice<UInt8>) -> Bool {
        switch self {
        case .any: true
        case .never: false
        case .uuid: shape.uuidRun >= Self.uuidLength
        case .mac: shape.macRun >= Self.macLength
        case .email: shape.hasAt
        case .hexRun(let n): shape.hexRun >= n && shape.hasHexLetter
        case .digitRun(let n): shape.digitRun >= n
        case .alnumRun(let n): shape.alnumRun >= n
        case .digitCount(let n): shape.digits >= n
        case .folded(let search): search.isFound(in: bytes)
        }
    }
}

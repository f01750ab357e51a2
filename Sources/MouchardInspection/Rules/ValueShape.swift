/// What a pass over a field's bytes says about the candidates its pattern rules could find:
/// which byte classes it has, how many digits, and (read only when a rule needs them, a pass per
/// class) the lengths of the maximal runs of the classes shapes are made of. A rule whose shape needs
/// what the field lacks (a UUID is a run of 36 hex digits and dashes, an e-mail has an `@`) is not
/// scanned for (`ShapeNeed`): most fields hold no candidate of any rule and are answered by the
/// first pass alone, instead of a scan per rule.
///
/// A scanner's candidate (`PatternDetector.runs`) is a maximal run of its class, so a field
/// without a maximal run of an allowed length has none.
struct ValueShape {
    /// The field's length in bytes. The bytes themselves are not kept: a shape is plain data,
    /// made and dropped per field without reference counting (`runLengths(_:of:)` is given them).
    let count: Int
    /// The `ByteClass` bits of the field's bytes, together.
    private(set) var classes: UInt8 = 0
    /// Decimal digits in all (a phone number has 8 or more, with separators between).
    private(set) var digits = 0
    /// Every byte is a digit or may be written in a phone number (`+`, space, `-`, `.`,
    /// parentheses) or around it (tab, CR, LF): a whole value may be one.
    private(set) var onlyPhoneBytes = true
    /// The lengths of the maximal runs of the classes in `measured`, as bits: bit `n - 1` for a run
    /// of `n` bytes, bit 63 for runs of 64 bytes or more (`RunLengths`).
    private var runs = Runs()
    /// The `RunClass` bits of the classes whose runs are read: each class is read on first use,
    /// alone, as a field is mostly asked about one (the digit rules').
    private var measured: UInt8 = 0

    struct Runs {
        var hex: UInt64 = 0
        var uuid: UInt64 = 0
        var mac: UInt64 = 0
        var digit: UInt64 = 0
        var alnum: UInt64 = 0

        subscript(runClass: RunClass) -> UInt64 {
            get {
                switch runClass {
                case .hex: hex
                case .uuid: uuid
                case .mac: mac
                case .digit: digit
                case .alnum: alnum
                }
            }
            set {
                switch runClass {
                case .hex: hex = newValue
                case .uuid: uuid = newValue
                case .mac: mac = newValue
                case .digit: digit = newValue
                case .alnum: alnum = newValue
                }
            }
        }
    }

    init(_ bytes: ArraySlice<UInt8>) {
        count = bytes.count
        var classes: UInt8 = 0, notPhone: UInt8 = 0, digits = 0
        bytes.withUnsafeBufferPointer { p in
            for b in p {
                let c = ByteClass.table[Int(b)]
                classes |= c
                notPhone |= ~c & ByteClass.phone
                digits += Int(c & ByteClass.digit)
            }
        }
        self.classes = classes
        self.digits = digits
        onlyPhoneBytes = notPhone == 0
    }

    func has(_ byteClass: UInt8) -> Bool { classes & byteClass != 0 }

    /// The lengths of the maximal runs of `runClass` in `bytes`, the field's (`RunLengths` bits;
    /// a pass over the bytes the first time a class is asked for).
    mutating func runLengths(_ runClass: RunClass, of bytes: ArraySlice<UInt8>) -> UInt64 {
        if measured & runClass.member == 0 {
            runs[runClass] = Self.measure(runClass.member, bytes)
            measured |= runClass.member
        }
        return runs[runClass]
    }

    private static func measure(_ member: UInt8, _ bytes: ArraySlice<UInt8>) -> UInt64 {
        var lengths: UInt64 = 0, run = 0
        RunClass.table.withUnsafeBufferPointer { table in
            bytes.withUnsafeBufferPointer { p in
                for b in p {
                    if table[Int(b)] & member != 0 {
                        run += 1
                    } else if run > 0 {
                        lengths |= RunLengths.bit(run)
                        run = 0
                    }
                }
            }
        }
        if run > 0 { lengths |= RunLengths.bit(run) }
        return lengths
    }

    /// The classes whose maximal runs are measured: hex digits, UUID bytes (hex and `-`), MAC bytes
    /// (hex, `:`, `-`), decimal digits, ASCII letters and digits.
    enum RunClass: UInt8 {
        case hex, uuid, mac, digit, alnum

        /// The class's bit in `table` and in `measured`.
        var member: UInt8 { 1 << rawValue }

        /// Each byte's classes (`member` bits).
        static let table: [UInt8] = ByteClass.table.map { c in
            var r: UInt8 = 0
            if c & ByteClass.hex != 0 { r |= hex.member }
            if c & (ByteClass.hex | ByteClass.dash) != 0 { r |= uuid.member }
            if c & (ByteClass.hex | ByteClass.dash | ByteClass.colon) != 0 { r |= mac.member }
            if c & ByteClass.digit != 0 { r |= digit.member }
            if c & ByteClass.alnum != 0 { r |= alnum.member }
            return r
        }
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
        /// A digit or a byte a phone number may be written with (`onlyPhoneBytes`).
        static let phone: UInt8 = 128

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
            if isDigit || Array(" +-.()\t\r\n".utf8).contains(b) { c |= phone }
            return c
        }
    }
}

/// Run lengths as the bits of a `UInt64`: bit `n - 1` for `n` bytes, bit 63 for 64 or more.
enum RunLengths {
    static func bit(_ length: Int) -> UInt64 { 1 << UInt64(min(length, 64) - 1) }

    /// The bits of every length in `lengths`.
    static func of(_ lengths: Set<Int>) -> UInt64 {
        lengths.reduce(0) { $0 | ($1 >= 1 ? bit($1) : 0) }
    }

    /// The bits of every length from `shortest` to `longest`.
    static func from(_ shortest: Int, to longest: Int) -> UInt64 {
        let low = max(shortest, 1), high = min(longest, 64)
        guard low <= high else { return 0 }
        var bits: UInt64 = 0
        for n in low...high { bits |= bit(n) }
        return bits
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
    case email
    /// A maximal run of one of `lengths` (`RunLengths`, the shortest `shortest`) of UUID bytes,
    /// MAC bytes, hex digits (with a hex letter), digits, ASCII letters and digits.
    case uuidRun(lengths: UInt64, shortest: Int)
    case macRun(lengths: UInt64, shortest: Int)
    case hexRun(lengths: UInt64, shortest: Int)
    case digitRun(lengths: UInt64, shortest: Int)
    case alnumRun(lengths: UInt64, shortest: Int)
    /// Phone numbers: this many digits in the field, whatever separates them; for a whole value,
    /// nothing but what a phone number is written with.
    case phone(digits: Int, whole: Bool)
    /// The regex's prefilter bytes, ignoring ASCII case: the index of its search in `searches`
    /// (a need is plain data, copied without reference counting), and what the bytes need before
    /// they are searched: as many digits as the prefilter has, and its `:`, `-` and `@` (classes).
    case folded(Int, digits: Int, classes: UInt8)

    /// UUIDs are 36 characters, MACs 17; phone numbers have 8 digits or more (`phones`).
    static let uuidLength = 36
    static let macLength = 17
    static let phoneDigits = 8

    /// `searches` gets the rule's prefilter search, if it has one.
    init(_ rule: PatternRule, searches: inout [FoldedKeySearch]) {
        // The lengths `lengthOK` allows.
        let allowed = rule.lengths.isEmpty ? RunLengths.from(rule.minLength, to: rule.maxLength) : RunLengths.of(rule.lengths)
        let shortest = max(1, rule.lengths.min() ?? rule.minLength)
        switch rule.shape {
        case .uuid: self = .uuidRun(lengths: RunLengths.bit(Self.uuidLength), shortest: Self.uuidLength)
        case .mac: self = .macRun(lengths: RunLengths.bit(Self.macLength), shortest: Self.macLength)
        case .email: self = .email
        case .hex: self = .hexRun(lengths: allowed, shortest: shortest)
        case .digits: self = .digitRun(lengths: allowed, shortest: shortest)
        // A whole-value token may have `-` and `_` between its letters and digits.
        case .token: self = rule.wholeValue ? .any : .alnumRun(lengths: allowed, shortest: shortest)
        case .phone: self = .phone(digits: Self.phoneDigits, whole: rule.wholeValue)
        case .decimal: self = .never
        case .text: self = .any
        case .regex:
            guard !rule.prefilter.isEmpty else { self = .any; return }
            searches.append(FoldedKeySearch([String(decoding: rule.prefilter, as: UTF8.self)]))
            let classes = rule.prefilter.reduce(UInt8(0)) { $0 | ValueShape.ByteClass.table[Int($1)] }
            self = .folded(searches.count - 1, digits: rule.prefilter.count { $0 >= 0x30 && $0 <= 0x39 },
                           classes: classes & (ValueShape.ByteClass.colon | ValueShape.ByteClass.dash | ValueShape.ByteClass.at))
        }
    }

    /// The field `bytes`, whose shape is `shape`, may hold a candidate (a regex prefilter is looked
    /// for with its search in `searches`). The classes and the length are checked before the runs are read.
    func mayMatch(_ shape: inout ValueShape, bytes: ArraySlice<UInt8>, searches: [FoldedKeySearch]) -> Bool {
        typealias C = ValueShape.ByteClass
        switch self {
        case .any: return true
        case .never: return false
        case .email: return shape.has(C.at)
        case .uuidRun(let lengths, let shortest):
            return shape.has(C.dash) && shape.count >= shortest && shape.runLengths(.uuid, of: bytes) & lengths != 0
        case .macRun(let lengths, let shortest):
            return shape.has(C.dash | C.colon) && shape.count >= shortest && shape.runLengths(.mac, of: bytes) & lengths != 0
        case .hexRun(let lengths, let shortest):
            return shape.has(C.hexLetter) && shape.count >= shortest && shape.runLengths(.hex, of: bytes) & lengths != 0
        case .digitRun(let lengths, let shortest):
            return shape.digits >= shortest && shape.runLengths(.digit, of: bytes) & lengths != 0
        case .alnumRun(let lengths, let shortest):
            return shape.count >= shortest && shape.runLengths(.alnum, of: bytes) & lengths != 0
        case .phone(let digits, let whole): return shape.digits >= digits && (!whole || shape.onlyPhoneBytes)
        case .folded(let search, let digits, let classes):
            return shape.digits >= digits && shape.classes & classes == classes && searches[search].isFound(in: bytes)
        }
    }
}

import MouchardWire

/// The four run lengths of the span scan, 16 bits each in one `UInt64`, and what happens when a
/// run ends (`Lane`): `base64`, the base64 alphabet; `hex`, hex digits; `nameWord`, the bytes
/// that are not ASCII in a name-like word (`isNameWordByte`; the word itself starts at its first
/// byte >= `A`; ASCII words are read by the automaton, see `spanMatcher(variants:nameParts:latitude:)`);
/// `stretch`, digits and phone separators (` `, `-`, `.`, `(`, `)`, `/`, `+`). Digit runs (fixed-point coordinates) have no
/// lane: they are read in the stretch that holds them, when it ends.
/// Lanes stay below `laneTop`, so a lane's length ≥ its threshold T shows as the lane's top bit of
/// `ended + bias` (bias `laneTop` − T; 0 for a lane nobody looks at).
///
/// The base64 lane is read only when its run may be a candidate of the walk's (`base64Candidate`):
/// one holding an upper case letter (`base64Suspect` needs one), or one that `=` ends (padding).
/// Most long runs are neither (paths, snake_case keys in lower case): they end with no event. So
/// the base64 lane keeps its length in `base64Length` and bit 14 (`base64Upper`) says the run
/// holds an upper case letter (an upper case byte clears it in `keep` and adds it back in `add`).
/// Its bias is `base64Upper` − `base64Threshold`: the top bit of `ended + bias` is set exactly for a run of 10 or more with
/// an upper case letter, and `base64Upper` for one of 10 or more without (and for a shorter one with:
/// `laneEvent` reads the length again); `=` tests both bits, every other byte that ends the run
/// the top bit only.
///
/// The hex lane likewise: bit 14 (`hexClean`) says that the hex run starts at the first byte or
/// after a byte that is no glue (`isHexGlue`; the byte before a run sets it or not, in `add`,
/// and hex digits keep it), and its bias is `hexClean` − `hexThreshold`: the top bit of `ended + bias` is set exactly
/// for a clean run of 8 or more. A run after a glue byte has no event: `hexRunMatters` never
/// keeps it (its first test), and nothing else reads it but the stretch lane's test of
/// digits-only stretches, which reads the lane's length itself (`hexRunLength`).
struct SpanLanes {
    /// The four lanes, in the order of their 16 bits in the word (lowest first).
    enum Lane: UInt64, CaseIterable {
        /// Base64 alphabet run: 14 bits of length, bit 14 `base64Upper`.
        case base64 = 0
        /// Hex digit run: 14 bits of length, bit 14 `hexClean`.
        case hex = 1
        /// The bytes that are not ASCII in a name-like word.
        case nameWord = 2
        /// Digits and phone separators.
        case stretch = 3

        /// Where the lane's 16 bits start in the word.
        @inline(__always) var shift: UInt64 { rawValue &* 16 }
        /// `value` (a lane's 16 bits) placed in this lane.
        @inline(__always) func place(_ value: UInt64) -> UInt64 { value << shift }
        /// The lane's top bit: set in `ended + bias` when its run reached its threshold.
        @inline(__always) var top: UInt64 { place(SpanLanes.laneTop) }
        /// The lane's length bits: `base64` and `hex` keep bit 14 for a flag.
        @inline(__always) var lengthBits: UInt64 {
            switch self {
            case .base64: SpanLanes.base64Length
            case .hex: SpanLanes.hexLength
            case .nameWord, .stretch: SpanLanes.laneBits
            }
        }
        /// The lane's length in `word`.
        @inline(__always) func length(in word: UInt64) -> UInt64 { (word >> shift) & lengthBits }
    }

    /// A lane's 16 bits, its top bit (the threshold test) and the bits below it (a run's length
    /// never reaches the top bit: `rebase`).
    static let laneBits: UInt64 = 0xFFFF, laneTop: UInt64 = 0x8000, belowTop: UInt64 = 0x7FFF
    /// The longest threshold a bias encodes (a lane's run is read from that length on).
    static let longestThreshold = 0xFF
    /// A lane longer than `rebaseAbove` is set back to `rebasedLength` at a chunk's end.
    static let rebaseAbove: UInt64 = 0x2000, rebasedLength: UInt64 = 0x100
    /// 1 in each lane, and each lane's top bit.
    static let ones: UInt64 = 0x0001_0001_0001_0001
    static let high: UInt64 = 0x8000_8000_8000_8000
    /// Where each byte's entries start in `spanLaneTable`.
    static let keepEntry = 0, addEntry = 256, stopEntry = 512
    /// The stop entry of a byte with a check of its own: every test of it fires.
    static let checkStop: UInt64 = ~0
    /// Bytes per chunk: a lane grows by at most this much between two `rebase`s.
    static let chunk = Int(rebaseAbove)
    /// The base64 lane's length bits, and its bit for a run holding an upper case letter.
    static let base64Length: UInt64 = 0x3FFF, base64Upper: UInt64 = 0x4000
    /// The shortest base64 run that may be a candidate (12 bytes with two bytes of padding).
    static let base64Threshold: UInt64 = 10
    /// The hex lane's length bits, and its bit for a hex run that starts at the first byte or after a
    /// byte that is no glue (`isHexGlue`), the only runs `hexRunMatters` may keep.
    static let hexLength: UInt64 = 0x3FFF, hexClean: UInt64 = 0x4000
    /// The shortest hex run that may be `hexText` of something (4 bytes).
    static let hexThreshold: UInt64 = 8
    /// The lanes before the first byte: no runs, and a hex run starting there is clean.
    static let start: UInt64 = Lane.hex.place(hexClean)

    let p: UnsafeBufferPointer<UInt8>
    let base: Int
    let bias: UInt64
    /// How the walk may cut the bytes (for the checks of base64 and hex runs).
    let context: SpanContext
    /// Length of each lane's run beyond its value (set by `rebase` for runs longer than a chunk;
    /// not the hex lane's, see `hexRunStart`).
    var extra: (UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0)
    /// Where the last hex run that `rebase` set back started (-1: none). A hex run that a glue
    /// byte ends has no event (`spanLaneTable`): an `extra` of the hex lane would outlive its run and
    /// be added to the next one's length (that run's span lost), so the hex lane keeps a start instead,
    /// read only when the run that ends is that one (`hexRunLength`).
    var hexRunStart = -1
    /// Some `extra` is not 0.
    var extended = false

    /// `namePartLengthBits` as in `KnownValueMatcher`; `namePartLengths` is 0 without name parts.
    /// `bias` from `bias(namePartLengthBits:namePartLengths:coordinates:phones:)` (the matcher's).
    init(_ p: UnsafeBufferPointer<UInt8>, base: Int, bias: UInt64, context: SpanContext) {
        self.p = p
        self.base = base
        self.bias = bias
        self.context = context
    }

    /// The lanes' bias for a profile: `namePartLengthBits` as in `KnownValueMatcher`,
    /// `namePartLengths` 0 without name parts, `latitude` the profile location's.
    static func bias(namePartLengthBits bits: UInt64, namePartLengths: Int, latitude: Double?, phones: Bool) -> UInt64 {
        func lane(_ threshold: Int?, _ lane: Lane) -> UInt64 {
            guard let threshold else { return 0 }
            return lane.place(laneTop - UInt64(min(max(threshold, 1), longestThreshold)))
        }
        // One byte that is not ASCII in a word (ASCII words are matched as patterns).
        let shortestPart: Int? = bits != 0 || namePartLengths != 0 ? 1 : nil
        // A stretch is read for its phone-like runs (8 digits and a separator) and its
        // fixed-point coordinates (`phoneStretchEnded`).
        let stretch = [phones ? 9 : nil, latitude.map(shortestFixedPointCoordinate(latitude:))].compactMap { $0 }.min()
        return Lane.base64.place(base64Upper - base64Threshold) | Lane.hex.place(hexClean - hexThreshold)
            | lane(shortestPart, .nameWord) | lane(stretch, .stretch)
    }

    /// The fewest digits of a run that `phoneStretchEnded` reads as fixed-point degrees near
    /// `latitude` (runs of 6 to 11 digits, `nearScaled`): such a run's value is above
    /// (|latitude| − 0.05) × 10^5 (the smallest scale), less 2 for rounding, and has at least that
    /// number's digits (more with leading zeros). 7 for latitudes from 10.05° on.
    static func shortestFixedPointCoordinate(latitude: Double) -> Int {
        let smallest = (abs(latitude) - 0.05) * 1e5 - 2
        var digits = 1
        var bound = 10.0
        while bound <= smallest, digits < 11 {
            digits += 1
            bound *= 10
        }
        return max(6, digits)
    }

    /// A lane that has grown past `rebaseAbove` is set back to `rebasedLength` (still above every
    /// threshold), the difference kept in `extra` (lanes stay below bit 14). The base64 lane gets
    /// its upper case bit too: its run then ends with an event whatever ends it, which takes the
    /// `extra`. `i` is where the lanes stop (the chunk's end). The hex lane records where its run
    /// started instead, when the run was not set back before (its value is then its length: the
    /// byte before it, if any, is no hex digit), see `hexRunLength`.
    @inline(__always)
    mutating func rebase(_ runs: UInt64, at i: Int) -> UInt64 {
        var runs = runs
        for lane in Lane.allCases {
            let v = lane.length(in: runs)
            if v >= Self.rebaseAbove {
                if lane == .hex {
                    let s = i - Int(v)
                    if s == 0 || hexNibble(p[s - 1]) == nil { hexRunStart = s }
                } else {
                    add(v - Self.rebasedLength, to: lane)
                }
                let kept = switch lane {
                case .base64: Self.base64Upper
                case .hex: runs >> lane.shift & Self.hexClean
                case .nameWord, .stretch: UInt64(0)
                }
                runs = runs & ~lane.place(Self.laneBits) | lane.place(kept | Self.rebasedLength)
            }
        }
        return runs
    }

    private mutating func add(_ d: UInt64, to lane: Lane) {
        extended = true
        switch lane {
        case .base64: extra.0 += d
        case .hex: extra.1 += d
        case .nameWord: extra.2 += d
        case .stretch: extra.3 += d
        }
    }

    /// Length of the hex run that `ended` holds, ending before `i`. Its lane value `v` is its
    /// length unless `rebase` set it back in this run; then the run is longer than `v`, so the
    /// byte before the last `v` is a hex digit, and the run is the one whose start `rebase` kept
    /// (the first time the run was set back its value was its length; a later time, the byte
    /// before the value's bytes was a hex digit and the start was kept). Otherwise that byte is
    /// no hex digit (or there is none) and `v` is the length, whatever run `hexRunStart` was for.
    @inline(__always)
    mutating func hexRunLength(_ ended: UInt64, endingAt i: Int) -> Int {
        let v = Int(Lane.hex.length(in: ended))
        guard hexRunStart >= 0, i - v > 0, hexNibble(p[i - v - 1]) != nil else { return v }
        let length = i - hexRunStart
        hexRunStart = -1
        return length
    }

    /// Length of `lane`'s run that `ended` holds, and no extra any more for that lane (not the
    /// hex lane: `hexRunLength`).
    @inline(__always)
    mutating func take(_ ended: UInt64, _ lane: Lane) -> Int {
        let v = lane.length(in: ended)
        return extended ? Int(v) + takeExtra(lane) : Int(v)
    }

    private mutating func takeExtra(_ lane: Lane) -> Int {
        var d: UInt64 = 0
        switch lane {
        case .base64: d = extra.0; extra.0 = 0
        case .hex: d = extra.1; extra.1 = 0
        case .nameWord: d = extra.2; extra.2 = 0
        case .stretch: d = extra.3; extra.3 = 0
        }
        extended = extra != (0, 0, 0, 0)
        return Int(d)
    }
}

/// Per byte, three entries of `SpanLanes` words (at `keepEntry + byte`, `addEntry + byte`,
/// `stopEntry + byte`): keep, `belowTop` in each lane the byte continues; add, 1 in those lanes
/// (base64 lane: an upper case letter keeps `base64Length` and adds `base64Upper` + 1, see
/// `SpanLanes`); stop, `laneTop` in each lane the byte ends (the bit a lane at its threshold has
/// after the bias; `laneTop | base64Upper` in the base64 lane for `=`), all ones (`checkStop`) for a byte with a check of its own (`\`, `%`, compression
/// magic), so that `(runs + bias) & stop` is not 0 exactly when the byte has something to do
/// (`runs + bias` never is 0: the base64 lane's bias is not). In memory that is never freed (a pointer,
/// not an array: no retain or bounds check in the scan loop). Written once, before first use,
/// then only read.
nonisolated(unsafe) let spanLaneTable: UnsafePointer<UInt64> = {
    let table = UnsafeMutablePointer<UInt64>.allocate(capacity: 3 * 256)
    for v in 0..<256 {
        let b = UInt8(v)
        // The lanes the byte continues (`belowTop` in each).
        var continued: UInt64 = 0
        if ByteCodecs.isBase64Byte(b) { continued |= SpanLanes.Lane.base64.place(SpanLanes.belowTop) }
        if hexNibble(b) != nil { continued |= SpanLanes.Lane.hex.place(SpanLanes.belowTop) }
        if isNameWordByte(b) { continued |= SpanLanes.Lane.nameWord.place(SpanLanes.belowTop) }
        if isStretchByte(b) { continued |= SpanLanes.Lane.stretch.place(SpanLanes.belowTop) }
        let check = hasCheckOfItsOwn(b)
        let upper = b >= UInt8(ascii: "A") && b <= UInt8(ascii: "Z")
        // An upper case letter sets the base64 lane's `base64Upper`: cleared by keep, added back with the length.
        table[SpanLanes.keepEntry + v] = upper ? continued & ~SpanLanes.base64Upper : continued
        // The name-word lane counts a word's bytes that are not ASCII. A byte that is neither hex nor glue
        // sets the hex lane's clean bit for the hex run after it (kept by hex digits).
        let clean = hexNibble(b) == nil && !isHexGlue(b) ? SpanLanes.Lane.hex.place(SpanLanes.hexClean) : 0
        let counted = b >= 0x80 ? ~0 : ~SpanLanes.Lane.nameWord.place(1)
        table[SpanLanes.addEntry + v] = continued & SpanLanes.ones & counted | (upper ? SpanLanes.base64Upper : 0) | clean
        // A hex run that a glue byte ends is no whole value (`hexRunMatters`): no event for it.
        // `=` ends a base64 run that may be a padded candidate with or without upper case letters.
        let glue = isHexGlue(b) ? ~SpanLanes.Lane.hex.top : ~0
        let padding = b == UInt8(ascii: "=") ? SpanLanes.base64Upper : 0
        let ended = ~(continued << 1) & SpanLanes.high & glue | padding
        table[SpanLanes.stopEntry + v] = check ? SpanLanes.checkStop : ended
    }
    return UnsafePointer(table)
}()

/// A byte of a stretch that may hold a phone number or a fixed-point coordinate: digits and
/// ` `, `-`, `.`, `(`, `)`, `/`, `+`.
func isStretchByte(_ b: UInt8) -> Bool {
    switch b {
    case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: " "), UInt8(ascii: "-"), UInt8(ascii: "."),
         UInt8(ascii: "("), UInt8(ascii: ")"), UInt8(ascii: "/"), UInt8(ascii: "+"):
        true
    default:
        false
    }
}

/// A byte with a check of its own (`checkByte`): `\` (JSON escapes), `%` (percent-escapes), the
/// second byte of gzip (0x8B) or zlib (0x01, 0x5E, 0x9C, 0xDA) magic, the second byte of a degree
/// sign `°` or `º` (0xB0, 0xBA after 0xC2: coordinates in degrees-minutes-seconds).
func hasCheckOfItsOwn(_ b: UInt8) -> Bool {
    b == UInt8(ascii: "\\") || b == UInt8(ascii: "%") || b == 0x8B || b == 0x01 || b == 0x5E || b == 0x9C || b == 0xDA
        || b == 0xB0 || b == 0xBA
}

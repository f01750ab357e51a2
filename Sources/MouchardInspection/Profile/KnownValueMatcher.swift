import Foundation
import MouchardCodec
import MouchardFindings

/// Finds the device profile's values in extracted fields, whatever their encoding: every value is
/// expanded once into its variants (case, separators, percent-encoding, hex, base64 at the three
/// byte alignments, MD5/SHA-1/SHA-256 of raw and normalized forms, phone number forms), all
/// searched in one pass per field with a `MultiPatternMatcher`. Phone numbers written with any
/// separators are normalized to digits and looked up; coordinates are compared by distance.
public struct KnownValueMatcher: Sendable {
    /// What one variant stands for.
    public struct Target: Sendable, Hashable {
        public var category: FindingCategory
        public var type: String
        /// How the variant transforms the value.
        public var transform: ValueTransform
        /// The profile value (for masked evidence).
        public var value: String
    }

    /// One hit in a field.
    public struct Hit: Sendable, Hashable {
        public var target: Target
        /// The matched text as it appeared (to be masked before display).
        public var matched: String
        /// Index of `target` in `targets` (nil for phone numbers found by their digits).
        var targetIndex: Int? = nil
    }

    /// The reference-typed tables, in one box: an inspector copies its matcher on every request, and
    /// one reference is one retain (seven arrays and dictionaries were seven, through a generic witness).
    private final class Tables: Sendable {
        let matcher: MultiPatternMatcher
        let targets: [Target]
        /// Each variant as text (same index as `targets`): the evidence of a hit that matched it byte for byte.
        let variantTexts: [String]
        /// Every variant's bytes end to end, variant i at `variantStarts[i]..<variantStarts[i + 1]`:
        /// a hit is compared with its variant without reaching into the matcher's patterns.
        let variantBytes: [UInt8]
        let variantStarts: [Int]
        let phoneDigits: [String: [Target]]
        /// The lengths of `phoneDigits`' keys as a bit set (bit n: some key has n digits, n < 64):
        /// a run whose digits no key can have is not looked up.
        let phoneDigitLengths: UInt64
        let nameParts: [String: [(name: Int, part: Int)]]
        let splitNames: [(target: Target, parts: Int)]
        let namePartLengths: Set<Int>
        let namePartHashes: [UInt64]
        /// Per variant: the whole digest (lower-case hex) when the variant is its first hex digits
        /// (a truncated digest, confirmed by `truncatedDigestEnd`), else empty.
        let truncatedDigests: [[UInt8]]
        /// Spans of header values already scanned (see `HeaderSpanCache`).
        let headerSpans = HeaderSpanCache()
        /// The span scan's automaton: the variants, the name parts and the decimal points of
        /// latitudes (`spanMatcher(variants:nameParts:latitude:)`).
        let spanMatcher: MultiPatternMatcher
        /// The index of `spanMatcher`'s first decimal point pattern (`coordinateDotPatterns`, the last ones).
        let firstCoordinateDotPattern: Int
        init(variants: [MultiPatternMatcher.Pattern], targets: [Target], phoneDigits: [String: [Target]],
             nameParts: [String: [(name: Int, part: Int)]], splitNames: [(target: Target, parts: Int)],
             namePartLengths: Set<Int>, namePartHashes: [UInt64], truncatedDigests: [Int: [UInt8]], latitude: Double?,
             narrowTransitions: Bool) {
            // One automaton for both: the variants' matcher reads the span scan's tables.
            let spanMatcher = KnownValueMatcher.spanMatcher(variants: variants, nameParts: nameParts.keys.sorted(), latitude: latitude,
                                                            narrow: narrowTransitions)
            let matcher = spanMatcher.restricted(toFirst: variants.count)
            self.spanMatcher = spanMatcher
            self.firstCoordinateDotPattern = spanMatcher.patterns.count - KnownValueMatcher.coordinateDotPatterns(latitude: latitude).count
            self.matcher = matcher
            self.targets = targets
            self.variantTexts = matcher.patterns.map { String(decoding: $0.bytes, as: UTF8.self) }
            self.variantBytes = matcher.patterns.flatMap(\.bytes)
            self.variantStarts = matcher.patterns.reduce(into: [0]) { starts, p in starts.append((starts.last ?? 0) + p.bytes.count) }
            self.phoneDigits = phoneDigits
            self.phoneDigitLengths = phoneDigits.keys.reduce(0) { $1.utf8.count < 64 ? $0 | 1 << UInt64($1.utf8.count) : $0 }
            self.nameParts = nameParts
            self.splitNames = splitNames
            self.namePartLengths = namePartLengths
            self.namePartHashes = namePartHashes
            self.truncatedDigests = targets.indices.map { truncatedDigests[$0] ?? [] }
        }
    }
    private let tables: Tables

    public var matcher: MultiPatternMatcher { tables.matcher }
    /// The span scan's automaton (see `spanMatcher(variants:nameParts:latitude:)`).
    var spanMatcher: MultiPatternMatcher { tables.spanMatcher }
    /// The index of the span scan's first decimal point pattern (see `coordinateDotPatterns`).
    var firstCoordinateDotPattern: Int { tables.firstCoordinateDotPattern }
    /// Spans of header values already scanned, shared by every copy of this matcher.
    var headerSpans: HeaderSpanCache { tables.headerSpans }
    public var targets: [Target] { tables.targets }
    /// Each variant as text (same index as `targets`).
    var variantTexts: [String] { tables.variantTexts }
    /// Digit-only phone forms → targets (for numbers written with separators).
    public var phoneDigits: [String: [Target]] { tables.phoneDigits }
    public let location: Coordinate?
    /// Names split over fields (`first_name` + `last_name`): each part (folded, lower case) → (name, part index).
    var nameParts: [String: [(name: Int, part: Int)]] { tables.nameParts }
    /// The split names: their target and how many parts each has.
    var splitNames: [(target: Target, parts: Int)] { tables.splitNames }
    /// Byte lengths of the parts as they may be written (prefilter).
    var namePartLengths: Set<Int> { tables.namePartLengths }
    /// `namePartLengths` as a bit set (bit n: length n, for n < 64): tested per word and per field.
    let namePartLengthBits: UInt64
    /// The first and the last bytes of the folded ASCII name parts, as bit sets (bit `(b | 0x20) & 63`):
    /// the span scan hashes only the words that start and end like some part.
    let namePartEdges: (first: UInt64, last: UInt64)
    /// The folded ASCII name parts' (first byte, last byte, length) as a 64-bit set
    /// (`namePartShapeBit`): a word whose edges each start or end some part, but not the same
    /// part at its length, is not hashed.
    let namePartShapes: UInt64
    /// `SpanLanes.bias` for this profile (the same for every part scanned).
    let spanLaneBias: UInt64
    /// FNV-1a hashes of the folded name parts: words are looked up without building a string
    /// (a profile has a handful of name parts: a linear search beats hashing the hash).
    var namePartHashes: [UInt64] { tables.namePartHashes }
    /// Minimum decimals each coordinate must carry, and the radius in metres.
    public var minimumDecimals = 2
    public var radius = 3000.0

    public init(profile: DeviceProfile) {
        self.init(profile: profile, narrowTransitions: true)
    }

    /// `narrowTransitions` false keeps the automaton's transitions 32 bits wide whatever its size
    /// (tests: the span scan's wide path, which only a profile past 2 MB of rows takes otherwise).
    init(profile: DeviceProfile, narrowTransitions: Bool) {
        var b = VariantBuilder()
        for (type, value) in profile.identifiers {
            b.addIdentifier(value, category: .deviceID, type: type)
        }
        let region = profile.effectiveRegion
        if let name = profile.ownerName {
            b.addName(name, category: .name, type: "name")
            b.addNamePartDigests(name, category: .name, type: "name")
        }
        for e in profile.ownerEmails { b.addEmail(e, category: .email, type: "email") }
        for p in profile.ownerPhones { b.addPhone(p, region: region, category: .phoneNumber, type: "phone") }
        for c in profile.contacts {
            if let n = c.name {
                b.addName(n, category: .contacts, type: "contact-name")
                b.addNamePartDigests(n, category: .contacts, type: "contact-name")
            }
            for e in c.emails { b.addEmail(e, category: .contacts, type: "contact-email") }
            for p in c.phones { b.addPhone(p, region: region, category: .contacts, type: "contact-phone") }
        }
        var parts: [String: [(name: Int, part: Int)]] = [:]
        var split: [(target: Target, parts: Int)] = []
        var lengths = Set<Int>()
        var named: [(String, FindingCategory, String)] = []
        if let n = profile.ownerName { named.append((n, .name, "name")) }
        for c in profile.contacts { if let n = c.name { named.append((n, .contacts, "contact-name")) } }
        for (name, category, type) in named {
            let words = name.split(separator: " ").map(String.init).filter { $0.count >= 2 }
            guard words.count >= 2 else { continue }
            let index = split.count
            split.append((Target(category: category, type: type, transform: .plain, value: name), words.count))
            for (k, w) in words.enumerated() {
                let key = Self.foldName(w)
                parts[key, default: []].append((index, k))
                lengths.insert(w.utf8.count)
                lengths.insert(key.utf8.count)
            }
        }
        self.namePartLengthBits = lengths.reduce(0) { $1 < 64 ? $0 | (1 << UInt64($1)) : $0 }
        var edges: (first: UInt64, last: UInt64) = (0, 0)
        for key in parts.keys {
            guard let f = key.utf8.first, let l = key.utf8.last else { continue }
            edges.first |= 1 << UInt64((f | 0x20) & 63)
            edges.last |= 1 << UInt64((l | 0x20) & 63)
        }
        self.namePartEdges = edges
        self.namePartShapes = parts.keys.reduce(0) { set, key in
            guard let f = key.utf8.first, let l = key.utf8.last else { return set }
            return set | Self.namePartShapeBit(first: f, last: l, length: key.utf8.count)
        }
        self.tables = Tables(variants: b.patterns, targets: b.targets, phoneDigits: b.phoneDigits,
                             nameParts: parts, splitNames: split, namePartLengths: lengths,
                             namePartHashes: parts.keys.map { fnv1a($0.utf8) }, truncatedDigests: b.truncatedDigests,
                             latitude: profile.location?.latitude,
                             narrowTransitions: narrowTransitions)
        self.location = profile.location
        self.spanLaneBias = SpanLanes.bias(namePartLengthBits: namePartLengthBits, namePartLengths: lengths.isEmpty ? 0 : 1,
                                           latitude: profile.location?.latitude, phones: !b.phoneDigits.isEmpty)
    }

    public var patternCount: Int { targets.count }

    /// Every known value in `bytes`.
    public func hits(in bytes: [UInt8]) -> [Hit] { hits(in: bytes[...]) }

    public func hits(in bytes: ArraySlice<UInt8>) -> [Hit] {
        var out: [Hit] = []
        forEachHit(in: bytes) { index, phoneTarget, matched, _ in
            if let index {
                out.append(Hit(target: targets[index], matched: matched, targetIndex: index))
            } else if let phoneTarget {
                out.append(Hit(target: phoneTarget, matched: matched))
            }
        }
        return out
    }

    /// Every known value in `bytes`, in the order of `hits(in:)`, without a `Hit` array: the
    /// target's index in `targets` or, for a phone number found by its digits, the target itself;
    /// the matched text, and whether it is the variant's own text (`variantTexts[index]`, shared,
    /// not built per hit: most hits match their variant byte for byte).
    func forEachHit(in bytes: ArraySlice<UInt8>,
                    _ body: (_ index: Int?, _ phoneTarget: Target?, _ matched: String, _ isVariantText: Bool) -> Void) {
        forEachHit(inEach: [bytes]) { _, index, phoneTarget, matched, isVariantText in body(index, phoneTarget, matched, isVariantText) }
    }

    /// `forEachHit(in:)` over each of `fields`' bytes in turn, `field` saying whose hit it is: the
    /// matcher's tables are read once for all the fields of a request.
    func forEachHit(inFields fields: [ExtractedField],
                    _ body: (_ field: Int, _ index: Int?, _ phoneTarget: Target?, _ matched: String, _ isVariantText: Bool) -> Void) {
        forEachHit(count: fields.count, bytes: { fields[$0].bytes }, body)
    }

    private func forEachHit(inEach values: [ArraySlice<UInt8>],
                            _ body: (_ field: Int, _ index: Int?, _ phoneTarget: Target?, _ matched: String, _ isVariantText: Bool) -> Void) {
        forEachHit(count: values.count, bytes: { values[$0] }, body)
    }

    /// The one loop behind both: values `0..<count`, each read through `bytes`.
    @inline(__always)
    private func forEachHit(count: Int, bytes: (Int) -> ArraySlice<UInt8>,
                            _ body: (_ field: Int, _ index: Int?, _ phoneTarget: Target?, _ matched: String, _ isVariantText: Bool) -> Void) {
        let tables = tables
        let matcher = tables.matcher
        // A phone run has 8 digits and a separator: shorter values hold none.
        let phones = !tables.phoneDigits.isEmpty
        tables.variantBytes.withUnsafeBufferPointer { flat in
            tables.variantStarts.withUnsafeBufferPointer { starts in
                for f in 0..<count {
                    bytes(f).withUnsafeBufferPointer { buf in
                        matcher.forEachMatch(in: buf) { m in
                            var hit = UnsafeBufferPointer(rebasing: buf[m.start..<m.end])
                            let p = m.pattern
                            if p >= 0, p < tables.truncatedDigests.count, !tables.truncatedDigests[p].isEmpty {
                                guard let end = Self.truncatedDigestEnd(buf, start: m.start, digest: tables.truncatedDigests[p]) else { return }
                                hit = UnsafeBufferPointer(rebasing: buf[m.start..<end])
                            }
                            let own = p >= 0 && p + 1 < starts.count ? UnsafeBufferPointer(rebasing: flat[starts[p]..<starts[p + 1]]) : nil
                            if let own, sameBytes(own, hit) {
                                body(f, p, nil, tables.variantTexts[p], true)
                            } else {
                                body(f, p, nil, String(decoding: hit, as: UTF8.self), false)
                            }
                        }
                        guard phones, buf.count >= 9 else { return }
                        phoneRuns(buf) { start, last, targets in
                            let text = String(decoding: UnsafeBufferPointer(rebasing: buf[start...last]), as: UTF8.self)
                            for t in targets { body(f, nil, t, text, false) }
                        }
                    }
                }
            }
        }
    }

    /// Where a truncated digest that starts at `start` (a match of its first hex digits) ends: the
    /// hex run from there must be a prefix of `digest` (any case), shorter than it (the whole
    /// digest is a variant of its own), and stand between word boundaries. Nil otherwise.
    static func truncatedDigestEnd(_ buf: UnsafeBufferPointer<UInt8>, start: Int, digest: [UInt8]) -> Int? {
        if start > 0, isASCIIAlnum(buf[start - 1]) { return nil }
        var k = 0
        while start + k < buf.count, k < digest.count, buf[start + k] | 0x20 == digest[k] { k += 1 }
        let end = start + k
        guard k >= VariantBuilder.minTruncatedDigest, k < digest.count, end >= buf.count || !isASCIIAlnum(buf[end]) else { return nil }
        return end
    }

    /// Runs of digits with phone separators (`+33 (0)6 12-34.56 78`), normalized to digits.
    func phoneHits(_ slice: ArraySlice<UInt8>, into out: inout [Hit]) {
        slice.withUnsafeBufferPointer { phoneHits($0, into: &out) }
    }

    func phoneHits(_ bytes: UnsafeBufferPointer<UInt8>, into out: inout [Hit]) {
        phoneRuns(bytes) { start, last, targets in
            let text = String(decoding: UnsafeBufferPointer(rebasing: bytes[start...last]), as: UTF8.self)
            for t in targets { out.append(Hit(target: t, matched: text)) }
        }
    }

    /// Each run of digits and separators that normalizes to a profile phone number: its first and
    /// last byte index and the targets it stands for. A run starts at a digit, `+` or `(` that does
    /// not follow a letter or digit (after `+` or `(` that does, the letters and digits that follow
    /// are skipped too); reading resumes where a run stops.
    /// `from` and `to` read only the runs that start in that range (the span scan reads each
    /// stretch of digits and separators on its own: how a stretch is read does not depend on what
    /// comes before the byte before it).
    func phoneRuns(_ bytes: UnsafeBufferPointer<UInt8>, from: Int = 0, to: Int? = nil,
                   _ found: (_ start: Int, _ last: Int, _ targets: [Target]) -> Void) {
        var i = from
        let n = to ?? bytes.count
        let table = phoneRunClasses
        while i < n {
            let c = table[Int(bytes[i])]
            guard c & PhoneRunClass.starter != 0 else {
                // A letter, and the letters and digits after it, start no run: passed over together.
                i = c & PhoneRunClass.alnum != 0 ? Self.endOfAlnumRun(bytes, from: i + 1) : i + 1
                continue
            }
            if i > 0, table[Int(bytes[i - 1])] & PhoneRunClass.alnum != 0 {
                i = Self.endOfAlnumRun(bytes, from: i + 1)
                continue
            }
            let run = phoneRun(bytes, from: i)
            if let targets = run.targets { found(i, run.last, targets) }
            i = run.end
        }
    }

    /// The first index from `i` on that is not an ASCII letter or digit.
    static func endOfAlnumRun(_ bytes: UnsafeBufferPointer<UInt8>, from i: Int) -> Int {
        var i = i
        let table = phoneRunClasses
        while i < bytes.count, table[Int(bytes[i])] & PhoneRunClass.alnum != 0 { i += 1 }
        return i
    }

    /// The run of `phoneRuns` that starts at `start`: where reading stops (the first byte that is
    /// neither a digit nor a separator, or the one after a 17th digit), the index of its last digit,
    /// and the targets its digits stand for (nil when none).
    func phoneRun(_ bytes: UnsafeBufferPointer<UInt8>, from start: Int) -> (end: Int, last: Int, targets: [Target]?) {
        let n = bytes.count
        // Digits are counted here and collected only for a candidate (no allocation per run).
        var i = start
        var digitCount = 0
        var separators = 0
        var last = start
        while i < n, digitCount <= 16 {
            let c = bytes[i]
            if c >= 0x30 && c <= 0x39 { digitCount += 1; last = i } else if c == 0x20 || c == 0x2D || c == 0x2E || c == 0x28 || c == 0x29 || c == 0x2F || (c == 0x2B && i == start) {
                separators += 1
            } else { break }
            i += 1
        }
        guard digitCount >= 8, separators > 0, i >= n || !isASCIIAlnum(bytes[i]) else { return (i, last, nil) }
        return (i, last, phoneTargets(UnsafeBufferPointer(rebasing: bytes[start..<i]), digitCount: digitCount))
    }

    /// The targets of the (at most 17) digits of `run`, or, failing that, of the digits without
    /// their first 0 when it is one of the first four (`+33 (0)6 …`: a trunk 0 written after the
    /// country code). Keys of up to 15 digits are small strings: no allocation.
    private func phoneTargets(_ run: UnsafeBufferPointer<UInt8>, digitCount: Int) -> [Target]? {
        // No key has this many digits, nor one less (a dropped trunk 0): nothing to look up.
        let lengths = tables.phoneDigitLengths
        let whole = digitCount < 64 && lengths & (1 << UInt64(digitCount)) != 0
        let dropped = digitCount >= 1 && digitCount <= 64 && lengths & (1 << UInt64(digitCount - 1)) != 0
        guard whole || dropped else { return nil }
        return withUnsafeTemporaryAllocation(of: UInt8.self, capacity: digitCount) { digits in
            var k = 0
            for c in run where c >= 0x30 && c <= 0x39 { digits[k] = c; k += 1 }
            if whole, let t = phoneDigits[String(decoding: digits, as: UTF8.self)] { return t }
            guard dropped, let zero = digits.prefix(4).firstIndex(of: 0x30) else { return nil }
            let key = String(decoding: digits[..<zero], as: UTF8.self) + String(decoding: digits[(zero + 1)...], as: UTF8.self)
            return phoneDigits[key]
        }
    }

    /// The bit of `namePartShapes` for a word with these first and last bytes (any ASCII case) and length.
    @inline(__always)
    static func namePartShapeBit(first: UInt8, last: UInt8, length: Int) -> UInt64 {
        let k = (UInt64((first | 0x20) & 63) &* 5 &+ UInt64((last | 0x20) & 63) &* 3 &+ UInt64(truncatingIfNeeded: length)) & 63
        return 1 << k
    }

    /// Some name part may be written with `n` bytes.
    @inline(__always)
    func hasNamePartLength(_ n: Int) -> Bool {
        n < 64 ? namePartLengthBits & (1 << UInt64(n)) != 0 : namePartLengths.contains(n)
    }

    /// Lower case without accents, for comparing name parts.
    static func foldName(_ s: String) -> String {
        var text = s
        if let ascii = text.withUTF8({ foldASCIIName($0) }) { return ascii }
        return s.folding(options: [.diacriticInsensitive, .caseInsensitive], locale: nil).lowercased().trimmingASCIISpaces()
    }

    /// `foldName` of ASCII text without carriage returns (nearly every field), on bytes: lower
    /// case, spaces, tabs and newlines trimmed. Nil for other text.
    static func foldASCIIName(_ bytes: UnsafeBufferPointer<UInt8>) -> String? {
        var s = 0, e = bytes.count
        for b in bytes where b >= 0x80 || b == 0x0D { return nil }
        while s < e, bytes[s] == 0x20 || bytes[s] == 0x09 || bytes[s] == 0x0A { s += 1 }
        while e > s, bytes[e - 1] == 0x20 || bytes[e - 1] == 0x09 || bytes[e - 1] == 0x0A { e -= 1 }
        return String(unsafeUninitializedCapacity: e - s) { out in
            for i in s..<e { out[i - s] = foldASCII(bytes[i]) }
            return e - s
        }
    }

    /// Names whose every part is the whole value of some field of the request (`first_name`,
    /// `last_name`): (target, the field holding the last part, the text seen).
    public func splitNameHits(_ fields: [ExtractedField]) -> [(Target, FieldOrigin, String)] {
        guard !splitNames.isEmpty else { return [] }
        var seen: [Int: [Int: FieldOrigin]] = [:]
        // By index: the few fields of a name part's length are read, the others not even copied.
        for i in fields.indices where !fields[i].isNumber && hasNamePartLength(fields[i].bytes.count) {
            let bytes = fields[i].bytes
            guard !bytes.contains(where: { $0 >= 0x30 && $0 <= 0x39 }) else { continue }
            let key = bytes.withUnsafeBufferPointer { Self.foldASCIIName($0) } ?? Self.foldName(String(decoding: bytes, as: UTF8.self))
            for (name, part) in nameParts[key] ?? [] where seen[name]?[part] == nil {
                seen[name, default: [:]][part] = fields[i].origin
            }
        }
        guard !seen.isEmpty else { return [] }
        var out: [(Target, FieldOrigin, String)] = []
        // In profile order (a dictionary's order changes from run to run: findings must not).
        for (name, parts) in seen.sorted(by: { $0.key < $1.key }) where parts.count == splitNames[name].parts {
            // Parts must come from different fields (a value "Jean Jean" is one field).
            let places = Set(parts.values.map { "\($0.location)|\($0.inner ?? "")" })
            guard places.count == parts.count, let origin = parts[splitNames[name].parts - 1] else { continue }
            out.append((splitNames[name].target, origin, splitNames[name].target.value))
        }
        return out
    }

    /// True when (a, b) as (latitude, longitude) lies within the radius of the profile location.
    public func isNearProfile(latitude: Double, longitude: Double) -> Bool {
        guard let location, (-90...90).contains(latitude), (-180...180).contains(longitude) else { return false }
        // A great circle is never shorter than its latitude difference (6,371 km x pi / 180, some
        // 111.2 km a degree): a point that far off by latitude alone is answered without the
        // trigonometry (most candidate pairs: swapped coordinates, other numbers side by side).
        // 111 km a degree and 1% to spare keep the answer the haversine's despite its rounding.
        if abs(latitude - location.latitude) * 111_000 > radius * 1.01 { return false }
        return location.distance(to: Coordinate(latitude: latitude, longitude: longitude)) <= radius
    }
}

/// What `phoneRuns` notes of a byte: bits of `phoneRunClasses`.
private enum PhoneRunClass {
    /// May start a run: an ASCII digit, `+` or `(`.
    static let starter: UInt8 = 1
    /// An ASCII letter or digit (`isASCIIAlnum`).
    static let alnum: UInt8 = 2
}

/// `PhoneRunClass` bits of every byte (a pointer: no retain or bounds check in the scans; never
/// freed, written once before first use, then only read).
nonisolated(unsafe) private let phoneRunClasses: UnsafePointer<UInt8> = {
    let table = UnsafeMutablePointer<UInt8>.allocate(capacity: 256)
    for v in 0..<256 {
        let b = UInt8(v)
        var c: UInt8 = 0
        if b == 0x2B || b == 0x28 || (b >= 0x30 && b <= 0x39) { c |= PhoneRunClass.starter }
        if isASCIIAlnum(b) { c |= PhoneRunClass.alnum }
        table[v] = c
    }
    return UnsafePointer(table)
}()

/// Expands profile values into matcher patterns.
private struct VariantBuilder {
    var patterns: [MultiPatternMatcher.Pattern] = []
    var targets: [KnownValueMatcher.Target] = []
    var phoneDigits: [String: [KnownValueMatcher.Target]] = [:]
    var seen: Set<String> = []
    /// Pattern index of a truncated digest's first hex digits → the whole digest in lower-case hex.
    var truncatedDigests: [Int: [UInt8]] = [:]

    /// Shortest identifier form matched without word boundaries (`addForms`' `gluedForms`).
    static let minGluedLength = 16
    /// Hex digits of a digest's prefix matched as a truncated digest.
    static let minTruncatedDigest = 16

    @discardableResult
    mutating func add(_ text: String, _ target: KnownValueMatcher.Target, caseSensitive: Bool = false, boundary: Bool = true) -> Bool {
        let bytes = Array(text.utf8)
        guard bytes.count >= 5 else { return false }
        let key = "\(caseSensitive ? text : text.lowercased())|\(target.category)|\(target.type)"
        guard seen.insert(key).inserted else { return false }
        patterns.append(.init(bytes: bytes, caseSensitive: caseSensitive, wordBoundary: boundary))
        targets.append(target)
        return true
    }

    func target(_ c: FindingCategory, _ t: String, _ transform: ValueTransform, _ v: String) -> KnownValueMatcher.Target {
        .init(category: c, type: t, transform: transform, value: v)
    }

    /// Plain, percent-encoded, hex and base64 forms of each written form, and digests of each
    /// (written and case-normalized) form.
    mutating func addForms(_ forms: [String], digestForms: [String], category: FindingCategory, type: String, value: String,
                           gluedForms: Bool = false) {
        for f in forms {
            // An identifier of 16 characters or more with letters is found glued to a prefix too
            // (`AND<android id>`, `__g<ad id without dashes>`): no other value holds it by chance.
            let glued = gluedForms && f.utf8.count >= VariantBuilder.minGluedLength && f.contains(where: \.isLetter)
            add(f, target(category, type, .plain, value), boundary: !glued)
            let pe = String(decoding: ByteCodecs.percentEncode(Array(f.utf8)), as: UTF8.self)
            if pe != f {
                add(pe, target(category, type, .url, value))
                add(pe.replacingOccurrences(of: "%20", with: "+"), target(category, type, .url, value))
            }
            add(String(decoding: ByteCodecs.hexEncode(Array(f.utf8)), as: UTF8.self), target(category, type, .hex, value))
            for b64 in base64Alignments(Array(f.utf8)) {
                add(b64, target(category, type, .base64, value), caseSensitive: true, boundary: false)
                let url = b64.replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
                if url != b64 { add(url, target(category, type, .base64, value), caseSensitive: true, boundary: false) }
            }
        }
        for f in digestForms {
            for alg in DigestAlgorithm.allCases {
                let d = alg.digest(Array(f.utf8))
                let hex = hexString(d)
                add(hex, target(category, type, .digest(alg), value))
                // Its first 16 hex digits, confirmed as the start of a longer prefix of the digest
                // (`truncatedDigests`): discovery lists and ids send truncated hashes.
                if add(String(hex.prefix(VariantBuilder.minTruncatedDigest)), target(category, type, .truncatedDigest(alg), value),
                       boundary: false) {
                    truncatedDigests[patterns.count - 1] = Array(hex.utf8)
                }
                let b64 = String(decoding: ByteCodecs.base64Encode(d), as: UTF8.self)
                add(String(b64.prefix(while: { $0 != "=" })), target(category, type, .digestInBase64(alg), value), caseSensitive: true, boundary: false)
            }
        }
    }

    /// The base64 characters that depend only on `bytes` when it starts at byte offset 0, 1 or 2
    /// of a longer base64-encoded text.
    func base64Alignments(_ bytes: [UInt8]) -> [String] {
        guard bytes.count >= 6 else { return [] }
        var out: [String] = []
        for k in 0..<3 {
            let padded = [UInt8](repeating: 0, count: k) + bytes
            let enc = Array(ByteCodecs.base64Encode(padded).prefix(while: { $0 != 0x3D }))
            let start = (8 * k + 5) / 6
            let end = (8 * (k + bytes.count)) / 6
            guard end - start >= 8, end <= enc.count else { continue }
            out.append(String(decoding: enc[start..<end], as: UTF8.self))
        }
        return out
    }

    mutating func addIdentifier(_ raw: String, category: FindingCategory, type: String) {
        let v = raw.trimmingASCIISpaces()
        let stripped = v.filter { $0 != "-" && $0 != ":" && $0 != " " && $0 != "." }
        var forms = [v, stripped]
        if type.contains("mac"), stripped.count == 12 {
            var pairs: [String] = []
            var s = Substring(stripped)
            while !s.isEmpty { pairs.append(String(s.prefix(2))); s = s.dropFirst(2) }
            forms.append(pairs.joined(separator: ":"))
            forms.append(pairs.joined(separator: "-"))
        }
        if type == "imei" || type == "imeisv" || type == "meid", stripped.count == 15, stripped.allSatisfy(\.isNumber) {
            forms.append(String(stripped.prefix(14)))
        }
        let unique = Array(Set(forms)).sorted()
        var digestForms: [String] = []
        for f in unique { digestForms += [f, f.lowercased(), f.uppercased()] }
        addForms(unique, digestForms: Array(Set(digestForms)).sorted(), category: category, type: type, value: v, gluedForms: true)
    }

    mutating func addEmail(_ raw: String, category: FindingCategory, type: String) {
        let v = raw.trimmingASCIISpaces()
        let lower = v.lowercased()
        addForms(Array(Set([v, lower])).sorted(), digestForms: Array(Set([raw, v, lower])).sorted(), category: category, type: type, value: v)
    }

    mutating func addName(_ raw: String, category: FindingCategory, type: String) {
        let v = raw.trimmingASCIISpaces()
        guard v.count >= 5 else { return }
        let folded = v.folding(options: [.diacriticInsensitive], locale: nil)
        var forms = [v, folded]
        // Decomposed accents (NFD) as some platforms send them.
        forms.append(v.decomposedStringWithCanonicalMapping)
        let lower = v.lowercased()
        addForms(Array(Set(forms)).sorted(), digestForms: Array(Set([v, lower, folded.lowercased()])).sorted(),
                 category: category, type: type, value: v)
    }

    /// Digests of each part of a name (first and last name hashed apart, as advanced-matching
    /// APIs send them: lower case, accents kept or folded).
    mutating func addNamePartDigests(_ raw: String, category: FindingCategory, type: String) {
        let v = raw.trimmingASCIISpaces()
        let words = v.split(separator: " ").map(String.init).filter { $0.count >= 2 }
        guard words.count >= 2 else { return }
        var forms: [String] = []
        for w in words {
            forms.append(w.lowercased())
            forms.append(w.folding(options: [.diacriticInsensitive, .caseInsensitive], locale: nil).lowercased())
        }
        for f in Array(Set(forms)).sorted() {
            for alg in DigestAlgorithm.allCases {
                add(hexString(alg.digest(Array(f.utf8))), target(category, type, .digest(alg), v))
            }
        }
    }

    mutating func addPhone(_ raw: String, region: String?, category: FindingCategory, type: String) {
        let t = target(category, type, .plain, raw)
        guard let e164 = PhoneNumbers.e164Digits(raw, region: region) else {
            // Unknown plan: match the digits as written.
            let d = PhoneNumbers.digits(raw)
            if d.count >= 8 { phoneDigits[d, default: []].append(t); addForms([d], digestForms: [d], category: category, type: type, value: raw) }
            return
        }
        let digitForms = PhoneNumbers.digitForms(e164: e164)
        for d in digitForms { phoneDigits[d, default: []].append(t) }
        var forms = ["+" + e164] + digitForms
        forms.append(raw.trimmingASCIISpaces())
        let national = digitForms.count > 2 ? digitForms[2] : e164
        addForms(Array(Set(forms)).sorted(), digestForms: Array(Set(["+" + e164, e164, national, "00" + e164] + digitForms)).sorted(),
                 category: category, type: type, value: raw)
    }
}

/// The same bytes in both buffers.
@inline(__always)
private func sameBytes(_ a: UnsafeBufferPointer<UInt8>, _ b: UnsafeBufferPointer<UInt8>) -> Bool {
    guard a.count == b.count else { return false }
    let n = a.count
    guard n > 0, let pa = a.baseAddress, let pb = b.baseAddress else { return n == 0 }
    // Eight bytes at a time, then the tail.
    var i = 0
    while i + 8 <= n {
        if UnsafeRawPointer(pa + i).loadUnaligned(as: UInt64.self) != UnsafeRawPointer(pb + i).loadUnaligned(as: UInt64.self) { return false }
        i += 8
    }
    while i < n {
        if pa[i] != pb[i] { return false }
        i += 1
    }
    return true
}

/// FNV-1a over bytes (name-part lookups by hash).
@inline(__always)
func fnv1a<S: Sequence>(_ bytes: S) -> UInt64 where S.Element == UInt8 {
    var h: UInt64 = 0xcbf2_9ce4_8422_2325
    for b in bytes { h = (h ^ UInt64(b)) &* 0x100_0000_01b3 }
    return h
}

import Foundation
import MouchardWire

/// Pattern mode (no device profile): finds values shaped like user data (UUIDs, IMEIs, MACs,
/// phone numbers, e-mails...) with byte-level scanners, validates them (Luhn, ranges, country
/// plans), drops known non-identifiers, and weighs the key names around them.
///
/// Made once per inspector: the rules' key hints are resolved once per distinct key pair
/// (`KeyVocabulary`) and each rule's shape is read into what a field must have for it
/// (`ShapeNeed`), so a field costs a cache look-up and one pass over its bytes (`ValueShape`);
/// only the rules its names and its shape allow are scanned for.
struct PatternDetector: Sendable {
    let rules: [PatternRule]
    private let vocabulary: KeyVocabulary
    /// The regex prefilters of `ShapeNeed.folded`.
    private let searches: [FoldedKeySearch]
    /// The location rules, read from number groups rather than fields.
    private let locationRules: [PatternRule]

    init(rules: RuleSet) {
        self.rules = rules.rules
        var searches: [FoldedKeySearch] = []
        let needs = rules.rules.map { ShapeNeed($0, searches: &searches) }
        self.searches = searches
        vocabulary = KeyVocabulary(rules.rules, needs: needs, places: rules.rules.map { FieldPlace.bits(of: $0.places) }) {
            $0.category == .location
        }
        locationRules = rules.rules.filter { $0.category == .location }
    }

    func detect(_ extracted: FieldExtractor.Result, into out: inout DetectionSet) {
        // The rules are read through a buffer pointer: `rules[index]` of the array copies the
        // rule (its strings, sets and arrays retained) for each field it is tried on.
        rules.withUnsafeBufferPointer { rules in
            extracted.fields.withUnsafeBufferPointer { fields in detect(fields, path: extracted.pathBytes, rules: rules, into: &out) }
        }
        for group in extracted.groups {
            detectCoordinates(group, into: &out)
        }
    }

    /// The fields' detections. Fields and rules are read in place through buffer pointers:
    /// `for field in fields` and `rules[index]` of the arrays copy each one (its strings and
    /// arrays retained, then released) for every field and every rule tried on it.
    private func detect(_ fields: UnsafeBufferPointer<ExtractedField>, path: ArraySlice<UInt8>, rules: UnsafeBufferPointer<PatternRule>,
                        into out: inout DetectionSet) {
        // The URL path's key, read when a rule with path hints is first reached.
        var pathName: KeyName?
        for i in fields.indices {
            let candidates = vocabulary.candidates(key: fields[i].origin.key, parent: fields[i].origin.parentKey)
            guard !candidates.isEmpty else { continue }
            let place = FieldPlace.bit(of: fields[i].origin.location)
            var shape: ValueShape?
            for candidate in candidates {
                guard candidate.places == 0 || candidate.places & place != 0 else { continue }
                let index = candidate.rule
                var url = 0.0
                if candidate.readsPath {
                    if pathName == nil { pathName = KeyName(tokens: keyTokens(String(decoding: path, as: UTF8.self))) }
                    url = PatternRule.pathScore(rules[index].pathKeys, pathName!)
                }
                let keyScore = candidate.lead + url + candidate.penalty
                // Even a perfect candidate could not reach the threshold (checked when the key was
                // resolved for the rules without path hints).
                guard !candidate.readsPath || keyScore + max(0, rules[index].uppercaseWeight) >= rules[index].threshold else { continue }
                if shape == nil { shape = ValueShape(fields[i].bytes) }
                guard candidate.need.mayMatch(&shape!, bytes: fields[i].bytes, searches: searches) else { continue }
                detect(rules[index], keyScore: keyScore, in: fields[i], into: &out)
            }
        }
    }

    /// One rule against one field: its best-scoring valid candidate, if any.
    func detect(_ rule: PatternRule, keyScore: Double, in field: ExtractedField, into out: inout DetectionSet) {
        let whole = trimSpace(field.bytes)
        for candidate in candidates(rule, field.bytes) {
            var score = keyScore
            if rule.uppercaseWeight != 0, candidate.contains(where: { $0 >= 0x41 && $0 <= 0x5A }),
               !candidate.contains(where: { $0 >= 0x61 && $0 <= 0x7A }) {
                score += rule.uppercaseWeight
            }
            if candidate.count != whole.count, !isTypedIdentifier(candidate, in: whole) { score += rule.embeddedWeight }
            guard score >= rule.threshold, mayPassNameValidators(rule, candidate) else { continue }
            let text = String(decoding: candidate, as: UTF8.self)
            guard valid(rule, text) else { continue }
            out.add(Detection(category: rule.category, type: rule.type, origin: field.origin,
                              encoding: field.origin.encodingChain(), evidence: text, rule: rule.id,
                              confidence: min(1, score), severity: rule.severity,
                              what: describe(category: rule.category, type: rule.type)))
            return
        }
    }

    /// False when `rule` wants a name (`name-word`, `person-name`) and `candidate`'s first word
    /// starts with a lower-case ASCII letter, a digit or `_` (event names such as `app_open`): the
    /// validators would turn it down, and it is not made text for them.
    func mayPassNameValidators(_ rule: PatternRule, _ candidate: ArraySlice<UInt8>) -> Bool {
        guard rule.validators.contains(where: { $0 == .nameWord || $0 == .personName }),
              let first = candidate.first(where: { $0 != 0x20 }) else { return true }
        return !((first >= 0x61 && first <= 0x7A) || (first >= 0x30 && first <= 0x39) || first == 0x5F)
    }

    /// `candidate` is the rest of `whole` after a short type label and a colon (`$device:<IDFV>`,
    /// `ifa:<IDFA>`, `gaid:<id>`): the value is the identifier, named by its label, not free text.
    func isTypedIdentifier(_ candidate: ArraySlice<UInt8>, in whole: ArraySlice<UInt8>) -> Bool {
        guard candidate.endIndex == whole.endIndex, candidate.startIndex > whole.startIndex,
              whole[candidate.startIndex - 1] == UInt8(ascii: ":") else { return false }
        let label = whole[whole.startIndex..<(candidate.startIndex - 1)]
        return (1...Self.typeLabelLength).contains(label.count)
            && label.allSatisfy { isASCIIAlnum($0) || $0 == UInt8(ascii: "$") || $0 == UInt8(ascii: "_") || $0 == UInt8(ascii: "-") }
    }

    /// Longest type label of a typed identifier (`$device`, `advertising_id`).
    static let typeLabelLength = 16

    // MARK: location

    /// A coordinate pair without a profile: two numbers with ≥ 2 decimals in latitude/longitude
    /// ranges, under latitude/longitude-like keys, or one string under a location-like key.
    func detectCoordinates(_ group: NumberGroup, into out: inout DetectionSet) {
        for rule in locationRules {
            let minDecimals = rule.minLength > 1 ? rule.minLength : 2
            for (a, b) in group.candidatePairs() {
                guard a.decimals >= minDecimals, b.decimals >= minDecimals, abs(a.value) <= 90, abs(b.value) <= 180,
                      !(a.value == 0 && b.value == 0) else { continue }
                var score: Double
                if group.fromOneString {
                    score = rule.score(key: group.containerKey, parentKey: "")
                    if group.marked { score = max(score, rule.threshold) } // hemisphere letters, degree signs
                    // A URL path segment that is exactly two precise numbers (`/forecast/47.0810,2.3988`)
                    // is a coordinate pair by its structure, whatever segment precedes it.
                    if group.prefix == "url", group.members.count == 2, a.decimals >= Self.pathPairDecimals,
                       b.decimals >= Self.pathPairDecimals {
                        score = max(score, rule.threshold)
                    }
                } else {
                    let latHint = keyTokens(a.key), lonHint = keyTokens(b.key)
                    guard isLatitudeKey(latHint), isLongitudeKey(lonHint) else { continue }
                    score = 1.0
                }
                guard score >= rule.threshold else { continue }
                out.add(Detection.coordinates(group: group, a, b, rule: rule.id, confidence: min(1, score)))
            }
        }
    }

    /// Decimals each number of a bare path-segment pair needs (about 100 m; versions and prices have fewer).
    static let pathPairDecimals = 3

    func isLatitudeKey(_ tokens: [String]) -> Bool { tokens.contains { $0 == "lat" || $0 == "latitude" } }
    func isLongitudeKey(_ tokens: [String]) -> Bool { tokens.contains { $0 == "lon" || $0 == "lng" || $0 == "long" || $0 == "longitude" } }

    // MARK: candidates

    func candidates(_ rule: PatternRule, _ bytes: ArraySlice<UInt8>) -> [ArraySlice<UInt8>] {
        let all = bytes
        if rule.wholeValue {
            let t = trimSpace(all)
            guard lengthOK(rule, t.count) else { return [] }
            switch rule.shape {
            case .text: return [t]
            case .token: return t.allSatisfy({ isASCIIAlnum($0) || $0 == 0x2D || $0 == 0x5F }) ? [t] : []
            default: return scan(rule, t).filter { $0.count == t.count }
            }
        }
        return scan(rule, all)
    }

    func lengthOK(_ rule: PatternRule, _ n: Int) -> Bool {
        if !rule.lengths.isEmpty { return rule.lengths.contains(n) }
        return n >= rule.minLength && n <= rule.maxLength
    }

    func scan(_ rule: PatternRule, _ b: ArraySlice<UInt8>) -> [ArraySlice<UInt8>] {
        switch rule.shape {
        case .uuid: return runs(b, where: { hexNibble($0) != nil || $0 == 0x2D }).filter(isUUID)
        case .hex: return runs(b, where: { hexNibble($0) != nil }).filter { lengthOK(rule, $0.count) && $0.contains(where: { $0 > 0x39 }) }
        case .digits: return runs(b, where: { $0 >= 0x30 && $0 <= 0x39 }).filter { lengthOK(rule, $0.count) }
        case .mac: return runs(b, where: { hexNibble($0) != nil || $0 == 0x3A || $0 == 0x2D }).filter(isMAC)
        case .email: return emails(b)
        case .phone: return phones(b)
        case .token: return runs(b, where: { isASCIIAlnum($0) }).filter { lengthOK(rule, $0.count) }
        case .text: return lengthOK(rule, b.count) ? [b] : []
        case .decimal: return []
        case .regex(let box):
            guard lengthOK(rule, b.count) || rule.lengths.isEmpty else { return [] }
            if !rule.prefilter.isEmpty, findSubsequence(ArraySlice(b.map { foldASCII($0) }), rule.prefilter) == nil { return [] }
            let s = String(decoding: b, as: UTF8.self)
            let ns = s as NSString
            return box.regex.matches(in: s, range: NSRange(location: 0, length: ns.length)).prefix(8).map {
                Array(ns.substring(with: $0.range).utf8)[...]
            }
        }
    }

    /// Maximal runs of bytes satisfying `inRun`, bounded by non-alphanumerics.
    func runs(_ b: ArraySlice<UInt8>, where inRun: (UInt8) -> Bool) -> [ArraySlice<UInt8>] {
        var out: [ArraySlice<UInt8>] = []
        var i = b.startIndex
        while i < b.endIndex, out.count < 64 {
            guard inRun(b[i]) else { i += 1; continue }
            let start = i
            while i < b.endIndex, inRun(b[i]) { i += 1 }
            let before = start > b.startIndex ? b[start - 1] : 0x20
            let after = i < b.endIndex ? b[i] : 0x20
            if !isASCIIAlnum(before), !isASCIIAlnum(after) { out.append(b[start..<i]) }
            while i < b.endIndex, isASCIIAlnum(b[i]) { i += 1 }
        }
        return out
    }

    func isUUID(_ s: ArraySlice<UInt8>) -> Bool {
        guard s.count == 36 else { return false }
        for (k, c) in s.enumerated() {
            if k == 8 || k == 13 || k == 18 || k == 23 { if c != 0x2D { return false } } else if hexNibble(c) == nil { return false }
        }
        return true
    }

    func isMAC(_ s: ArraySlice<UInt8>) -> Bool {
        guard s.count == 17 else { return false }
        let sep = s[s.startIndex + 2]
        guard sep == 0x3A || sep == 0x2D else { return false }
        for (k, c) in s.enumerated() {
            if k % 3 == 2 { if c != sep { return false } } else if hexNibble(c) == nil { return false }
        }
        return true
    }

    func emails(_ b: ArraySlice<UInt8>) -> [ArraySlice<UInt8>] {
        var out: [ArraySlice<UInt8>] = []
        func local(_ c: UInt8) -> Bool { isASCIIAlnum(c) || c == 0x2E || c == 0x5F || c == 0x2D || c == 0x2B || c == 0x25 }
        func domain(_ c: UInt8) -> Bool { isASCIIAlnum(c) || c == 0x2E || c == 0x2D }
        var i = b.startIndex
        while i < b.endIndex, out.count < 16 {
            guard b[i] == 0x40 else { i += 1; continue }
            var s = i
            while s > b.startIndex, local(b[s - 1]) { s -= 1 }
            var e = i + 1
            while e < b.endIndex, domain(b[e]) { e += 1 }
            while e > i + 1, b[e - 1] == 0x2E { e -= 1 }
            let dom = b[(i + 1)..<e]
            if s < i, let dot = dom.lastIndex(of: 0x2E), dom.endIndex - dot >= 3, dot > dom.startIndex {
                out.append(b[s..<e])
            }
            i = e
        }
        return out
    }

    /// Phone-shaped runs: `+` or digits with separators, 8 to 15 digits.
    func phones(_ b: ArraySlice<UInt8>) -> [ArraySlice<UInt8>] {
        var out: [ArraySlice<UInt8>] = []
        var i = b.startIndex
        while i < b.endIndex, out.count < 16 {
            let c = b[i]
            guard c == 0x2B || (c >= 0x30 && c <= 0x39) else { i += 1; continue }
            if i > b.startIndex, isASCIIAlnum(b[i - 1]) || b[i - 1] == 0x2E { i += 1; while i < b.endIndex, isASCIIAlnum(b[i]) { i += 1 }; continue }
            let start = i
            var digits = 0
            var last = i
            while i < b.endIndex {
                let d = b[i]
                if d >= 0x30 && d <= 0x39 { digits += 1; last = i } else if !(d == 0x20 || d == 0x2D || d == 0x2E || d == 0x28 || d == 0x29 || (d == 0x2B && i == start)) { break }
                i += 1
            }
            if digits >= 8, digits <= 15, i >= b.endIndex || !isASCIIAlnum(b[i]) { out.append(b[start...last]) }
        }
        return out
    }

    // MARK: validation

    func valid(_ rule: PatternRule, _ text: String) -> Bool {
        if !rule.exclusions.isEmpty, rule.exclusions.contains(text.lowercased()) { return false }
        for v in rule.validators {
            switch v {
            case .luhn: if !luhn(text) { return false }
            case .notAllSame:
                if CandidateText.hasAtMostOneAlnum(text) { return false }
            case .mixedLettersDigits:
                if !(CandidateText.hasLetter(text) && CandidateText.hasNumber(text)) { return false }
            case .hasLetters:
                if !CandidateText.hasLetter(text) { return false }
            case .iccid:
                let d = CandidateText.digits(text)
                if !(d.hasPrefix("89") && (18...20).contains(d.count) && luhn(d)) { return false }
            case .imsi:
                let d = CandidateText.digits(text)
                guard d.count == 15, let mcc = Int(d.prefix(3)), (200...799).contains(mcc) else { return false }
            case .e164:
                let t = text.trimmingASCIISpaces()
                var d = CandidateText.digits(t)
                if t.hasPrefix("+") {
                    if !PhoneNumbers.isPlausibleInternational(d) { return false }
                } else if d.hasPrefix("00") {
                    d.removeFirst(2)
                    if !PhoneNumbers.isPlausibleInternational(d) { return false }
                } else if !(d.hasPrefix("0") && (9...11).contains(d.count)) {
                    return false
                }
            case .plausiblePhone:
                if !plausiblePhone(text) { return false }
            case .nameWord:
                guard isNameWords(text, count: 1...3), text.count >= 2 else { return false }
            case .personName:
                guard isNameWords(text, count: 2...4) else { return false }
            case .notRoleAccount:
                if isRoleAccount(text) { return false }
            }
        }
        return true
    }
}

/// The address's local part (lower-cased) is a role's, not a person's: a role word alone or
/// followed by `.`, `-` or `+` (`support`, `no-reply+eu`, `info.de`).
func isRoleAccount(_ address: String) -> Bool {
    // Compared as bytes when ASCII (as characters they are the same); otherwise as characters.
    guard let lower = CandidateText.lowercasedASCII(address) else {
        let localPart = address.lowercased().split(separator: "@").first.map(String.init) ?? ""
        return roleAccounts.contains { localPart == $0 || localPart.hasPrefix($0 + ".") || localPart.hasPrefix($0 + "-") || localPart.hasPrefix($0 + "+") }
    }
    // The first part between `@`s that is not empty.
    let start = lower.firstIndex { $0 != UInt8(ascii: "@") } ?? lower.endIndex
    let end = lower[start...].firstIndex(of: UInt8(ascii: "@")) ?? lower.endIndex
    let localPart = lower[start..<end]
    guard let first = localPart.first else { return false }
    // A role is compared only when it starts with the local part's first byte (few of them do).
    for role in roleAccountBytes where localPart.count >= role.count && role[0] == first {
        var same = true
        for (k, b) in role.enumerated() where localPart[start + k] != b {
            same = false
            break
        }
        guard same else { continue }
        if localPart.count == role.count { return true }
        let next = localPart[start + role.count]
        if next == UInt8(ascii: ".") || next == UInt8(ascii: "-") || next == UInt8(ascii: "+") { return true }
    }
    return false
}

/// `text` is `count` words between spaces, each a capital then letters, `-` or `'`, and none of
/// them a word of event, screen or product names, which look like names too ("Add To Cart",
/// "Home Screen"): the shape of `nameWord` and `personName`. ASCII text is read as bytes (the same
/// answer: its letters are A-Z and a-z), without a `Character` and its properties per byte.
func isNameWords(_ text: String, count: ClosedRange<Int>) -> Bool {
    guard CandidateText.isASCII(text) else {
        let words = text.split(separator: " ")
        return count.contains(words.count)
            && words.allSatisfy { w in w.first?.isUppercase == true && w.allSatisfy { $0.isLetter || $0 == "-" || $0 == "'" } }
            && !words.contains { nonNameWords.contains($0.lowercased()) }
    }
    @inline(__always) func isUpper(_ b: UInt8) -> Bool { b >= 0x41 && b <= 0x5A }
    @inline(__always) func isLower(_ b: UInt8) -> Bool { b >= 0x61 && b <= 0x7A }
    // One pass, left at the first byte that cannot be a name's or at one word too many.
    var words = 0, inWord = false
    for b in text.utf8 {
        if b == UInt8(ascii: " ") {
            inWord = false
        } else if !inWord {
            words += 1
            guard words <= count.upperBound, isUpper(b) else { return false }
            inWord = true
        } else if !(isUpper(b) || isLower(b) || b == UInt8(ascii: "-") || b == UInt8(ascii: "'")) {
            return false
        }
    }
    guard count.contains(words) else { return false }
    return !text.utf8.split(separator: UInt8(ascii: " ")).contains { word in nonNameWords.contains(String(decoding: word.map { isUpper($0) ? $0 | 0x20 : $0 }, as: UTF8.self)) }
}

/// Local parts of role accounts (`not-role-account`).
let roleAccounts = ["support", "contact", "info", "help", "noreply", "no-reply", "donotreply", "do-not-reply", "admin", "sales",
                    "feedback", "hello", "privacy", "team", "service", "careers", "jobs", "press", "media", "billing", "abuse",
                    "postmaster", "webmaster", "security", "dpo", "legal", "orders", "order", "newsletter", "marketing",
                    "notifications", "notification", "mailer", "bounce", "bounces", "reply", "accounts", "office", "care",
                    "customerservice", "customercare", "enquiries", "inquiries", "partners", "booking", "bookings", "reservations",
                    // the same roles in other languages (help, support, contact, customer service)
                    "hilfe", "kontakt", "kundenservice", "kundendienst", "suporte", "soporte", "contato", "contacto",
                    "atendimento", "ayuda", "aiuto", "assistenza", "assistance", "aide", "sav", "klantenservice"]
private let roleAccountBytes = roleAccounts.map { Array($0.utf8) }

/// A phone number as a field named for one holds it: international (`+`, `00`, or E.164 digits
/// without `+` that fit a country plan), or national with a trunk `0` (9 to 13 digits) or an area
/// code in parentheses (`(303) 555-0147`, `(51) 99876-5432`: 10 or 11 digits).
func plausiblePhone(_ text: String) -> Bool {
    let t = text.trimmingASCIISpaces()
    let d = CandidateText.digits(t)
    if t.hasPrefix("+") { return PhoneNumbers.isPlausibleInternational(d) }
    if d.hasPrefix("00") { return PhoneNumbers.isPlausibleInternational(String(d.dropFirst(2))) }
    if d.hasPrefix("0") { return (9...13).contains(d.count) }
    if t.contains(")") { return (10...11).contains(d.count) }
    if t.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) { return PhoneNumbers.isPlausibleInternational(d) }
    return false
}

/// The Luhn checksum (IMEI, ICCID, card numbers) over the digits of `text`.
func luhn(_ text: String) -> Bool {
    let digits = text.compactMap { $0.wholeNumberValue }
    guard digits.count >= 2 else { return false }
    var sum = 0
    for (i, d) in digits.reversed().enumerated() {
        if i % 2 == 1 { let x = d * 2; sum += x > 9 ? x - 9 : x } else { sum += d }
    }
    return sum % 10 == 0
}

/// Words that make a capitalized phrase an event, screen, product or place rather than a person.
let nonNameWords: Set<String> = [
    "the", "to", "of", "and", "for", "with", "in", "on", "at", "by", "my", "your", "new", "all", "app",
    "add", "cart", "view", "open", "opened", "close", "closed", "screen", "page", "button", "tap", "click",
    "purchase", "checkout", "start", "started", "complete", "completed", "search", "sign", "login", "logout",
    "up", "out", "home", "settings", "profile", "account", "order", "payment", "subscribe", "share", "level",
    "game", "play", "video", "music", "track", "song", "album", "product", "item", "store", "shop", "street",
    "avenue", "road", "city", "park", "station", "airport", "hotel", "restaurant", "cafe", "bank", "inc",
    "ltd", "llc", "gmbh", "sa", "sas", "corp", "company", "team", "support", "service", "pro", "premium",
    "free", "plus", "edition", "version", "update", "install", "session", "event", "error", "success",
]

import Foundation
import MouchardFindings

/// One detection rule of a rule file (Rules/*.json, documented in Rules/README.md): what shape of
/// value to look for, how to validate it, what to exclude, and which key names make it more or
/// less likely to be the user's data. Used without a device profile (pattern mode).
public struct PatternRule: Sendable {
    public var id: String
    public var category: FindingCategory
    public var type: String
    public var description: String
    public var severity: Severity
    /// Places to look: `url`, `query`, `header`, `cookie`, `form`, `multipart`, `body` (empty = all).
    public var places: Set<String>
    public var shape: Shape
    /// Allowed lengths of the candidate (characters); empty = any.
    public var lengths: Set<Int>
    public var minLength: Int
    public var maxLength: Int
    public var validators: [Validator]
    /// Candidate values (compared case-insensitively) that are never the user's data.
    public var exclusions: Set<String>
    /// Key-name hints on the field's own key, and on its container's key.
    public var keys: [KeyHint]
    public var parentKeys: [KeyHint]
    /// Hints on the URL path's segments (`/v1/contacts/match` → a contacts endpoint).
    public var pathKeys: [KeyHint] = []
    /// Score without any hint; a candidate is reported when base + hints ≥ threshold.
    public var base: Double
    public var threshold: Double
    /// The whole field must be the candidate (not a substring of it).
    public var wholeValue: Bool
    /// Added when the candidate's letters are all upper case (platform APIs such as iOS
    /// `uuidString` write identifiers that way; SDK-generated ids are usually lower case).
    public var uppercaseWeight: Double = 0
    /// Added when the candidate is only part of its field (`$device:<uuid>`, free text).
    public var embeddedWeight: Double = 0
    /// Lower-case bytes that must appear in a value before the regex runs (cheap byte prefilter).
    public var prefilter: [UInt8] = []

    /// How candidates are found in a value.
    public enum Shape: Sendable {
        case uuid, hex, digits, email, mac, phone, token, text, decimal
        case regex(NSRegularExpressionBox)
    }

    /// A check a candidate must pass.
    public enum Validator: String, Sendable, CaseIterable {
        case luhn, notAllSame = "not-all-same", mixedLettersDigits = "mixed-letters-digits", iccid, imsi
        case e164 = "e164", personName = "person-name", notRoleAccount = "not-role-account", hasLetters = "has-letters"
        case plausiblePhone = "plausible-phone", nameWord = "name-word"
    }

    /// A key name and the weight it adds when it names the field.
    public struct KeyHint: Sendable {
        public var name: String
        public var weight: Double
        public var mode: Mode
        public enum Mode: String, Sendable { case token, contains, exact }
    }
}

/// NSRegularExpression is not Sendable-annotated; rules only read it (matching is thread-safe).
public struct NSRegularExpressionBox: @unchecked Sendable {
    public let regex: NSRegularExpression
}

/// All the rules in effect: the pattern rules of every category and the credentials settings.
public struct RuleSet: Sendable {
    public var rules: [PatternRule]
    /// Field names that hold a password (credentials rule); matched as key tokens.
    public var passwordKeys: [String]
    /// Files the rules came from (for messages).
    public var files: [String]

    public init(rules: [PatternRule] = [], passwordKeys: [String] = ["password", "passwd", "pwd", "pass", "passcode"], files: [String] = []) {
        self.rules = rules
        self.passwordKeys = passwordKeys
        self.files = files
    }

    public var categories: [FindingCategory] { Array(Set(rules.map(\.category))).sorted() }
}

/// Splits a key into lower-case tokens: `advertisingId` → [advertising, id], `$ios_ifa` → [ios, ifa].
func keyTokens(_ key: String) -> [String] {
    // ASCII fast path on bytes (keys are nearly always ASCII).
    var k = key
    if let fast = k.withUTF8({ u -> [String]? in
        var tokens: [String] = []
        var current: [UInt8] = []
        var previousLower = false
        for b in u {
            if b >= 0x80 { return nil }
            let upper = b >= 0x41 && b <= 0x5A
            let lower = b >= 0x61 && b <= 0x7A
            let digit = b >= 0x30 && b <= 0x39
            if upper || lower || digit {
                if upper, previousLower, !current.isEmpty { tokens.append(String(decoding: current, as: UTF8.self)); current.removeAll(keepingCapacity: true) }
                current.append(upper ? b | 0x20 : b)
                previousLower = lower || digit
            } else {
                if !current.isEmpty { tokens.append(String(decoding: current, as: UTF8.self)); current.removeAll(keepingCapacity: true) }
                previousLower = false
            }
        }
        if !current.isEmpty { tokens.append(String(decoding: current, as: UTF8.self)) }
        return tokens
    }) {
        return fast
    }
    var tokens: [String] = []
    var current = ""
    var previousLower = false
    for ch in key {
        if ch.isLetter || ch.isNumber {
            if ch.isUppercase, previousLower, !current.isEmpty { tokens.append(current); current = "" }
            current.append(contentsOf: ch.lowercased())
            previousLower = ch.isLowercase || ch.isNumber
        } else {
            if !current.isEmpty { tokens.append(current); current = "" }
            previousLower = false
        }
    }
    if !current.isEmpty { tokens.append(current) }
    return tokens
}

extension PatternRule.KeyHint {
    func matches(tokens: [String], joined: String) -> Bool {
        switch mode {
        case .token: tokens.contains(name) || joined == name
        case .contains: asciiContains(joined, name)
        case .exact: joined == name
        }
    }
}

extension PatternRule {
    /// Score of a candidate under `key` inside `parentKey`: base + strongest positive hint + strongest negative hint.
    func score(key: String, parentKey: String, pathTokens: [String] = []) -> Double {
        score(key: KeyName(key), parent: KeyName(parentKey), path: KeyName(tokens: pathTokens))
    }

    /// The same with keys tokenized once per field (the detector scores every rule against them).
    func score(key: KeyName, parent: KeyName, path: KeyName) -> Double {
        Self.score(keys: keys, parentKeys: parentKeys, pathKeys: pathKeys, base: base, key: key, parent: parent, path: path)
    }

    /// `score(key:parent:path:)` from the hints alone, so that a caller can score a rule held in an
    /// array without copying the whole rule.
    static func score(keys: [KeyHint], parentKeys: [KeyHint], pathKeys: [KeyHint], base: Double,
                      key: KeyName, parent: KeyName, path: KeyName) -> Double {
        let (lead, penalty) = keyScore(keys: keys, parentKeys: parentKeys, base: base, key: key, parent: parent)
        return lead + pathScore(pathKeys, path) + penalty
    }

    /// The score's parts the field's names give: `base` plus the strongest positive hint of the key
    /// or the parent key, and the strongest negative hint of either. The score is
    /// `lead + pathScore + penalty`, added in that order.
    static func keyScore(keys: [KeyHint], parentKeys: [KeyHint], base: Double, key: KeyName, parent: KeyName) -> (lead: Double, penalty: Double) {
        func hintScore(_ hints: [KeyHint], _ k: KeyName) -> (Double, Double) {
            guard !hints.isEmpty, !k.joined.isEmpty else { return (0, 0) }
            var pos = 0.0, neg = 0.0
            for h in hints where h.matches(tokens: k.tokens, joined: k.joined) {
                if h.weight > 0 { pos = max(pos, h.weight) } else { neg = min(neg, h.weight) }
            }
            return (pos, neg)
        }
        let (kp, kn) = hintScore(keys, key)
        let (pp, pn) = hintScore(parentKeys, parent)
        return (base + max(kp, pp), min(kn, pn))
    }

    /// What the URL path's hints add: the strongest that matches (0 when none does).
    static func pathScore(_ pathKeys: [KeyHint], _ path: KeyName) -> Double {
        var url = 0.0
        for h in pathKeys where h.matches(tokens: path.tokens, joined: path.joined) { url = max(url, h.weight) }
        return url
    }
}

/// A key split into tokens once (`advertisingId` → [advertising, id], joined `advertisingid`).
struct KeyName {
    let tokens: [String]
    let joined: String
    init(_ key: String) {
        tokens = key.isEmpty ? [] : keyTokens(key)
        joined = tokens.joined()
    }
    init(tokens: [String]) {
        self.tokens = tokens
        joined = tokens.joined()
    }
}

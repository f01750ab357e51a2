import Foundation
import MouchardFindings
import MouchardWire

/// Reads rule files (JSON, strict: unknown fields, wrong types, bad regexes and impossible
/// thresholds are `file:line:column: what` errors). The caller reads the files; this takes bytes.
public enum RuleFileLoader {
    static let fileFields = ["category", "description", "rules", "password_keys"]
    static let ruleFields = ["id", "type", "category", "description", "severity", "where", "match", "length", "min_length", "max_length",
                             "validators", "exclude", "keys", "parent_keys", "path_keys", "base", "threshold", "whole_value",
                             "uppercase_weight", "embedded_weight", "prefilter"]
    static let places = ["url", "query", "header", "cookie", "form", "multipart", "body"]
    static let shapes = ["uuid", "hex", "digits", "email", "mac", "phone", "token", "text", "decimal"]

    /// Parses one rule file; `file` names it in errors.
    public static func load(_ bytes: [UInt8], file: String) throws(ConfigFileError) -> RuleSet {
        let r = try ConfigFileReader(file: file, bytes: bytes)
        let top = try r.object(r.root, allowed: fileFields, what: "a rule file")
        let category = try r.string(top["category"])
        var set = RuleSet(rules: [], files: [file])
        if let pk = top["password_keys"] { set.passwordKeys = try r.strings(pk).map { $0.lowercased() } }
        for item in try r.array(top["rules"]) {
            set.rules.append(try rule(item, r, defaultCategory: category))
        }
        return set
    }

    /// Merges several files' rules; duplicate rule ids are an error naming the second file.
    public static func merge(_ sets: [RuleSet]) throws(ConfigFileError) -> RuleSet {
        var out = RuleSet(rules: [], files: [])
        var ids: [String: String] = [:]
        for s in sets {
            for rule in s.rules {
                if let other = ids[rule.id] {
                    throw ConfigFileError(file: s.files.first ?? "?", line: 1, column: 1, message: "rule id '\(rule.id)' already defined in \(other)")
                }
                ids[rule.id] = s.files.first ?? "?"
                out.rules.append(rule)
            }
            if s.passwordKeys != RuleSet().passwordKeys { out.passwordKeys = s.passwordKeys }
            out.files += s.files
        }
        return out
    }

    static func rule(_ v: JSONValue, _ r: ConfigFileReader, defaultCategory: String?) throws(ConfigFileError) -> PatternRule {
        let m = try r.object(v, allowed: ruleFields, what: "a rule")
        let id = try r.requiredString(m, "id", in: "a rule", at: v.offset)
        guard let category = try r.string(m["category"]) ?? defaultCategory else {
            throw r.error(at: v.offset, "rule '\(id)' has no category (set it in the rule or the file)")
        }
        let type = try r.requiredString(m, "type", in: "rule '\(id)'", at: v.offset)
        guard let severity = Severity(rawValue: try r.string(m["severity"]) ?? "medium") else {
            throw r.error(at: m["severity"]?.value.offset ?? v.offset, "severity must be high, medium or low")
        }
        let where_ = try r.strings(m["where"])
        for (i, p) in where_.enumerated() where !places.contains(p) {
            let off = m["where"]?.value.elements?[safe: i]?.offset ?? m["where"]!.value.offset
            throw r.error(at: off, "unknown place '\(p)' (expected one of \(places.joined(separator: ", ")))")
        }
        guard let matchMember = m["match"] else { throw r.error(at: v.offset, "rule '\(id)' is missing 'match'") }
        let mm = try r.object(matchMember.value, allowed: ["shape", "regex"], what: "'match'")
        let shape: PatternRule.Shape
        if let pattern = try r.string(mm["regex"]) {
            guard mm["shape"] == nil else { throw r.error(at: matchMember.value.offset, "'match' takes either 'shape' or 'regex', not both") }
            do {
                shape = .regex(NSRegularExpressionBox(regex: try NSRegularExpression(pattern: pattern)))
            } catch {
                throw r.error(at: mm["regex"]!.value.offset, "invalid regex: \(pattern)")
            }
        } else if let s = try r.string(mm["shape"]) {
            switch s {
            case "uuid": shape = .uuid
            case "hex": shape = .hex
            case "digits": shape = .digits
            case "email": shape = .email
            case "mac": shape = .mac
            case "phone": shape = .phone
            case "token": shape = .token
            case "text": shape = .text
            case "decimal": shape = .decimal
            default: throw r.error(at: mm["shape"]!.value.offset, "unknown shape '\(s)' (expected one of \(shapes.joined(separator: ", ")))")
            }
        } else {
            throw r.error(at: matchMember.value.offset, "'match' needs 'shape' or 'regex'")
        }
        var lengths = Set<Int>()
        if let lm = m["length"] {
            if let d = lm.value.doubleValue { lengths.insert(Int(d)) } else if let items = lm.value.elements {
                for item in items {
                    guard let d = item.doubleValue else { throw r.error(at: item.offset, "'length' items must be numbers") }
                    lengths.insert(Int(d))
                }
            } else { throw r.error(at: lm.value.offset, "'length' must be a number or an array of numbers") }
        }
        var validators: [PatternRule.Validator] = []
        let vnames = try r.strings(m["validators"])
        for (i, name) in vnames.enumerated() {
            guard let val = PatternRule.Validator(rawValue: name) else {
                let off = m["validators"]?.value.elements?[safe: i]?.offset ?? m["validators"]!.value.offset
                throw r.error(at: off, "unknown validator '\(name)' (expected one of \(PatternRule.Validator.allCases.map(\.rawValue).joined(separator: ", ")))")
            }
            validators.append(val)
        }
        let base = try r.number(m["base"]) ?? 0
        let threshold = try r.number(m["threshold"]) ?? 0.5
        guard (0...1).contains(threshold) else { throw r.error(at: m["threshold"]!.value.offset, "threshold must be between 0 and 1") }
        var rule = PatternRule(
            id: id, category: FindingCategory(rawValue: category), type: type, description: try r.string(m["description"]) ?? "", severity: severity,
            places: Set(where_), shape: shape, lengths: lengths,
            minLength: Int(try r.number(m["min_length"]) ?? 1), maxLength: Int(try r.number(m["max_length"]) ?? 4096),
            validators: validators, exclusions: Set(try r.strings(m["exclude"]).map { $0.lowercased() }),
            keys: try hints(m["keys"], r), parentKeys: try hints(m["parent_keys"], r),
            base: base, threshold: threshold, wholeValue: try r.bool(m["whole_value"]) ?? false)
        rule.pathKeys = try hints(m["path_keys"], r)
        rule.prefilter = Array((try r.string(m["prefilter"]) ?? "").lowercased().utf8)
        rule.uppercaseWeight = try r.number(m["uppercase_weight"]) ?? 0
        rule.embeddedWeight = try r.number(m["embedded_weight"]) ?? 0
        return rule
    }

    static func hints(_ member: JSONMember?, _ r: ConfigFileReader) throws(ConfigFileError) -> [PatternRule.KeyHint] {
        var out: [PatternRule.KeyHint] = []
        for item in try r.array(member) {
            let h = try r.object(item, allowed: ["name", "weight", "mode"], what: "a key hint")
            let name = try r.requiredString(h, "name", in: "a key hint", at: item.offset)
            guard let weight = try r.number(h["weight"]) else { throw r.error(at: item.offset, "key hint '\(name)' is missing 'weight'") }
            let modeName = try r.string(h["mode"]) ?? "token"
            guard let mode = PatternRule.KeyHint.Mode(rawValue: modeName) else {
                throw r.error(at: h["mode"]!.value.offset, "unknown mode '\(modeName)' (expected token, contains or exact)")
            }
            let normalized = keyTokens(name).joined()
            out.append(.init(name: normalized, weight: weight, mode: mode))
        }
        return out
    }
}

extension Array {
    subscript(safe i: Int) -> Element? { indices.contains(i) ? self[i] : nil }
}

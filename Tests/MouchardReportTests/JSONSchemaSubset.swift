import Foundation

/// A small JSON Schema validator for the keywords our schemas use (the SARIF 2.1.0 subset in
/// Resources/ and docs/findings.schema.json, draft 2020-12): `$ref` to `#/definitions/NAME` or
/// `#/$defs/NAME`, type (a name or a list of names), const, enum, required, properties,
/// additionalProperties, items, minItems, maxItems, uniqueItems, minimum, maximum, minLength,
/// pattern, anyOf, and format uri / uri-reference / date-time. Returns every violation with its
/// JSON path, so a failing test says what is wrong and where.
///
/// A keyword this validator does not implement would be silently ignored, and a schema using it
/// would look checked when it is not: `unsupportedKeywords()` lists them, and the tests require
/// it to be empty.
struct JSONSchemaSubset {
    let root: JSONValue
    private let patterns = PatternCache()

    /// Keywords that `check` enforces, and annotations that assert nothing.
    static let checkedKeywords: Set<String> = [
        "$ref", "type", "const", "enum", "required", "properties", "additionalProperties", "items", "minItems",
        "maxItems", "uniqueItems", "minimum", "maximum", "minLength", "pattern", "anyOf", "format",
    ]
    static let annotationKeywords: Set<String> = ["$schema", "$id", "$comment", "title", "description", "$defs", "definitions"]
    static let checkedFormats: Set<String> = ["uri", "uri-reference", "date-time"]

    init(bytes: [UInt8]) throws { root = try JSONValue.parse(bytes) }

    func validate(_ instance: JSONValue) -> [String] {
        var errors: [String] = []
        check(instance, root, "$", &errors)
        return errors
    }

    /// Validates `instance` against one definition of the schema (`#/$defs/finding`).
    func validate(_ instance: JSONValue, against ref: String) -> [String] {
        guard let target = resolve(ref) else { return ["$: unresolved \(ref)"] }
        var errors: [String] = []
        check(instance, target, "$", &errors)
        return errors
    }

    /// Keywords (and formats) the schema uses that `check` would ignore, with where they are.
    func unsupportedKeywords() -> [String] {
        var found: [String] = []
        func walk(_ schema: JSONValue, _ path: String) {
            guard case .object(let object) = schema else {
                if case .bool = schema { return }
                found.append("\(path): a schema must be an object or a boolean")
                return
            }
            for (key, value) in object.sorted(by: { $0.key < $1.key }) {
                switch key {
                case "properties", "$defs", "definitions":
                    if case .object(let members) = value {
                        for (name, sub) in members.sorted(by: { $0.key < $1.key }) { walk(sub, "\(path)/\(key)/\(name)") }
                    }
                case "items", "additionalProperties":
                    walk(value, "\(path)/\(key)")
                case "anyOf":
                    for (i, sub) in (value.array ?? []).enumerated() { walk(sub, "\(path)/anyOf/\(i)") }
                case "format":
                    if let name = value.string, !Self.checkedFormats.contains(name) { found.append("\(path): format \(name)") }
                default:
                    if !Self.checkedKeywords.contains(key) && !Self.annotationKeywords.contains(key) { found.append("\(path): \(key)") }
                }
            }
        }
        walk(root, "#")
        return found
    }

    private func resolve(_ ref: String) -> JSONValue? {
        for prefix in ["#/definitions/", "#/$defs/"] where ref.hasPrefix(prefix) {
            return root[String(prefix.dropLast().dropFirst(2))]?[String(ref.dropFirst(prefix.count))]
        }
        return nil
    }

    private static func typeName(_ v: JSONValue) -> String {
        switch v {
        case .null: "null"
        case .bool: "boolean"
        case .integer: "integer"
        case .number: "number"
        case .string: "string"
        case .array: "array"
        case .object: "object"
        }
    }

    private static func numeric(_ v: JSONValue?) -> Double? {
        switch v {
        case .integer(let n)?: Double(n)
        case .number(let d)?: d
        default: nil
        }
    }

    /// RFC 3986 characters only (`%` must start a hex pair); no spaces or controls.
    static func isURIReference(_ s: String) -> Bool {
        let allowed = Set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~:/?#[]@!$&'()*+,;=".utf8)
        let b = Array(s.utf8)
        var i = 0
        while i < b.count {
            if b[i] == UInt8(ascii: "%") {
                guard i + 2 < b.count, b[i + 1].isHexDigit, b[i + 2].isHexDigit else { return false }
                i += 3
                continue
            }
            guard allowed.contains(b[i]) else { return false }
            i += 1
        }
        return true
    }

    /// RFC 3339 `date-time`: `2026-11-02T09:14:06.330Z`, `...06+02:00`.
    static func isDateTime(_ s: String) -> Bool {
        s.range(of: #"^[0-9]{4}-[0-9]{2}-[0-9]{2}[Tt][0-9]{2}:[0-9]{2}:[0-9]{2}(\.[0-9]+)?([Zz]|[+-][0-9]{2}:[0-9]{2})$"#,
                options: .regularExpression) != nil
    }

    private func check(_ v: JSONValue, _ schema: JSONValue, _ path: String, _ errors: inout [String]) {
        if case .bool(let accepts) = schema {
            if !accepts { errors.append("\(path): no value allowed here") }
            return
        }
        if let ref = schema["$ref"]?.string {
            guard let target = resolve(ref) else { errors.append("\(path): unresolved \(ref)"); return }
            check(v, target, path, &errors)
        }
        let actual = Self.typeName(v)
        if let type = schema["type"] {
            let allowed = type.string.map { [$0] } ?? (type.array ?? []).compactMap(\.string)
            let ok = allowed.contains(actual) || (actual == "integer" && allowed.contains("number"))
            if !ok { errors.append("\(path): expected \(allowed.joined(separator: " or ")), got \(actual)"); return }
        }
        if let constant = schema["const"], constant != v {
            errors.append("\(path): \(v) is not the constant \(constant)")
        }
        if let options = schema["enum"]?.array, !options.contains(v) {
            errors.append("\(path): \(v) not in enum")
        }
        if let n = Self.numeric(v) {
            if let minimum = Self.numeric(schema["minimum"]), n < minimum { errors.append("\(path): \(n) < minimum \(minimum)") }
            if let maximum = Self.numeric(schema["maximum"]), n > maximum { errors.append("\(path): \(n) > maximum \(maximum)") }
        }
        if let s = v.string {
            if let min = schema["minLength"]?.int, s.unicodeScalars.count < min {
                errors.append("\(path): shorter than \(min) characters")
            }
            if let pattern = schema["pattern"]?.string {
                if let regex = patterns.regex(pattern) {
                    if regex.firstMatch(in: s, range: NSRange(s.startIndex..., in: s)) == nil {
                        errors.append("\(path): \(s.prefix(80).debugDescription) does not match \(pattern)")
                    }
                } else {
                    errors.append("\(path): the schema's pattern \(pattern) is not a valid regular expression")
                }
            }
            if let format = schema["format"]?.string {
                if (format == "uri" || format == "uri-reference") && !Self.isURIReference(s) {
                    errors.append("\(path): not a \(format): \(s.prefix(80))")
                }
                if format == "uri" && !s.contains(":") { errors.append("\(path): not an absolute uri") }
                if format == "date-time" && !Self.isDateTime(s) { errors.append("\(path): not a date-time: \(s.prefix(80))") }
            }
        }
        if let anyOf = schema["anyOf"]?.array {
            let passes = anyOf.contains { sub in
                var e: [String] = []
                check(v, sub, path, &e)
                return e.isEmpty
            }
            if !passes { errors.append("\(path): matches none of anyOf") }
        }
        if case .object(let object) = v {
            for case .string(let name) in schema["required"]?.array ?? [] where object[name] == nil {
                errors.append("\(path): missing required '\(name)'")
            }
            for (key, value) in object.sorted(by: { $0.key < $1.key }) {
                if let sub = schema["properties"]?[key] {
                    check(value, sub, "\(path).\(key)", &errors)
                } else if let extra = schema["additionalProperties"] {
                    if case .bool(false) = extra { errors.append("\(path): property '\(key)' not allowed") }
                    if case .object = extra { check(value, extra, "\(path).\(key)", &errors) }
                }
            }
        }
        if case .array(let array) = v {
            if let min = schema["minItems"]?.int, array.count < min { errors.append("\(path): fewer than \(min) items") }
            if let max = schema["maxItems"]?.int, array.count > max { errors.append("\(path): more than \(max) items") }
            if let items = schema["items"] {
                for (i, item) in array.enumerated() { check(item, items, "\(path)[\(i)]", &errors) }
            }
            if case .bool(true)? = schema["uniqueItems"] {
                for i in array.indices where array[(i + 1)...].contains(array[i]) {
                    errors.append("\(path): items not unique")
                    break
                }
            }
        }
    }
}

/// Compiled `pattern`s, each compiled once per validator (a findings document checks thousands of strings).
private final class PatternCache {
    private var compiled: [String: NSRegularExpression?] = [:]

    func regex(_ pattern: String) -> NSRegularExpression? {
        if let known = compiled[pattern] { return known }
        let made = try? NSRegularExpression(pattern: pattern)
        compiled[pattern] = made
        return made
    }
}

extension UInt8 {
    fileprivate var isHexDigit: Bool { (0x30...0x39).contains(self) || (0x41...0x46).contains(self) || (0x61...0x66).contains(self) }
}

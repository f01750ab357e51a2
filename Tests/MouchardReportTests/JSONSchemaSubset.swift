/// A small JSON-schema validator for the keywords our SARIF 2.1.0 subset schema uses
/// ($ref to #/definitions, type, required, properties, additionalProperties, items, enum,
/// minItems, minimum, uniqueItems, anyOf, format uri / uri-reference). Returns every violation
/// with its JSON path, so a failing test says what is wrong and where.
struct JSONSchemaSubset {
    let root: JSONValue

    init(bytes: [UInt8]) throws { root = try JSONValue.parse(bytes) }

    func validate(_ instance: JSONValue) -> [String] {
        var errors: [String] = []
        check(instance, root, "$", &errors)
        return errors
    }

    private func resolve(_ ref: String) -> JSONValue? {
        guard ref.hasPrefix("#/definitions/") else { return nil }
        return root["definitions"]?[String(ref.dropFirst("#/definitions/".count))]
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

    private func check(_ v: JSONValue, _ schema: JSONValue, _ path: String, _ errors: inout [String]) {
        if let ref = schema["$ref"]?.string {
            guard let target = resolve(ref) else { errors.append("\(path): unresolved \(ref)"); return }
            check(v, target, path, &errors)
        }
        let actual = Self.typeName(v)
        if let type = schema["type"]?.string {
            let ok = type == actual || (type == "number" && actual == "integer")
            if !ok { errors.append("\(path): expected \(type), got \(actual)"); return }
        }
        if let options = schema["enum"]?.array, !options.contains(v) {
            errors.append("\(path): \(v) not in enum")
        }
        if case .integer(let minimum)? = schema["minimum"] {
            switch v {
            case .integer(let n) where n < minimum: errors.append("\(path): \(n) < minimum \(minimum)")
            case .number(let n) where n < Double(minimum): errors.append("\(path): \(n) < minimum \(minimum)")
            default: break
            }
        }
        if let format = schema["format"]?.string, let s = v.string {
            if (format == "uri" || format == "uri-reference") && !Self.isURIReference(s) {
                errors.append("\(path): not a \(format): \(s.prefix(80))")
            }
            if format == "uri" && !s.contains(":") { errors.append("\(path): not an absolute uri") }
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
            for (key, value) in object {
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

private extension UInt8 {
    var isHexDigit: Bool { (0x30...0x39).contains(self) || (0x41...0x46).contains(self) || (0x61...0x66).contains(self) }
}

import MouchardWire

/// A JSON document reduced to what its meaning is: objects with their members sorted by name,
/// numbers by value (`1.0` = `1`), strings decoded; ignored fields left out. Two bodies that are
/// the same JSON written differently have the same canonical form.
public enum CanonicalJSON {
    static let parser = JSONParser(maxDepth: 64, skipsByteOrderMark: true)

    /// The canonical text of `bytes`, or nil when they are not JSON.
    public static func text(_ bytes: [UInt8], ignoring: [IgnoredField] = []) -> String? {
        guard let first = bytes.first(where: { $0 != 0x20 && $0 != 0x0A && $0 != 0x0D && $0 != 0x09 }),
              first == UInt8(ascii: "{") || first == UInt8(ascii: "[") || first == UInt8(ascii: "\""),
              let value = try? parser.parse(bytes) else { return nil }
        var out = ""
        var path: [String] = []
        append(value, path: &path, ignoring: ignoring, to: &out)
        return out
    }

    /// The parsed value (for the field-by-field comparison), or nil.
    static func parse(_ bytes: [UInt8]) -> JSONValue? {
        guard let first = bytes.first(where: { $0 != 0x20 && $0 != 0x0A && $0 != 0x0D && $0 != 0x09 }),
              first == UInt8(ascii: "{") || first == UInt8(ascii: "[") else { return nil }
        return try? parser.parse(bytes)
    }

    static func append(_ value: JSONValue, path: inout [String], ignoring: [IgnoredField], to out: inout String) {
        switch value.kind {
        case .object(let members):
            out += "{"
            var first = true
            for m in members.sorted(by: { $0.key < $1.key }) {
                path.append(m.key)
                defer { path.removeLast() }
                if ignoring.contains(where: { $0.matches(jsonPath: path) }) { continue }
                if !first { out += "," }
                first = false
                out += quoted(m.key) + ":"
                append(m.value, path: &path, ignoring: ignoring, to: &out)
            }
            out += "}"
        case .array(let items):
            out += "["
            var first = true
            for (i, item) in items.enumerated() {
                path.append(String(i))
                defer { path.removeLast() }
                if ignoring.contains(where: { $0.matches(jsonPath: path) }) { continue }
                if !first { out += "," }
                first = false
                append(item, path: &path, ignoring: ignoring, to: &out)
            }
            out += "]"
        default:
            out += scalarText(value)
        }
    }

    /// A scalar as canonical text: numbers by value, strings quoted.
    static func scalarText(_ value: JSONValue) -> String {
        switch value.kind {
        case .string(let b): return quoted(String(decoding: b, as: UTF8.self))
        case .number(let b):
            let text = String(decoding: b, as: UTF8.self)
            if let d = Double(text), d.isFinite { return d == d.rounded() && abs(d) < 1e15 ? String(Int64(d)) : String(d) }
            return text
        case .bool(let v): return v ? "true" : "false"
        case .null: return "null"
        case .object, .array:
            var out = ""
            var path: [String] = []
            append(value, path: &path, ignoring: [], to: &out)
            return out
        }
    }

    static func quoted(_ s: String) -> String {
        String(decoding: JSONWriter.serialize(.string(s), pretty: false), as: UTF8.self)
    }
}

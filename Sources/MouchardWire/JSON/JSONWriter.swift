/// Writes `JSONValue`s as JSON text: pretty-printed with two-space indentation (one member per
/// line, `"key": value`), or compact. Members keep their order and numbers their text, so a parsed
/// value is written back as it was read (modulo whitespace and escapes). Used by the HAR writer.
public struct JSONWriter: Sendable {
    public var pretty: Bool
    /// The text written so far.
    public private(set) var output: [UInt8] = []

    public init(pretty: Bool) { self.pretty = pretty }

    /// `value` as one JSON text; pretty output ends with a newline.
    public static func serialize(_ value: JSONValue, pretty: Bool) -> [UInt8] {
        var w = JSONWriter(pretty: pretty)
        w.write(value, indent: 0)
        if pretty { w.output.append(0x0A) }
        return w.output
    }

    /// Appends `value`, as if it stood `indent` levels deep (for documents written piece by piece).
    public mutating func write(_ value: JSONValue, indent: Int) {
        switch value.kind {
        case .null: output.append(contentsOf: "null".utf8)
        case .bool(let b): output.append(contentsOf: (b ? "true" : "false").utf8)
        case .number(let n): output.append(contentsOf: n)
        case .string(let s): writeString(s)
        case .array(let items):
            output.append(UInt8(ascii: "["))
            if items.isEmpty { output.append(UInt8(ascii: "]")); return }
            for (k, item) in items.enumerated() {
                if k > 0 { output.append(UInt8(ascii: ",")) }
                newline(indent + 1)
                write(item, indent: indent + 1)
            }
            newline(indent)
            output.append(UInt8(ascii: "]"))
        case .object(let members):
            output.append(UInt8(ascii: "{"))
            if members.isEmpty { output.append(UInt8(ascii: "}")); return }
            for (k, m) in members.enumerated() {
                if k > 0 { output.append(UInt8(ascii: ",")) }
                newline(indent + 1)
                writeString(m.key.utf8)
                output.append(UInt8(ascii: ":"))
                if pretty { output.append(0x20) }
                write(m.value, indent: indent + 1)
            }
            newline(indent)
            output.append(UInt8(ascii: "}"))
        }
    }

    /// Appends `s` as a quoted JSON string (for documents written piece by piece).
    public mutating func write(string s: String) { writeString(s.utf8) }

    /// Appends text that is JSON already: punctuation, a member name with its colon, a number.
    public mutating func write(raw text: String) { output.append(contentsOf: text.utf8) }

    private mutating func newline(_ indent: Int) {
        guard pretty else { return }
        output.append(0x0A)
        output.append(contentsOf: repeatElement(0x20, count: indent * 2))
    }

    private static let hexDigits = Array("0123456789abcdef".utf8)

    /// A quoted string: `"`, `\` and control bytes escaped, everything else (UTF-8) as is.
    private mutating func writeString<S: Sequence<UInt8>>(_ bytes: S) {
        output.append(0x22)
        for b in bytes {
            switch b {
            case 0x22: output.append(0x5C); output.append(0x22)
            case 0x5C: output.append(0x5C); output.append(0x5C)
            case 0x0A: output.append(0x5C); output.append(UInt8(ascii: "n"))
            case 0x0D: output.append(0x5C); output.append(UInt8(ascii: "r"))
            case 0x09: output.append(0x5C); output.append(UInt8(ascii: "t"))
            case 0..<0x20, 0x7F:
                output.append(contentsOf: "\\u00".utf8)
                output.append(Self.hexDigits[Int(b >> 4)])
                output.append(Self.hexDigits[Int(b & 0xF)])
            default: output.append(b)
            }
        }
        output.append(0x22)
    }
}

/// Values built in code (to be written, so their offsets are 0).
extension JSONValue {
    public static let null = JSONValue(offset: 0, kind: .null)
    public static func bool(_ b: Bool) -> JSONValue { JSONValue(offset: 0, kind: .bool(b)) }
    /// A number from its JSON text (`-1`, `97.08`), written as is.
    public static func number(_ text: String) -> JSONValue { JSONValue(offset: 0, kind: .number(Array(text.utf8))) }
    public static func string(_ s: String) -> JSONValue { JSONValue(offset: 0, kind: .string(Array(s.utf8))) }
    public static func array(_ items: [JSONValue]) -> JSONValue { JSONValue(offset: 0, kind: .array(items)) }
    /// An object with these members, in this order.
    public static func object(_ members: [(String, JSONValue)]) -> JSONValue {
        JSONValue(offset: 0, kind: .object(members.map { JSONMember(key: $0.0, keyOffset: 0, value: $0.1) }))
    }
}

/// A JSON document as the HAR codec needs it: object members keep their order, numbers keep their
/// text (so a custom `_field` is written back exactly as read), every parse error says where.
///
/// Internal to MouchardFlow: the HAR reader parses with it and the writer serializes with it.
enum JSONValue: Sendable, Hashable {
    case null
    case bool(Bool)
    /// The number's text exactly as written (`-1`, `97.08`, `1e3`).
    case number(String)
    case string(String)
    case array([JSONValue])
    case object([(String, JSONValue)])

    static func == (a: JSONValue, b: JSONValue) -> Bool {
        switch (a, b) {
        case (.null, .null): return true
        case (.bool(let x), .bool(let y)): return x == y
        case (.number(let x), .number(let y)): return x == y
        case (.string(let x), .string(let y)): return x == y
        case (.array(let x), .array(let y)): return x == y
        case (.object(let x), .object(let y)):
            return x.count == y.count && zip(x, y).allSatisfy { $0.0 == $1.0 && $0.1 == $1.1 }
        default: return false
        }
    }

    func hash(into h: inout Hasher) {
        switch self {
        case .null: h.combine(0)
        case .bool(let b): h.combine(b)
        case .number(let n): h.combine(n)
        case .string(let s): h.combine(s)
        case .array(let a): h.combine(a)
        case .object(let o): for (k, v) in o { h.combine(k); h.combine(v) }
        }
    }

    /// The value of the first member named `key` of an object (nil for other kinds or when absent).
    subscript(key: String) -> JSONValue? {
        guard case .object(let members) = self else { return nil }
        return members.first { $0.0 == key }?.1
    }

    /// A short name of the kind, for error messages.
    var kindName: String {
        switch self {
        case .null: return "null"
        case .bool: return "a boolean"
        case .number: return "a number"
        case .string: return "a string"
        case .array: return "an array"
        case .object: return "an object"
        }
    }
}

/// A JSON syntax error: what was expected and the byte offset where parsing stopped.
struct JSONSyntaxError: Error, Sendable, Hashable {
    var offset: Int
    var message: String
}

/// A strict JSON (RFC 8259) parser over bytes, bounded in nesting depth.
struct JSONParser {
    private let bytes: [UInt8]
    private var i = 0
    private let maxDepth: Int

    /// Parses one JSON document (a UTF-8 BOM is skipped); trailing non-space bytes are an error.
    static func parse(_ bytes: [UInt8], maxDepth: Int = 512) throws(JSONSyntaxError) -> JSONValue {
        var p = JSONParser(bytes: bytes, maxDepth: maxDepth)
        if bytes.count >= 3, bytes[0] == 0xEF, bytes[1] == 0xBB, bytes[2] == 0xBF { p.i = 3 }
        let v = try p.value(depth: 0)
        p.skipSpace()
        if p.i < bytes.count { throw p.error("unexpected data after the JSON document") }
        return v
    }

    private init(bytes: [UInt8], maxDepth: Int) {
        self.bytes = bytes
        self.maxDepth = maxDepth
    }

    private func error(_ message: String) -> JSONSyntaxError { JSONSyntaxError(offset: i, message: message) }

    private mutating func skipSpace() {
        while i < bytes.count, bytes[i] == 0x20 || bytes[i] == 0x0A || bytes[i] == 0x0D || bytes[i] == 0x09 { i += 1 }
    }

    private func describeHere() -> String {
        guard i < bytes.count else { return "end of input" }
        let b = bytes[i]
        return b >= 0x21 && b < 0x7F ? "'\(Character(Unicode.Scalar(b)))'" : "byte 0x\(String(b, radix: 16))"
    }

    private mutating func value(depth: Int) throws(JSONSyntaxError) -> JSONValue {
        skipSpace()
        guard i < bytes.count else { throw error("unexpected end of input, expected a value") }
        switch bytes[i] {
        case UInt8(ascii: "{"):
            guard depth < maxDepth else { throw error("nesting deeper than \(maxDepth)") }
            i += 1
            var members: [(String, JSONValue)] = []
            skipSpace()
            if i < bytes.count, bytes[i] == UInt8(ascii: "}") { i += 1; return .object(members) }
            while true {
                skipSpace()
                guard i < bytes.count, bytes[i] == UInt8(ascii: "\"") else {
                    throw error("expected a member name (string), found \(describeHere())")
                }
                let key = try string()
                skipSpace()
                guard i < bytes.count, bytes[i] == UInt8(ascii: ":") else { throw error("expected ':', found \(describeHere())") }
                i += 1
                members.append((key, try value(depth: depth + 1)))
                skipSpace()
                guard i < bytes.count else { throw error("unexpected end of input inside an object") }
                if bytes[i] == UInt8(ascii: ",") { i += 1; continue }
                if bytes[i] == UInt8(ascii: "}") { i += 1; return .object(members) }
                throw error("expected ',' or '}', found \(describeHere())")
            }
        case UInt8(ascii: "["):
            guard depth < maxDepth else { throw error("nesting deeper than \(maxDepth)") }
            i += 1
            var items: [JSONValue] = []
            skipSpace()
            if i < bytes.count, bytes[i] == UInt8(ascii: "]") { i += 1; return .array(items) }
            while true {
                items.append(try value(depth: depth + 1))
                skipSpace()
                guard i < bytes.count else { throw error("unexpected end of input inside an array") }
                if bytes[i] == UInt8(ascii: ",") { i += 1; continue }
                if bytes[i] == UInt8(ascii: "]") { i += 1; return .array(items) }
                throw error("expected ',' or ']', found \(describeHere())")
            }
        case UInt8(ascii: "\""):
            return .string(try string())
        case UInt8(ascii: "t"):
            try literal("true"); return .bool(true)
        case UInt8(ascii: "f"):
            try literal("false"); return .bool(false)
        case UInt8(ascii: "n"):
            try literal("null"); return .null
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            return .number(try number())
        default:
            throw error("expected a value, found \(describeHere())")
        }
    }

    private mutating func literal(_ word: String) throws(JSONSyntaxError) {
        let w = Array(word.utf8)
        guard i + w.count <= bytes.count, bytes[i..<(i + w.count)].elementsEqual(w) else {
            throw error("expected a value, found \(describeHere())")
        }
        i += w.count
    }

    private mutating func digits() -> Int {
        let start = i
        while i < bytes.count, bytes[i] >= 0x30, bytes[i] <= 0x39 { i += 1 }
        return i - start
    }

    private mutating func number() throws(JSONSyntaxError) -> String {
        let start = i
        if bytes[i] == UInt8(ascii: "-") { i += 1 }
        guard i < bytes.count, bytes[i] >= 0x30, bytes[i] <= 0x39 else { throw error("expected a digit") }
        if bytes[i] == 0x30 { i += 1 } else { _ = digits() }
        if i < bytes.count, bytes[i] == UInt8(ascii: ".") {
            i += 1
            guard digits() > 0 else { throw error("expected a digit after '.'") }
        }
        if i < bytes.count, bytes[i] == UInt8(ascii: "e") || bytes[i] == UInt8(ascii: "E") {
            i += 1
            if i < bytes.count, bytes[i] == UInt8(ascii: "+") || bytes[i] == UInt8(ascii: "-") { i += 1 }
            guard digits() > 0 else { throw error("expected a digit in the exponent") }
        }
        return String(decoding: bytes[start..<i], as: UTF8.self)
    }

    private mutating func hex4() throws(JSONSyntaxError) -> UInt32 {
        guard i + 4 <= bytes.count else { throw error("truncated \\u escape") }
        var v: UInt32 = 0
        for _ in 0..<4 {
            let b = bytes[i]
            let d: UInt8
            switch b {
            case 0x30...0x39: d = b - 0x30
            case 0x41...0x46: d = b - 0x41 + 10
            case 0x61...0x66: d = b - 0x61 + 10
            default: throw error("invalid hex digit in \\u escape")
            }
            v = v << 4 | UInt32(d)
            i += 1
        }
        return v
    }

    /// A string starting at the opening quote. Invalid UTF-8 and lone surrogates become U+FFFD.
    private mutating func string() throws(JSONSyntaxError) -> String {
        i += 1
        var out: [UInt8] = []
        var runStart = i
        while true {
            guard i < bytes.count else { throw error("unterminated string") }
            let b = bytes[i]
            if b == UInt8(ascii: "\"") {
                out.append(contentsOf: bytes[runStart..<i])
                i += 1
                return String(decoding: out, as: UTF8.self)
            }
            if b < 0x20 { throw error("control character in a string") }
            if b != UInt8(ascii: "\\") { i += 1; continue }
            out.append(contentsOf: bytes[runStart..<i])
            i += 1
            guard i < bytes.count else { throw error("unterminated string") }
            let e = bytes[i]
            i += 1
            switch e {
            case UInt8(ascii: "\""): out.append(0x22)
            case UInt8(ascii: "\\"): out.append(0x5C)
            case UInt8(ascii: "/"): out.append(0x2F)
            case UInt8(ascii: "b"): out.append(0x08)
            case UInt8(ascii: "f"): out.append(0x0C)
            case UInt8(ascii: "n"): out.append(0x0A)
            case UInt8(ascii: "r"): out.append(0x0D)
            case UInt8(ascii: "t"): out.append(0x09)
            case UInt8(ascii: "u"):
                var scalar = try hex4()
                if scalar >= 0xD800, scalar < 0xDC00, i + 6 <= bytes.count,
                   bytes[i] == UInt8(ascii: "\\"), bytes[i + 1] == UInt8(ascii: "u") {
                    let save = i
                    i += 2
                    let low = try hex4()
                    if low >= 0xDC00, low < 0xE000 {
                        scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                    } else {
                        i = save
                    }
                }
                let s = Unicode.Scalar(scalar) ?? "\u{FFFD}"
                out.append(contentsOf: Array(String(Character(s)).utf8))
            default:
                i -= 1
                throw error("invalid escape '\\\(Character(Unicode.Scalar(e)))' in a string")
            }
            runStart = i
        }
    }
}

/// Serializes `JSONValue`s: pretty-printed with two-space indentation, or compact.
struct JSONSerializer {
    var pretty: Bool
    private(set) var output: [UInt8] = []

    init(pretty: Bool) { self.pretty = pretty }

    static func serialize(_ v: JSONValue, pretty: Bool) -> [UInt8] {
        var s = JSONSerializer(pretty: pretty)
        s.write(v, indent: 0)
        if pretty { s.output.append(0x0A) }
        return s.output
    }

    private mutating func newline(_ indent: Int) {
        guard pretty else { return }
        output.append(0x0A)
        output.append(contentsOf: repeatElement(0x20, count: indent * 2))
    }

    mutating func write(_ v: JSONValue, indent: Int) {
        switch v {
        case .null: output.append(contentsOf: Array("null".utf8))
        case .bool(let b): output.append(contentsOf: Array((b ? "true" : "false").utf8))
        case .number(let n): output.append(contentsOf: Array(n.utf8))
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
            for (k, (key, value)) in members.enumerated() {
                if k > 0 { output.append(UInt8(ascii: ",")) }
                newline(indent + 1)
                writeString(key)
                output.append(UInt8(ascii: ":"))
                if pretty { output.append(0x20) }
                write(value, indent: indent + 1)
            }
            newline(indent)
            output.append(UInt8(ascii: "}"))
        }
    }

    private static let hexDigits = Array("0123456789abcdef".utf8)

    private mutating func writeString(_ s: String) {
        output.append(0x22)
        for b in s.utf8 {
            switch b {
            case 0x22: output.append(0x5C); output.append(0x22)
            case 0x5C: output.append(0x5C); output.append(0x5C)
            case 0x0A: output.append(0x5C); output.append(UInt8(ascii: "n"))
            case 0x0D: output.append(0x5C); output.append(UInt8(ascii: "r"))
            case 0x09: output.append(0x5C); output.append(UInt8(ascii: "t"))
            case 0..<0x20, 0x7F:
                output.append(contentsOf: Array("\\u00".utf8))
                output.append(Self.hexDigits[Int(b >> 4)])
                output.append(Self.hexDigits[Int(b & 0xF)])
            default: output.append(b)
            }
        }
        output.append(0x22)
    }
}

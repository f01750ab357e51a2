/// A parsed JSON value with its exact kind (integer vs number vs boolean), for schema checks.
/// A tiny strict parser for test outputs (not a general-purpose JSON library).
indirect enum JSONValue: Equatable {
    case null, bool(Bool), integer(Int), number(Double), string(String), array([JSONValue]), object([String: JSONValue])

    struct ParseError: Error, CustomStringConvertible {
        var offset: Int
        var what: String
        var description: String { "JSON parse error at byte \(offset): \(what)" }
    }

    static func parse(_ bytes: [UInt8]) throws -> JSONValue {
        var p = Parser(b: bytes)
        p.ws()
        let v = try p.value(depth: 0)
        p.ws()
        guard p.i == bytes.count else { throw ParseError(offset: p.i, what: "trailing bytes") }
        return v
    }

    subscript(_ key: String) -> JSONValue? {
        if case .object(let o) = self { return o[key] }
        return nil
    }
    var array: [JSONValue]? { if case .array(let a) = self { return a }; return nil }
    var string: String? { if case .string(let s) = self { return s }; return nil }
    var int: Int? { if case .integer(let n) = self { return n }; return nil }

    private struct Parser {
        let b: [UInt8]
        var i = 0
        mutating func ws() { while i < b.count, b[i] == 0x20 || b[i] == 0x0A || b[i] == 0x0D || b[i] == 0x09 { i += 1 } }
        mutating func lit(_ s: String, _ v: JSONValue) throws -> JSONValue {
            let u = Array(s.utf8)
            guard i + u.count <= b.count, Array(b[i..<(i + u.count)]) == u else { throw ParseError(offset: i, what: "bad literal") }
            i += u.count
            return v
        }
        mutating func value(depth: Int) throws -> JSONValue {
            guard depth < 200 else { throw ParseError(offset: i, what: "too deep") }
            guard i < b.count else { throw ParseError(offset: i, what: "unexpected end") }
            switch b[i] {
            case UInt8(ascii: "{"):
                i += 1; ws()
                var o: [String: JSONValue] = [:]
                if i < b.count, b[i] == UInt8(ascii: "}") { i += 1; return .object(o) }
                while true {
                    ws()
                    guard case .string(let k) = try string() else { throw ParseError(offset: i, what: "key") }
                    ws()
                    guard i < b.count, b[i] == UInt8(ascii: ":") else { throw ParseError(offset: i, what: "expected :") }
                    i += 1; ws()
                    o[k] = try value(depth: depth + 1)
                    ws()
                    guard i < b.count else { throw ParseError(offset: i, what: "unterminated object") }
                    if b[i] == UInt8(ascii: ",") { i += 1; continue }
                    guard b[i] == UInt8(ascii: "}") else { throw ParseError(offset: i, what: "expected , or }") }
                    i += 1
                    return .object(o)
                }
            case UInt8(ascii: "["):
                i += 1; ws()
                var a: [JSONValue] = []
                if i < b.count, b[i] == UInt8(ascii: "]") { i += 1; return .array(a) }
                while true {
                    ws()
                    a.append(try value(depth: depth + 1))
                    ws()
                    guard i < b.count else { throw ParseError(offset: i, what: "unterminated array") }
                    if b[i] == UInt8(ascii: ",") { i += 1; continue }
                    guard b[i] == UInt8(ascii: "]") else { throw ParseError(offset: i, what: "expected , or ]") }
                    i += 1
                    return .array(a)
                }
            case UInt8(ascii: "\""): return try string()
            case UInt8(ascii: "t"): return try lit("true", .bool(true))
            case UInt8(ascii: "f"): return try lit("false", .bool(false))
            case UInt8(ascii: "n"): return try lit("null", .null)
            default: return try number()
            }
        }
        mutating func string() throws -> JSONValue {
            guard i < b.count, b[i] == UInt8(ascii: "\"") else { throw ParseError(offset: i, what: "expected string") }
            i += 1
            var out: [UInt8] = []
            var scalars = ""
            func flush() { scalars += String(decoding: out, as: UTF8.self); out.removeAll() }
            while i < b.count {
                let c = b[i]
                if c == UInt8(ascii: "\"") { i += 1; flush(); return .string(scalars) }
                if c < 0x20 { throw ParseError(offset: i, what: "raw control character in string") }
                if c == UInt8(ascii: "\\") {
                    guard i + 1 < b.count else { break }
                    let e = b[i + 1]
                    i += 2
                    switch e {
                    case UInt8(ascii: "n"): out.append(0x0A)
                    case UInt8(ascii: "t"): out.append(0x09)
                    case UInt8(ascii: "r"): out.append(0x0D)
                    case UInt8(ascii: "b"): out.append(0x08)
                    case UInt8(ascii: "f"): out.append(0x0C)
                    case UInt8(ascii: "u"):
                        guard i + 4 <= b.count, let v = UInt32(String(decoding: b[i..<(i + 4)], as: UTF8.self), radix: 16)
                        else { throw ParseError(offset: i, what: "bad \\u") }
                        i += 4
                        flush()
                        var code = v
                        if (0xD800...0xDBFF).contains(v), i + 6 <= b.count, b[i] == UInt8(ascii: "\\"), b[i + 1] == UInt8(ascii: "u"),
                           let lo = UInt32(String(decoding: b[(i + 2)..<(i + 6)], as: UTF8.self), radix: 16), (0xDC00...0xDFFF).contains(lo) {
                            code = 0x10000 + ((v - 0xD800) << 10) + (lo - 0xDC00)
                            i += 6
                        }
                        scalars.unicodeScalars.append(Unicode.Scalar(code) ?? "\u{FFFD}")
                    default: out.append(e)
                    }
                    continue
                }
                out.append(c)
                i += 1
            }
            throw ParseError(offset: i, what: "unterminated string")
        }
        mutating func number() throws -> JSONValue {
            let start = i
            while i < b.count, "+-0123456789.eE".utf8.contains(b[i]) { i += 1 }
            let text = String(decoding: b[start..<i], as: UTF8.self)
            if let n = Int(text) { return .integer(n) }
            if let d = Double(text) { return .number(d) }
            throw ParseError(offset: start, what: "bad number '\(text)'")
        }
    }
}

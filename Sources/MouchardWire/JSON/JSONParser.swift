/// A strict, bounded JSON parser over bytes (RFC 8259): objects, arrays, strings with escapes
/// (including surrogate pairs), numbers, literals. Depth is limited so hostile bodies cannot
/// exhaust the stack; every read is bounds-checked; errors carry the byte offset.
public struct JSONParser: Sendable {
    /// Deepest nesting accepted: a value at depth `maxDepth` (the top level is depth 0) is an error.
    public var maxDepth: Int
    /// Whether a UTF-8 byte order mark before the text is skipped (files from editors) or is an error.
    public var skipsByteOrderMark: Bool
    public init(maxDepth: Int = 64, skipsByteOrderMark: Bool = false) {
        self.maxDepth = maxDepth
        self.skipsByteOrderMark = skipsByteOrderMark
    }

    /// Parses one JSON text (surrounding whitespace allowed, nothing else after it).
    public func parse<C: Collection>(_ input: C) throws(JSONParseError) -> JSONValue where C.Element == UInt8 {
        let bytes = Array(input)
        var cursor = Cursor(bytes: bytes, maxDepth: maxDepth)
        if skipsByteOrderMark, bytes.starts(with: [0xEF, 0xBB, 0xBF]) { cursor.i = 3 }
        cursor.skipSpace()
        let v = try cursor.value(depth: 0)
        cursor.skipSpace()
        if cursor.i < bytes.count { throw JSONParseError(offset: cursor.i, message: "unexpected text after the JSON value") }
        return v
    }

    private struct Cursor {
        let bytes: [UInt8]
        let maxDepth: Int
        var i = 0
        init(bytes: [UInt8], maxDepth: Int) { self.bytes = bytes; self.maxDepth = maxDepth }

        mutating func skipSpace() {
            while i < bytes.count {
                let b = bytes[i]
                if b == 0x20 || b == 0x0A || b == 0x0D || b == 0x09 { i += 1 } else { break }
            }
        }

        mutating func value(depth: Int) throws(JSONParseError) -> JSONValue {
            guard depth < maxDepth else { throw JSONParseError(offset: i, message: "nesting deeper than \(maxDepth)") }
            guard i < bytes.count else { throw JSONParseError(offset: i, message: "expected a value, found end of input") }
            let start = i
            switch bytes[i] {
            case UInt8(ascii: "{"):
                i += 1
                var members: [JSONMember] = []
                skipSpace()
                if i < bytes.count, bytes[i] == UInt8(ascii: "}") { i += 1; return JSONValue(offset: start, kind: .object(members)) }
                while true {
                    skipSpace()
                    guard i < bytes.count, bytes[i] == UInt8(ascii: "\"") else {
                        throw JSONParseError(offset: i, message: "expected a quoted key")
                    }
                    let keyOffset = i
                    let key = String(decoding: try string(), as: UTF8.self)
                    skipSpace()
                    guard i < bytes.count, bytes[i] == UInt8(ascii: ":") else {
                        throw JSONParseError(offset: i, message: "expected ':' after key")
                    }
                    i += 1
                    skipSpace()
                    let v = try value(depth: depth + 1)
                    members.append(JSONMember(key: key, keyOffset: keyOffset, value: v))
                    skipSpace()
                    guard i < bytes.count else { throw JSONParseError(offset: i, message: "unterminated object") }
                    if bytes[i] == UInt8(ascii: ",") { i += 1; continue }
                    if bytes[i] == UInt8(ascii: "}") { i += 1; break }
                    throw JSONParseError(offset: i, message: "expected ',' or '}'")
                }
                return JSONValue(offset: start, kind: .object(members))
            case UInt8(ascii: "["):
                i += 1
                var items: [JSONValue] = []
                skipSpace()
                if i < bytes.count, bytes[i] == UInt8(ascii: "]") { i += 1; return JSONValue(offset: start, kind: .array(items)) }
                while true {
                    skipSpace()
                    items.append(try value(depth: depth + 1))
                    skipSpace()
                    guard i < bytes.count else { throw JSONParseError(offset: i, message: "unterminated array") }
                    if bytes[i] == UInt8(ascii: ",") { i += 1; continue }
                    if bytes[i] == UInt8(ascii: "]") { i += 1; break }
                    throw JSONParseError(offset: i, message: "expected ',' or ']'")
                }
                return JSONValue(offset: start, kind: .array(items))
            case UInt8(ascii: "\""):
                return JSONValue(offset: start, kind: .string(try string()))
            case UInt8(ascii: "t"):
                try literal("true"); return JSONValue(offset: start, kind: .bool(true))
            case UInt8(ascii: "f"):
                try literal("false"); return JSONValue(offset: start, kind: .bool(false))
            case UInt8(ascii: "n"):
                try literal("null"); return JSONValue(offset: start, kind: .null)
            case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
                return JSONValue(offset: start, kind: .number(try number()))
            default:
                throw JSONParseError(offset: i, message: "expected a value, found \(describeHere())")
            }
        }

        /// The byte at the cursor for error messages: `'}'`, `byte 0xff` or `end of input`.
        func describeHere() -> String {
            guard i < bytes.count else { return "end of input" }
            let b = bytes[i]
            return b >= 0x21 && b < 0x7F ? "'\(Character(Unicode.Scalar(b)))'" : "byte 0x\(String(b, radix: 16))"
        }

        mutating func literal(_ word: String) throws(JSONParseError) {
            let p = Array(word.utf8)
            let n = p.count
            guard i + n <= bytes.count else { throw JSONParseError(offset: i, message: "unexpected end of input") }
            for k in 0..<n where bytes[i + k] != p[k] {
                throw JSONParseError(offset: i, message: "invalid literal")
            }
            i += n
        }

        mutating func number() throws(JSONParseError) -> [UInt8] {
            let start = i
            if i < bytes.count, bytes[i] == UInt8(ascii: "-") { i += 1 }
            var digits = 0
            while i < bytes.count, bytes[i] >= 0x30, bytes[i] <= 0x39 { i += 1; digits += 1 }
            guard digits > 0 else { throw JSONParseError(offset: start, message: "invalid number") }
            if i < bytes.count, bytes[i] == UInt8(ascii: ".") {
                i += 1
                var frac = 0
                while i < bytes.count, bytes[i] >= 0x30, bytes[i] <= 0x39 { i += 1; frac += 1 }
                guard frac > 0 else { throw JSONParseError(offset: start, message: "invalid number") }
            }
            if i < bytes.count, bytes[i] == UInt8(ascii: "e") || bytes[i] == UInt8(ascii: "E") {
                i += 1
                if i < bytes.count, bytes[i] == UInt8(ascii: "+") || bytes[i] == UInt8(ascii: "-") { i += 1 }
                var exp = 0
                while i < bytes.count, bytes[i] >= 0x30, bytes[i] <= 0x39 { i += 1; exp += 1 }
                guard exp > 0 else { throw JSONParseError(offset: start, message: "invalid number") }
            }
            return Array(bytes[start..<i])
        }

        mutating func hex4() throws(JSONParseError) -> UInt32 {
            guard i + 4 <= bytes.count else { throw JSONParseError(offset: i, message: "truncated \\u escape") }
            var v: UInt32 = 0
            for _ in 0..<4 {
                guard let h = hexNibble(bytes[i]) else { throw JSONParseError(offset: i, message: "invalid \\u escape") }
                v = v << 4 | UInt32(h)
                i += 1
            }
            return v
        }

        mutating func string() throws(JSONParseError) -> [UInt8] {
            let start = i
            i += 1
            var out: [UInt8] = []
            var runStart = i
            while i < bytes.count {
                let b = bytes[i]
                if b == UInt8(ascii: "\"") {
                    if out.isEmpty { let r = Array(bytes[runStart..<i]); i += 1; return r }
                    out.append(contentsOf: bytes[runStart..<i])
                    i += 1
                    return out
                }
                if b == UInt8(ascii: "\\") {
                    out.append(contentsOf: bytes[runStart..<i])
                    i += 1
                    guard i < bytes.count else { break }
                    let e = bytes[i]
                    i += 1
                    if let simple = jsonSimpleEscape(e) {
                        out.append(simple)
                    } else if e == UInt8(ascii: "u") {
                        var scalar = try hex4()
                        if scalar >= 0xD800, scalar < 0xDC00, i + 6 <= bytes.count,
                           bytes[i] == UInt8(ascii: "\\"), bytes[i + 1] == UInt8(ascii: "u") {
                            i += 2
                            let low = try hex4()
                            if low >= 0xDC00, low < 0xE000 {
                                scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                            }
                        }
                        appendUTF8(scalar, to: &out)
                    } else {
                        throw JSONParseError(offset: i - 2, message: "invalid escape")
                    }
                    runStart = i
                    continue
                }
                if b < 0x20 { throw JSONParseError(offset: i, message: "control character in string") }
                i += 1
            }
            throw JSONParseError(offset: start, message: "unterminated string")
        }
    }
}

/// The byte a one-letter JSON escape stands for (`n` after a backslash is a line feed), nil for `u`
/// and for letters that are no escape.
@inline(__always)
func jsonSimpleEscape(_ e: UInt8) -> UInt8? {
    switch e {
    case UInt8(ascii: "\""): return 0x22
    case UInt8(ascii: "\\"): return 0x5C
    case UInt8(ascii: "/"): return 0x2F
    case UInt8(ascii: "b"): return 0x08
    case UInt8(ascii: "f"): return 0x0C
    case UInt8(ascii: "n"): return 0x0A
    case UInt8(ascii: "r"): return 0x0D
    case UInt8(ascii: "t"): return 0x09
    default: return nil
    }
}

/// Appends the UTF-8 encoding of `scalar` (lone surrogates become U+FFFD).
func appendUTF8(_ scalar: UInt32, to out: inout [UInt8]) {
    guard let s = Unicode.Scalar(scalar) else { out.append(contentsOf: [0xEF, 0xBF, 0xBD]); return }
    out.append(contentsOf: Array(String(Character(s)).utf8))
}

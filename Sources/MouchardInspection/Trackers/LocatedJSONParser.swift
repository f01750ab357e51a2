/// A strict, bounded JSON reader (RFC 8259) producing `LocatedJSON`.
///
/// Strict where hand-edited rule files need it: duplicate keys in one object are errors, trailing commas
/// and comments are errors, strings must be valid UTF-8 without raw control characters. Nesting is bounded
/// (`maxDepth`) so hostile input cannot exhaust the stack. Every read is bounds-checked.
public struct LocatedJSONParser {
    /// Deepest nesting of arrays and objects accepted.
    public var maxDepth: Int

    public init(maxDepth: Int = 64) {
        self.maxDepth = maxDepth
    }

    /// Parses one JSON document (surrounding whitespace allowed, nothing else after it).
    public func parse(_ bytes: some Collection<UInt8>) throws(JSONSyntaxError) -> LocatedJSON {
        var cursor = Cursor(bytes: Array(bytes), maxDepth: maxDepth)
        if cursor.bytes.starts(with: [0xEF, 0xBB, 0xBF]) { cursor.position = 3 } // UTF-8 byte order mark
        cursor.skipWhitespace()
        let value = try cursor.parseValue(depth: 0)
        cursor.skipWhitespace()
        if cursor.position < cursor.bytes.count {
            throw cursor.error("unexpected \(cursor.describeCurrent()) after the end of the document")
        }
        return value
    }
}

private struct Cursor {
    let bytes: [UInt8]
    let maxDepth: Int
    var position = 0
    var line = 1
    var lineStart = 0

    init(bytes: [UInt8], maxDepth: Int) {
        self.bytes = bytes
        self.maxDepth = maxDepth
    }

    var location: JSONLocation { JSONLocation(line: line, column: position - lineStart + 1, offset: position) }

    func error(_ message: String, at location: JSONLocation? = nil) -> JSONSyntaxError {
        JSONSyntaxError(location: location ?? self.location, message: message)
    }

    func describeCurrent() -> String {
        guard position < bytes.count else { return "end of input" }
        let byte = bytes[position]
        if byte >= 0x21 && byte < 0x7F { return "'\(Character(Unicode.Scalar(byte)))'" }
        return "byte 0x\(String(byte, radix: 16, uppercase: true))"
    }

    mutating func skipWhitespace() {
        while position < bytes.count {
            switch bytes[position] {
            case 0x20, 0x09, 0x0D:
                position += 1
            case 0x0A:
                position += 1
                line += 1
                lineStart = position
            default:
                return
            }
        }
    }

    mutating func parseValue(depth: Int) throws(JSONSyntaxError) -> LocatedJSON {
        guard position < bytes.count else { throw error("expected a value, found end of input") }
        let start = location
        switch bytes[position] {
        case UInt8(ascii: "{"):
            return try parseObject(depth: depth + 1, start: start)
        case UInt8(ascii: "["):
            return try parseArray(depth: depth + 1, start: start)
        case UInt8(ascii: "\""):
            return .string(try parseString(), at: start)
        case UInt8(ascii: "t"):
            try expectWord("true")
            return .bool(true, at: start)
        case UInt8(ascii: "f"):
            try expectWord("false")
            return .bool(false, at: start)
        case UInt8(ascii: "n"):
            try expectWord("null")
            return .null(at: start)
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            return try parseNumber(start: start)
        default:
            throw error("expected a value, found \(describeCurrent())")
        }
    }

    mutating func expectWord(_ word: StaticString) throws(JSONSyntaxError) {
        let expected = UnsafeBufferPointer(start: word.utf8Start, count: word.utf8CodeUnitCount)
        guard bytes.count - position >= expected.count,
              bytes[position..<(position + expected.count)].elementsEqual(expected) else {
            throw error("expected a value, found \(describeCurrent())")
        }
        position += expected.count
    }

    mutating func parseObject(depth: Int, start: JSONLocation) throws(JSONSyntaxError) -> LocatedJSON {
        guard depth <= maxDepth else { throw error("nesting deeper than \(maxDepth) levels") }
        position += 1 // {
        var members: [LocatedJSON.Member] = []
        var seen: [String: JSONLocation] = [:]
        skipWhitespace()
        if position < bytes.count, bytes[position] == UInt8(ascii: "}") {
            position += 1
            return .object(members, at: start)
        }
        while true {
            skipWhitespace()
            guard position < bytes.count, bytes[position] == UInt8(ascii: "\"") else {
                throw error("expected a quoted key, found \(describeCurrent())")
            }
            let keyLocation = location
            let key = try parseString()
            if let first = seen[key] {
                throw error("duplicate key \"\(key)\" (first at \(first))", at: keyLocation)
            }
            seen[key] = keyLocation
            skipWhitespace()
            guard position < bytes.count, bytes[position] == UInt8(ascii: ":") else {
                throw error("expected ':' after key \"\(key)\", found \(describeCurrent())")
            }
            position += 1
            skipWhitespace()
            let value = try parseValue(depth: depth)
            members.append(LocatedJSON.Member(key: key, keyLocation: keyLocation, value: value))
            skipWhitespace()
            guard position < bytes.count else { throw error("unterminated object (opened at \(start))") }
            if bytes[position] == UInt8(ascii: ",") {
                position += 1
                continue
            }
            if bytes[position] == UInt8(ascii: "}") {
                position += 1
                return .object(members, at: start)
            }
            throw error("expected ',' or '}' in object, found \(describeCurrent())")
        }
    }

    mutating func parseArray(depth: Int, start: JSONLocation) throws(JSONSyntaxError) -> LocatedJSON {
        guard depth <= maxDepth else { throw error("nesting deeper than \(maxDepth) levels") }
        position += 1 // [
        var elements: [LocatedJSON] = []
        skipWhitespace()
        if position < bytes.count, bytes[position] == UInt8(ascii: "]") {
            position += 1
            return .array(elements, at: start)
        }
        while true {
            skipWhitespace()
            elements.append(try parseValue(depth: depth))
            skipWhitespace()
            guard position < bytes.count else { throw error("unterminated array (opened at \(start))") }
            if bytes[position] == UInt8(ascii: ",") {
                position += 1
                continue
            }
            if bytes[position] == UInt8(ascii: "]") {
                position += 1
                return .array(elements, at: start)
            }
            throw error("expected ',' or ']' in array, found \(describeCurrent())")
        }
    }

    mutating func parseString() throws(JSONSyntaxError) -> String {
        let start = location
        position += 1 // opening quote
        var utf8: [UInt8] = []
        while true {
            guard position < bytes.count else { throw error("unterminated string (opened at \(start))", at: start) }
            let byte = bytes[position]
            switch byte {
            case UInt8(ascii: "\""):
                position += 1
                guard let text = String(validating: utf8, as: UTF8.self) else {
                    throw error("string is not valid UTF-8", at: start)
                }
                return text
            case UInt8(ascii: "\\"):
                try parseEscape(into: &utf8)
            case 0x00..<0x20:
                throw error("raw control character 0x\(String(byte, radix: 16)) in string (escape it)")
            default:
                utf8.append(byte)
                position += 1
            }
        }
    }

    mutating func parseEscape(into utf8: inout [UInt8]) throws(JSONSyntaxError) {
        let escapeLocation = location
        guard position + 1 < bytes.count else { throw error("unterminated escape sequence") }
        let code = bytes[position + 1]
        position += 2
        switch code {
        case UInt8(ascii: "\""): utf8.append(0x22)
        case UInt8(ascii: "\\"): utf8.append(0x5C)
        case UInt8(ascii: "/"): utf8.append(0x2F)
        case UInt8(ascii: "b"): utf8.append(0x08)
        case UInt8(ascii: "f"): utf8.append(0x0C)
        case UInt8(ascii: "n"): utf8.append(0x0A)
        case UInt8(ascii: "r"): utf8.append(0x0D)
        case UInt8(ascii: "t"): utf8.append(0x09)
        case UInt8(ascii: "u"):
            var scalarValue = try readHex4(escapeStart: escapeLocation)
            if (0xD800..<0xDC00).contains(scalarValue) {
                guard position + 1 < bytes.count, bytes[position] == UInt8(ascii: "\\"),
                      bytes[position + 1] == UInt8(ascii: "u") else {
                    throw error("unpaired high surrogate \\u\(String(scalarValue, radix: 16))", at: escapeLocation)
                }
                position += 2
                let low = try readHex4(escapeStart: escapeLocation)
                guard (0xDC00..<0xE000).contains(low) else {
                    throw error("invalid low surrogate \\u\(String(low, radix: 16))", at: escapeLocation)
                }
                scalarValue = 0x10000 + ((scalarValue - 0xD800) << 10) + (low - 0xDC00)
            } else if (0xDC00..<0xE000).contains(scalarValue) {
                throw error("unpaired low surrogate \\u\(String(scalarValue, radix: 16))", at: escapeLocation)
            }
            guard let scalar = Unicode.Scalar(scalarValue) else {
                throw error("invalid unicode escape", at: escapeLocation)
            }
            utf8.append(contentsOf: String(Character(scalar)).utf8)
        default:
            throw error("invalid escape sequence", at: escapeLocation)
        }
    }

    mutating func readHex4(escapeStart: JSONLocation) throws(JSONSyntaxError) -> UInt32 {
        guard bytes.count - position >= 4 else { throw error("truncated \\u escape", at: escapeStart) }
        var value: UInt32 = 0
        for _ in 0..<4 {
            let byte = bytes[position]
            let digit: UInt8
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
            default: throw error("invalid hex digit in \\u escape", at: escapeStart)
            }
            value = value << 4 | UInt32(digit)
            position += 1
        }
        return value
    }

    mutating func parseNumber(start: JSONLocation) throws(JSONSyntaxError) -> LocatedJSON {
        let begin = position
        func isDigit(_ b: UInt8) -> Bool { b >= UInt8(ascii: "0") && b <= UInt8(ascii: "9") }
        if bytes[position] == UInt8(ascii: "-") { position += 1 }
        guard position < bytes.count, isDigit(bytes[position]) else { throw error("invalid number", at: start) }
        if bytes[position] == UInt8(ascii: "0") {
            position += 1
            if position < bytes.count, isDigit(bytes[position]) {
                throw error("invalid number: leading zero", at: start)
            }
        } else {
            while position < bytes.count, isDigit(bytes[position]) { position += 1 }
        }
        if position < bytes.count, bytes[position] == UInt8(ascii: ".") {
            position += 1
            guard position < bytes.count, isDigit(bytes[position]) else {
                throw error("invalid number: no digit after '.'", at: start)
            }
            while position < bytes.count, isDigit(bytes[position]) { position += 1 }
        }
        if position < bytes.count, bytes[position] == UInt8(ascii: "e") || bytes[position] == UInt8(ascii: "E") {
            position += 1
            if position < bytes.count, bytes[position] == UInt8(ascii: "+") || bytes[position] == UInt8(ascii: "-") {
                position += 1
            }
            guard position < bytes.count, isDigit(bytes[position]) else {
                throw error("invalid number: no digit in exponent", at: start)
            }
            while position < bytes.count, isDigit(bytes[position]) { position += 1 }
        }
        let text = String(decoding: bytes[begin..<position], as: UTF8.self)
        guard let value = Double(text), value.isFinite else { throw error("number out of range", at: start) }
        return .number(value, text: text, at: start)
    }
}

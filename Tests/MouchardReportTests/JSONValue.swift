import MouchardWire

/// A parsed JSON value with its exact kind (integer vs number vs boolean), for schema checks of
/// test outputs. The text is parsed by the shared `MouchardWire.JSONParser`; this is only its view.
indirect enum JSONValue: Equatable {
    case null, bool(Bool), integer(Int), number(Double), string(String), array([JSONValue]), object([String: JSONValue])

    struct ParseError: Error, CustomStringConvertible {
        var offset: Int
        var what: String
        var description: String { "JSON parse error at byte \(offset): \(what)" }
    }

    static func parse(_ bytes: [UInt8]) throws -> JSONValue {
        do {
            return try JSONValue(try JSONParser(maxDepth: 200).parse(bytes))
        } catch let error as JSONParseError {
            throw ParseError(offset: error.offset, what: error.message)
        }
    }

    private init(_ v: MouchardWire.JSONValue) throws {
        switch v.kind {
        case .null: self = .null
        case .bool(let b): self = .bool(b)
        case .string: self = .string(v.stringValue ?? "")
        case .number(let digits):
            let text = String(decoding: digits, as: UTF8.self)
            if let n = Int(text) { self = .integer(n); return }
            guard let d = Double(text) else { throw ParseError(offset: v.offset, what: "bad number '\(text)'") }
            self = .number(d)
        case .array(let items):
            var a: [JSONValue] = []
            for item in items { a.append(try JSONValue(item)) }
            self = .array(a)
        case .object(let members):
            var o: [String: JSONValue] = [:]
            for m in members { o[m.key] = try JSONValue(m.value) }
            self = .object(o)
        }
    }

    subscript(_ key: String) -> JSONValue? {
        if case .object(let o) = self { return o[key] }
        return nil
    }
    var array: [JSONValue]? { if case .array(let a) = self { return a }; return nil }
    var string: String? { if case .string(let s) = self { return s }; return nil }
    var int: Int? { if case .integer(let n) = self { return n }; return nil }
}

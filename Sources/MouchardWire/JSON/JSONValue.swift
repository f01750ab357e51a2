/// A parsed JSON value that remembers where it started in its source (byte offset), so that
/// rule files and device profiles can report `file:line:column` for what is wrong, and the
/// inspector can walk request bodies as bytes without Foundation.
public struct JSONValue: Sendable, Hashable {
    /// Byte offset of the first byte of this value in the parsed text.
    public var offset: Int
    public var kind: Kind

    /// The shape of a JSON value. Strings keep their UTF-8 bytes; numbers keep their text as written.
    public indirect enum Kind: Sendable, Hashable {
        case object([JSONMember])
        case array([JSONValue])
        case string([UInt8])
        case number([UInt8])
        case bool(Bool)
        case null
    }

    public init(offset: Int, kind: Kind) { self.offset = offset; self.kind = kind }

    /// The string's text, when this is a string.
    public var stringValue: String? {
        if case .string(let b) = kind { return String(decoding: b, as: UTF8.self) }
        return nil
    }

    /// The number's value, when this is a number.
    public var doubleValue: Double? {
        if case .number(let b) = kind { return Double(String(decoding: b, as: UTF8.self)) }
        return nil
    }

    /// Members of an object, in order (nil if not an object).
    public var members: [JSONMember]? {
        if case .object(let m) = kind { return m }
        return nil
    }

    /// Elements of an array (nil if not an array).
    public var elements: [JSONValue]? {
        if case .array(let a) = kind { return a }
        return nil
    }

    /// A word for error messages: `an object`, `a string`, ...
    public var kindName: String {
        switch kind {
        case .object: "an object"
        case .array: "an array"
        case .string: "a string"
        case .number: "a number"
        case .bool: "a boolean"
        case .null: "null"
        }
    }
}

/// One `"key": value` pair of a JSON object, with the offset of its key.
public struct JSONMember: Sendable, Hashable {
    public var key: String
    public var keyOffset: Int
    public var value: JSONValue
    public init(key: String, keyOffset: Int, value: JSONValue) {
        self.key = key
        self.keyOffset = keyOffset
        self.value = value
    }
}

/// Why a JSON text could not be parsed, and at which byte offset.
public struct JSONParseError: Error, Sendable, Equatable, CustomStringConvertible {
    public var offset: Int
    public var message: String
    public init(offset: Int, message: String) { self.offset = offset; self.message = message }
    public var description: String { "\(message) at byte \(offset)" }
}

/// Maps byte offsets of a text to 1-based `line:column` (columns count characters, not bytes).
public struct TextLocator: Sendable {
    private let bytes: [UInt8]
    public init(_ bytes: [UInt8]) { self.bytes = bytes }

    public func position(of offset: Int) -> (line: Int, column: Int) {
        var line = 1, column = 1
        var i = 0
        let end = min(max(offset, 0), bytes.count)
        while i < end {
            let b = bytes[i]
            if b == 0x0A { line += 1; column = 1 } else if b & 0xC0 != 0x80 { column += 1 }
            i += 1
        }
        return (line, column)
    }
}

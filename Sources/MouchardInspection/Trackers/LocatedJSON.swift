/// A JSON value that remembers where it was written, so rule-file errors can say `file:line:column`.
///
/// Foundation's `JSONSerialization` keeps neither positions nor duplicate keys (a repeated key silently
/// wins or loses), which is not good enough for hand-edited rule files: a duplicated tracker domain must be
/// an error, not a coin toss. Objects keep their members in file order.
public indirect enum LocatedJSON: Sendable, Hashable {
    case object([Member], at: JSONLocation)
    case array([LocatedJSON], at: JSONLocation)
    case string(String, at: JSONLocation)
    /// The number's value and its text as written (`1`, `1.50`, `-2e3`).
    case number(Double, text: String, at: JSONLocation)
    case bool(Bool, at: JSONLocation)
    case null(at: JSONLocation)

    /// One `"key": value` pair of an object, with the key's own position.
    public struct Member: Sendable, Hashable {
        public var key: String
        public var keyLocation: JSONLocation
        public var value: LocatedJSON
        public init(key: String, keyLocation: JSONLocation, value: LocatedJSON) {
            self.key = key
            self.keyLocation = keyLocation
            self.value = value
        }
    }

    /// Where the value starts in its source text.
    public var location: JSONLocation {
        switch self {
        case .object(_, let at), .array(_, let at), .string(_, let at), .number(_, _, let at), .bool(_, let at),
             .null(let at):
            return at
        }
    }

    /// A short name of the value's kind for error messages: `object`, `array`, `string`, ...
    public var kindName: String {
        switch self {
        case .object: return "object"
        case .array: return "array"
        case .string: return "string"
        case .number: return "number"
        case .bool: return "boolean"
        case .null: return "null"
        }
    }
}

/// A position in a source text: 1-based line and column (columns count UTF-8 bytes) and the 0-based byte offset.
public struct JSONLocation: Sendable, Hashable, CustomStringConvertible {
    public var line: Int
    public var column: Int
    public var offset: Int
    public init(line: Int, column: Int, offset: Int) {
        self.line = line
        self.column = column
        self.offset = offset
    }
    /// `line:column`.
    public var description: String { "\(line):\(column)" }
}

/// Why a JSON text could not be read, and where.
public struct JSONSyntaxError: Error, Sendable, Hashable, CustomStringConvertible {
    public var location: JSONLocation
    public var message: String
    public init(location: JSONLocation, message: String) {
        self.location = location
        self.message = message
    }
    /// `line:column: message`.
    public var description: String { "\(location): \(message)" }
}

/// Why `Rules/trackers.json` (or another tracker directory) was refused: file, position, entry and what is wrong.
///
/// `description` is one line, `file:line:column: what`, naming the entry when the problem is inside one.
public struct TrackerDirectoryError: Error, Sendable, Hashable, CustomStringConvertible {
    public var file: String
    public var location: JSONLocation?
    /// The domain key of the entry at fault, when there is one.
    public var entry: String?
    public var message: String

    public init(file: String, location: JSONLocation?, entry: String? = nil, message: String) {
        self.file = file
        self.location = location
        self.entry = entry
        self.message = message
    }

    public var description: String {
        let position = location.map { "\(file):\($0.line):\($0.column)" } ?? file
        if let entry { return "\(position): entry \"\(entry)\": \(message)" }
        return "\(position): \(message)"
    }
}

/// A position in a source text: 1-based line and column (columns count characters, as `TextLocator`
/// does) and the 0-based byte offset.
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

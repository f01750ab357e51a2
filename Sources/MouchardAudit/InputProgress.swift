/// How far the reading of one input has got, for a progress line: bytes of a capture file, or
/// entries of a HAR file or session (`noun` names them).
public struct InputProgress: Sendable, Hashable {
    /// The input as given.
    public var name: String
    public var done: Int
    public var total: Int
    /// nil: `done` and `total` are bytes; else what they count (`entries`, `flows`).
    public var noun: String?

    public init(name: String, done: Int, total: Int, noun: String? = nil) {
        self.name = name
        self.done = done
        self.total = total
        self.noun = noun
    }
}

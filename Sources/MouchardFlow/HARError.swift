/// Why a HAR file could not be read: the JSON path of the offending value
/// (`log.entries[12].request.headers[3].value`) or, for broken JSON, the byte offset.
public struct HARError: Error, Sendable, Hashable, CustomStringConvertible {
    /// JSON path of the value at fault; empty when the JSON itself is malformed.
    public var path: String
    /// Byte offset in the file where JSON parsing stopped (syntax errors only).
    public var byteOffset: Int?
    /// What was wrong, e.g. `expected a string, found a number`.
    public var message: String
    /// The entry is well-formed but records no network request (a `data:` or `blob:` URL...):
    /// skipped without making the file suspect.
    public var notNetwork: Bool

    public init(path: String, byteOffset: Int? = nil, message: String, notNetwork: Bool = false) {
        self.path = path
        self.byteOffset = byteOffset
        self.message = message
        self.notNetwork = notNetwork
    }

    /// `log.entries[3].request.url: missing`, or `byte 120: invalid JSON: expected ',' or '}'`.
    public var description: String {
        if let o = byteOffset { return "byte \(o): invalid JSON: \(message)" }
        return path.isEmpty ? message : "\(path): \(message)"
    }
}

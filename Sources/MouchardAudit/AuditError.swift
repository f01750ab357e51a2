/// A failure of an audit's inputs or configuration worth one clear line: what and where
/// (`captures/x.har: cannot read`). Its description is the message alone.
public struct AuditError: Error, Sendable, CustomStringConvertible {
    public var message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}

/// A libpcap failure: which operation, on what, and libpcap's own message.
public struct PcapError: Error, Sendable, CustomStringConvertible {
    public var operation: String
    public var message: String
    public init(_ operation: String, _ message: String) {
        self.operation = operation
        self.message = message
    }
    public var description: String { "\(operation): \(message)" }
}

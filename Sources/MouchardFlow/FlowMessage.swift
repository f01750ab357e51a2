import Foundation

/// One message of a connection that switched protocols after its HTTP exchange (a WebSocket text
/// or binary message), as the application sent it: unmasked, and inflated when it travelled
/// compressed (`permessage-deflate`).
public struct FlowMessage: Sendable, Hashable {
    /// Who sent it.
    public enum Direction: String, Sendable, Hashable, CaseIterable {
        /// The device (HAR `send`).
        case client
        /// The server (HAR `receive`).
        case server
    }

    public var direction: Direction
    /// When its last frame arrived.
    public var time: Date
    /// The WebSocket opcode: 1 text, 2 binary.
    public var opcode: Int
    /// The payload (the first `FlowMessage.captureLimit` bytes, see `truncated`).
    public var data: [UInt8]
    /// It travelled compressed (RSV1 with `permessage-deflate`); `data` is inflated.
    public var compressed: Bool
    /// `data` holds only the first part of the message (capture limit, or a cut capture).
    public var truncated: Bool

    public init(direction: Direction, time: Date, opcode: Int, data: [UInt8], compressed: Bool = false, truncated: Bool = false) {
        self.direction = direction
        self.time = time
        self.opcode = opcode
        self.data = data
        self.compressed = compressed
        self.truncated = truncated
    }

    /// WebSocket text (1) and binary (2) opcodes.
    public static let textOpcode = 1
    public static let binaryOpcode = 2

    /// Bytes of one message kept for inspection (the rest is relayed, not kept).
    public static let captureLimit = 1 << 20
}

extension Flow {
    /// The `extras` entry that says how the connection's WebSocket part ended (`"client 1000 bye"`,
    /// an error of the proxy's, or `"open"` for a flow recorded while the connection was still up).
    public static let webSocketCloseField = "_webSocketClose"
    /// The `extras` entry counting messages not kept (past the per-flow limits, see `Flow.messages`).
    public static let messagesDroppedField = "_messagesDropped"
    /// The `extras` entry giving the index of this flow's first message on its connection, when a
    /// long connection's messages are recorded over several flows.
    public static let firstMessageIndexField = "_firstMessageIndex"

    /// Index on the connection of this flow's first message (0 unless a long connection was split).
    public var firstMessageIndex: Int {
        extras[Flow.firstMessageIndexField].flatMap { Int($0) } ?? 0
    }
}

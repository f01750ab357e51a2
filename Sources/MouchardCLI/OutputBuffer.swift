/// Buffers what a command writes to stdout and hands it over in chunks of about 64 KiB, so streamed
/// output (one finding at a time) costs one write per chunk, not one per finding.
final class OutputBuffer {
    static let chunk = 64 * 1024
    private let io: CommandIO
    /// Append here, then call `flushIfFull()`.
    var text = ""

    init(_ io: CommandIO) {
        self.io = io
        text.reserveCapacity(Self.chunk + 4096)
    }

    func flushIfFull() {
        if text.utf8.count >= Self.chunk { flush() }
    }

    func flush() {
        guard !text.isEmpty else { return }
        io.out(text)
        text.removeAll(keepingCapacity: true)
    }
}

import MouchardPosix

/// What a `StreamConnection` tells its owner. Called on the connection's loop thread.
protocol StreamConnectionDelegate: AnyObject {
    /// A non-blocking connect finished (successfully when `error` is nil).
    func streamConnected(_ stream: StreamConnection, error: PosixError?)
    /// Bytes arrived (only while reading is not paused).
    func stream(_ stream: StreamConnection, received bytes: [UInt8])
    /// The peer finished sending (end of stream) or the connection broke (`error`).
    func streamEnded(_ stream: StreamConnection, error: PosixError?)
    /// The output buffer fell below the low-water mark after having been above the high-water mark.
    func streamDrained(_ stream: StreamConnection)
}

/// One non-blocking TCP connection on an event loop, with an output buffer and read pausing:
/// the byte pump under every proxy connection. It knows nothing about HTTP or TLS.
final class StreamConnection: IOHandler {
    let socket: Socket
    let loop: EventLoop
    weak var delegate: StreamConnectionDelegate?
    private(set) var isConnecting: Bool
    private(set) var isClosed = false
    private(set) var readingPaused = false
    private var peerEnded = false
    private var output: [UInt8] = []
    private var outputStart = 0
    private var closeAfterFlush = false
    private var shutdownAfterFlush = false
    private var wasAboveHighWater = false
    /// Last time bytes moved either way (loop monotonic ms), for idle timeouts.
    private(set) var lastActivity: UInt64
    /// Total bytes read and written, for statistics.
    private(set) var bytesIn = 0
    private(set) var bytesOut = 0

    /// Above this many queued output bytes the other side stops reading (backpressure).
    static let highWater = 256 * 1024
    static let lowWater = 64 * 1024

    init(socket: Socket, loop: EventLoop, connecting: Bool) {
        self.socket = socket
        self.loop = loop
        self.isConnecting = connecting
        self.lastActivity = loop.now
    }

    /// Registers with the loop; afterwards events flow to the delegate.
    func start() throws(PosixError) {
        try loop.register(socket, handler: self)
    }

    var pendingOutput: Int { output.count - outputStart }
    var isAboveHighWater: Bool { pendingOutput > StreamConnection.highWater }

    func handle(_ events: IOEvents) {
        if isClosed { return }
        if isConnecting {
            guard events.contains(.writable) || events.contains(.error) || events.contains(.hangup) else { return }
            isConnecting = false
            let error = socket.pendingError()
            if let error {
                delegate?.streamConnected(self, error: error)
                return
            }
            lastActivity = loop.now
            delegate?.streamConnected(self, error: nil)
            if isClosed { return }
        }
        if events.contains(.writable) || events.contains(.error) { flush() }
        if isClosed { return }
        if events.contains(.readable) || events.contains(.hangup) || events.contains(.error) { readAvailable() }
    }

    /// Queues bytes for the peer and writes what the kernel takes now.
    func send(_ bytes: [UInt8]) {
        guard !isClosed, !bytes.isEmpty else { return }
        if pendingOutput == 0 && !isConnecting {
            var written = 0
            do {
                written = try bytes.withUnsafeBytes { raw throws(PosixError) in try socket.write(raw) }
            } catch {
                fail(error as? PosixError ?? PosixError(kind: .other, operation: "write", code: 0))
                return
            }
            bytesOut += written
            if written == bytes.count {
                lastActivity = loop.now
                return
            }
            output.removeAll(keepingCapacity: true)
            outputStart = 0
            output.append(contentsOf: bytes[written...])
        } else {
            output.append(contentsOf: bytes)
        }
        if isAboveHighWater { wasAboveHighWater = true }
    }

    /// Writes queued bytes until the kernel would block.
    private func flush() {
        while pendingOutput > 0 {
            let written: Int
            do {
                written = try output.withUnsafeBytes { raw throws(PosixError) in
                    try socket.write(UnsafeRawBufferPointer(rebasing: raw[outputStart...]))
                }
            } catch {
                fail(error as? PosixError ?? PosixError(kind: .other, operation: "write", code: 0))
                return
            }
            if written == 0 { break }
            outputStart += written
            bytesOut += written
            lastActivity = loop.now
        }
        if pendingOutput == 0 {
            output.removeAll(keepingCapacity: output.capacity <= 1 << 20)
            outputStart = 0
            if closeAfterFlush {
                close()
                return
            }
            if shutdownAfterFlush {
                shutdownAfterFlush = false
                socket.shutdownWrite()
            }
        } else if outputStart > 1 << 20 {
            output.removeFirst(outputStart)
            outputStart = 0
        }
        if wasAboveHighWater && pendingOutput <= StreamConnection.lowWater {
            wasAboveHighWater = false
            delegate?.streamDrained(self)
        }
    }

    private func readAvailable() {
        guard !readingPaused, !peerEnded else { return }
        var budget = 16  // bound the work per event so one busy connection cannot starve the loop
        while !isClosed && !readingPaused && budget > 0 {
            budget -= 1
            let scratch = loop.readBuffer
            let result: Socket.ReadResult
            do {
                result = try socket.read(into: scratch)
            } catch {
                fail(error)
                return
            }
            switch result {
            case .bytes(let n):
                bytesIn += n
                lastActivity = loop.now
                delegate?.stream(self, received: Array(UnsafeRawBufferPointer(rebasing: scratch[..<n])))
                if n < scratch.count { return }
            case .wouldBlock:
                return
            case .endOfStream:
                peerEnded = true
                delegate?.streamEnded(self, error: nil)
                return
            }
        }
        if budget == 0 && !readingPaused && !isClosed {
            loop.deferToEndOfBatch { [weak self] in self?.readAvailable() }
        }
    }

    /// Stops reading (the peer's data waits in the kernel, which pushes back on the sender).
    func pauseReading() { readingPaused = true }

    /// Reads again, including whatever arrived while paused.
    func resumeReading() {
        guard readingPaused else { return }
        readingPaused = false
        loop.deferToEndOfBatch { [weak self] in self?.readAvailable() }
    }

    /// Half-closes once the queued output is written.
    func shutdownWriteAfterFlush() {
        if pendingOutput == 0 { socket.shutdownWrite() } else { shutdownAfterFlush = true }
    }

    /// Closes once the queued output is written.
    func closeAfterFlushing() {
        if pendingOutput == 0 { close() } else { closeAfterFlush = true; readingPaused = true }
    }

    func close() {
        guard !isClosed else { return }
        isClosed = true
        loop.deregister(socket, closing: true)
        socket.close()
        output = []
        outputStart = 0
    }

    private func fail(_ error: PosixError) {
        guard !isClosed else { return }
        close()
        delegate?.streamEnded(self, error: error)
    }
}


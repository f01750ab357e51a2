import Foundation
import Glibc

/// An origin server on 127.0.0.1 (ephemeral port) whose every accepted connection runs the
/// case's script on its own thread: read requests, answer with exact bytes, stay silent, speak
/// first. What arrived is kept for the case to check (`requests`, `connections`).
public final class ScriptedOrigin: @unchecked Sendable {
    public let port: Int
    private let listener: Int32
    private let script: @Sendable (ScriptedOrigin.Connection) throws -> Void
    private let lock = NSLock()
    private var received: [WireMessage] = []
    private var accepted = 0
    private var open: [RawConnection] = []
    private var stopped = false

    /// One accepted connection, seen by the script.
    public struct Connection: Sendable {
        public let raw: RawConnection
        let origin: ScriptedOrigin

        /// The next request (recorded for the case), or nil when the proxy closed first.
        public func readRequest(timeout: Double = 10) -> WireMessage? {
            guard let m = try? raw.readMessage(responseTo: nil, timeout: timeout) else { return nil }
            origin.record(m)
            return m
        }

        public func send(_ text: String) { try? raw.send(text) }
        public func send(_ bytes: [UInt8]) { try? raw.send(bytes) }

        /// Waits up to `seconds` (or until the proxy closes) without answering.
        public func stall(_ seconds: Double) { _ = raw.closesWithin(seconds) }
    }

    public init(_ script: @escaping @Sendable (ScriptedOrigin.Connection) throws -> Void) throws {
        self.script = script
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw ConformanceError("socket: errno \(errno)") }
        var one: Int32 = 1
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = in_addr_t(0x7F00_0001).bigEndian
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { p in
            p.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) == 0 && getsockname(fd, $0, &length) == 0 }
        }
        guard bound, listen(fd, 64) == 0 else {
            Glibc.close(fd)
            throw ConformanceError("cannot listen on 127.0.0.1: errno \(errno)")
        }
        listener = fd
        port = Int(UInt16(bigEndian: address.sin_port))
        Thread.detachNewThread { [self] in acceptLoop() }
    }

    private func acceptLoop() {
        while true {
            let fd = accept(listener, nil, nil)
            if fd < 0 {
                if errno == EINTR { continue }
                return  // the listener was shut down
            }
            let raw = RawConnection(fd: fd)
            lock.lock()
            if stopped {
                lock.unlock()
                raw.close()
                return
            }
            accepted += 1
            open.append(raw)
            lock.unlock()
            Thread.detachNewThread { [self] in
                try? script(Connection(raw: raw, origin: self))
                finished(raw)
            }
        }
    }

    /// The script is over: the connection closes (the proxy reads its end).
    private func finished(_ raw: RawConnection) {
        lock.lock()
        open.removeAll { $0 === raw }
        raw.close()
        lock.unlock()
    }

    func record(_ m: WireMessage) {
        lock.lock()
        received.append(m)
        lock.unlock()
    }

    /// The requests the scripts read, in arrival order.
    public var requests: [WireMessage] {
        lock.lock()
        defer { lock.unlock() }
        return received
    }

    /// How many connections the proxy opened to this origin.
    public var connections: Int {
        lock.lock()
        defer { lock.unlock() }
        return accepted
    }

    /// Stops accepting and closes every connection (scripts still running see their reads fail).
    public func stop() {
        lock.lock()
        guard !stopped else {
            lock.unlock()
            return
        }
        stopped = true
        let all = open
        open = []
        lock.unlock()
        shutdown(listener, Int32(SHUT_RDWR))
        Glibc.close(listener)
        for c in all { Glibc.shutdown(c.fd, Int32(SHUT_RDWR)) }
    }

    deinit { stop() }
}

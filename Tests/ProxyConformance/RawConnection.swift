import Foundation
import Glibc

/// Why a conformance step could not go on (connect refused, a wait ran out...).
public struct ConformanceError: Error, CustomStringConvertible {
    public var description: String
    public init(_ description: String) { self.description = description }
}

/// One TCP connection with blocking writes and reads bounded by a deadline: the client of a
/// conformance case (it speaks raw bytes to the proxy) and each connection a scripted origin accepts.
public final class RawConnection: @unchecked Sendable {
    let fd: Int32
    /// Everything read so far that no `take` consumed.
    public private(set) var buffer: [UInt8] = []
    /// The peer closed (or reset) its side.
    public private(set) var peerClosed = false
    private var isClosed = false

    init(fd: Int32) { self.fd = fd }

    /// Connects to an IPv4 `host:port` (numeric), giving up after `timeout` seconds; from the
    /// local address `source` when given (another loopback address, to play another client).
    public static func connect(host: String, port: Int, timeout: Double = 5, source: String? = nil) throws -> RawConnection {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        guard inet_pton(AF_INET, host, &address.sin_addr) == 1 else { throw ConformanceError("not an IPv4 address: \(host)") }
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw ConformanceError("socket: errno \(errno)") }
        let connection = RawConnection(fd: fd)
        var tv = timeval(tv_sec: Int(timeout), tv_usec: Int((timeout - Double(Int(timeout))) * 1_000_000))
        setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, socklen_t(MemoryLayout<timeval>.size))
        if let source {
            var local = sockaddr_in()
            local.sin_family = sa_family_t(AF_INET)
            guard inet_pton(AF_INET, source, &local.sin_addr) == 1 else { throw ConformanceError("not an IPv4 address: \(source)") }
            let bound = withUnsafePointer(to: &local) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
            }
            guard bound == 0 else { throw ConformanceError("cannot bind to \(source): errno \(errno)") }
        }
        let status = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard status == 0 else {
            let e = errno
            connection.close()
            throw ConformanceError("cannot connect to \(host):\(port): errno \(e)")
        }
        var one: Int32 = 1
        setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
        return connection
    }

    public func send(_ text: String) throws { try send(Array(text.utf8)) }

    public func send(_ bytes: [UInt8]) throws {
        var sent = 0
        while sent < bytes.count {
            let n = bytes[sent...].withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else { throw ConformanceError("send failed: errno \(errno)") }
            sent += n
        }
    }

    /// Half-closes: the peer reads end of stream, this side can still read.
    public func shutdownWrite() { Glibc.shutdown(fd, Int32(SHUT_WR)) }

    /// Reads once, waiting at most until `deadline`; false when nothing more can come before it.
    @discardableResult
    func readSome(until deadline: Date) -> Bool {
        guard !peerClosed else { return false }
        let left = deadline.timeIntervalSinceNow
        guard left > 0 else { return false }
        var pfd = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        let ready = poll(&pfd, 1, Int32(min(left * 1000, 60_000)) + 1)
        if ready < 0 && errno == EINTR { return true }
        guard ready > 0 else { return deadline.timeIntervalSinceNow > 0 }
        var chunk = [UInt8](repeating: 0, count: 65_536)
        let n = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
        if n > 0 {
            buffer.append(contentsOf: chunk[0..<n])
        } else if n == 0 || (errno != EINTR && errno != EAGAIN) {
            peerClosed = true
        }
        return true
    }

    /// Reads until `done` is true of the buffer, the peer closes, or `timeout` seconds pass;
    /// returns whether `done` became true.
    @discardableResult
    public func read(timeout: Double, until done: ([UInt8]) -> Bool) -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        while !done(buffer) {
            if !readSome(until: deadline) { return done(buffer) }
        }
        return true
    }

    /// True when the peer closes within `timeout` seconds (bytes read meanwhile stay in the buffer).
    public func closesWithin(_ timeout: Double) -> Bool {
        read(timeout: timeout) { _ in false }
        return peerClosed
    }

    /// Removes and returns the first `count` bytes of the buffer.
    public func take(_ count: Int) -> [UInt8] {
        let n = min(count, buffer.count)
        let out = Array(buffer[0..<n])
        buffer.removeFirst(n)
        return out
    }

    /// The next whole message from the buffer, reading more as needed: a response to `method`
    /// (interim 1xx heads included, as their own messages) or, with `method` nil, a request.
    public func readMessage(responseTo method: String?, timeout: Double) throws -> WireMessage {
        let deadline = Date().addingTimeInterval(timeout)
        while true {
            switch try WireMessage.parse(buffer, responseTo: method, complete: peerClosed) {
            case .message(let m, let consumed):
                buffer.removeFirst(consumed)
                return m
            case .needMore:
                if !readSome(until: deadline) {
                    let what = method == nil ? "request" : "response"
                    let got = buffer.isEmpty ? "nothing" : "\(buffer.count) bytes: \(WireMessage.printable(buffer.prefix(200)))"
                    throw ConformanceError(peerClosed ? "connection closed before a whole \(what) (got \(got))"
                                                      : "no whole \(what) within \(timeout) s (got \(got))")
                }
            }
        }
    }

    /// The next final response (interim 1xx responses are skipped).
    public func readFinalResponse(to method: String, timeout: Double) throws -> WireMessage {
        let deadline = Date().addingTimeInterval(timeout)
        while true {
            let m = try readMessage(responseTo: method, timeout: max(0.01, deadline.timeIntervalSinceNow))
            if m.status.map({ $0 >= 200 || $0 == 101 }) ?? true { return m }
        }
    }

    public func close() {
        guard !isClosed else { return }
        isClosed = true
        Glibc.close(fd)
    }

    deinit { close() }
}

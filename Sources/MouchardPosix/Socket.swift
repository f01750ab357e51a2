#if canImport(Glibc)
import Glibc
#endif
import CMouchardShims

/// A non-blocking TCP socket (a file descriptor) and the system calls on it.
/// The owner closes it exactly once with `close()`.
public struct Socket: Sendable, Hashable {
    public let fd: Int32

    public init(fd: Int32) { self.fd = fd }

    /// What a non-blocking read gave.
    public enum ReadResult: Sendable, Equatable {
        case bytes(Int)
        case wouldBlock
        case endOfStream
    }

    /// A listening socket bound to `address`. `reusePort` lets one socket per event loop share the port.
    public static func listen(on address: SocketAddress, backlog: Int32 = 1024, reusePort: Bool = false) throws(PosixError) -> Socket {
        let fd = mouchard_tcp_socket(address.family)
        guard fd >= 0 else { throw PosixError(operation: "socket") }
        let socket = Socket(fd: fd)
        do throws(PosixError) {
            try socket.setOption(level: mouchard_sol_socket(), name: mouchard_so_reuseaddr(), value: 1, what: "SO_REUSEADDR")
            if reusePort {
                try socket.setOption(level: mouchard_sol_socket(), name: mouchard_so_reuseport(), value: 1, what: "SO_REUSEPORT")
            }
            if address.isIPv6 {
                try socket.setOption(level: mouchard_ipproto_ipv6(), name: mouchard_ipv6_v6only(), value: 1, what: "IPV6_V6ONLY")
            }
            var storage = address.storage
            let rc = withUnsafePointer(to: &storage) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.bind(fd, $0, address.length) }
            }
            guard rc == 0 else { throw PosixError(operation: "bind \(address)") }
            guard Glibc.listen(fd, backlog) == 0 else { throw PosixError(operation: "listen \(address)") }
        } catch {
            socket.close()
            throw error
        }
        return socket
    }

    /// Starts a non-blocking connect; the socket becomes writable when it completes (check `pendingError()`).
    public static func connect(to address: SocketAddress) throws(PosixError) -> Socket {
        let fd = mouchard_tcp_socket(address.family)
        guard fd >= 0 else { throw PosixError(operation: "socket") }
        var storage = address.storage
        let rc = withUnsafePointer(to: &storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(fd, $0, address.length) }
        }
        if rc != 0 {
            let e = mouchard_errno()
            if e != EINPROGRESS {
                Glibc.close(fd)
                throw PosixError(operation: "connect \(address)", errno: e)
            }
        }
        let socket = Socket(fd: fd)
        try? socket.setNoDelay()
        return socket
    }

    /// Accepts one pending connection (non-blocking); nil when none is waiting.
    public func accept() throws(PosixError) -> (Socket, SocketAddress)? {
        var storage = sockaddr_storage()
        var len = socklen_t(MemoryLayout<sockaddr_storage>.size)
        let fd = mouchard_accept(self.fd, &storage, &len)
        if fd < 0 {
            let e = mouchard_errno()
            if e == EAGAIN || e == EWOULDBLOCK || e == EINTR || e == ECONNABORTED { return nil }
            throw PosixError(operation: "accept", errno: e)
        }
        return (Socket(fd: fd), SocketAddress(storage: storage, length: len))
    }

    /// Reads into `buffer`; never blocks.
    public func read(into buffer: UnsafeMutableRawBufferPointer) throws(PosixError) -> ReadResult {
        while true {
            let n = Glibc.read(fd, buffer.baseAddress, buffer.count)
            if n > 0 { return .bytes(n) }
            if n == 0 { return .endOfStream }
            let e = mouchard_errno()
            if e == EINTR { continue }
            if e == EAGAIN || e == EWOULDBLOCK { return .wouldBlock }
            throw PosixError(operation: "read", errno: e)
        }
    }

    /// Writes as much of `bytes` as the kernel takes now; returns the count (0 = would block).
    public func write(_ bytes: UnsafeRawBufferPointer) throws(PosixError) -> Int {
        guard bytes.count > 0 else { return 0 }
        while true {
            let n = mouchard_send(fd, bytes.baseAddress, bytes.count)
            if n >= 0 { return n }
            let e = mouchard_errno()
            if e == EINTR { continue }
            if e == EAGAIN || e == EWOULDBLOCK { return 0 }
            throw PosixError(operation: "write", errno: e)
        }
    }

    /// The result of a non-blocking connect (SO_ERROR): nil when connected.
    public func pendingError() -> PosixError? {
        let e = mouchard_so_error(fd)
        return e == 0 ? nil : PosixError(operation: "connect", errno: e)
    }

    public func setNoDelay() throws(PosixError) {
        try setOption(level: mouchard_ipproto_tcp(), name: mouchard_tcp_nodelay(), value: 1, what: "TCP_NODELAY")
    }

    func setOption(level: Int32, name: Int32, value: Int32, what: String) throws(PosixError) {
        guard mouchard_set_int_option(fd, level, name, value) == 0 else { throw PosixError(operation: "setsockopt \(what)") }
    }

    /// Half-closes: no more writes (the peer reads end of stream).
    public func shutdownWrite() { _ = Glibc.shutdown(fd, mouchard_shut_wr()) }

    public func close() { _ = Glibc.close(fd) }

    /// The local address (useful after binding port 0).
    public func localAddress() throws(PosixError) -> SocketAddress {
        var storage = sockaddr_storage()
        var len = socklen_t(MemoryLayout<sockaddr_storage>.size)
        let rc = withUnsafeMutablePointer(to: &storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &len) }
        }
        guard rc == 0 else { throw PosixError(operation: "getsockname") }
        return SocketAddress(storage: storage, length: len)
    }

    /// The peer's address.
    public func peerAddress() throws(PosixError) -> SocketAddress {
        var storage = sockaddr_storage()
        var len = socklen_t(MemoryLayout<sockaddr_storage>.size)
        let rc = withUnsafeMutablePointer(to: &storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getpeername(fd, $0, &len) }
        }
        guard rc == 0 else { throw PosixError(operation: "getpeername") }
        return SocketAddress(storage: storage, length: len)
    }

    /// Where a NAT redirect sent this connection originally (transparent mode): conntrack's
    /// original destination, asked with `SO_ORIGINAL_DST` for IPv4 and v4-mapped peers (a dual-stack
    /// socket's IPv4 clients are tracked as IPv4), `IP6T_SO_ORIGINAL_DST` for IPv6. Fails with
    /// ENOENT (or ENOPROTOOPT) when the kernel has no NAT entry for the connection.
    public func originalDestination() throws(PosixError) -> SocketAddress {
        let peer = try peerAddress()
        var storage = sockaddr_storage()
        var len = socklen_t(MemoryLayout<sockaddr_storage>.size)
        if peer.isIPv6 && !peer.isV4Mapped {
            guard mouchard_original_dst6(fd, &storage, &len) == 0 else { throw PosixError(operation: "IP6T_SO_ORIGINAL_DST") }
        } else {
            guard mouchard_original_dst(fd, &storage, &len) == 0 else { throw PosixError(operation: "SO_ORIGINAL_DST") }
        }
        return SocketAddress(storage: storage, length: len)
    }
}

import Foundation
import Synchronization
import Testing
import MouchardPosix

/// The epoll loop, timers, cross-thread tasks, sockets and errno mapping, on loopback.
@Suite struct EventLoopTests {
    final class Box<T>: @unchecked Sendable {
        let lock = NSLock()
        var value: T
        init(_ v: T) { value = v }
        func with<R>(_ f: (inout T) -> R) -> R { lock.lock(); defer { lock.unlock() }; return f(&value) }
    }

    func waitUntil(_ seconds: Double = 5, _ condition: () -> Bool) -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            if condition() { return true }
            usleep(2_000)
        }
        return condition()
    }

    @Test func timersFireInDeadlineOrderAndCancelledOnesDoNot() throws {
        let group = try EventLoopGroup(threads: 1)
        defer { group.shutdown() }
        let loop = group.loops[0]
        let fired = Box<[Int]>([])
        loop.execute {
            loop.schedule(afterMilliseconds: 30) { fired.with { $0.append(3) } }
            loop.schedule(afterMilliseconds: 10) { fired.with { $0.append(1) } }
            let cancelled = loop.schedule(afterMilliseconds: 15) { fired.with { $0.append(99) } }
            loop.schedule(afterMilliseconds: 20) { fired.with { $0.append(2) } }
            loop.cancel(cancelled)
        }
        #expect(waitUntil { fired.with { $0.count } == 3 })
        usleep(30_000)
        #expect(fired.with { $0 } == [1, 2, 3])
    }

    @Test func tasksPostedFromManyThreadsAllRunOnTheLoop() throws {
        let group = try EventLoopGroup(threads: 2)
        defer { group.shutdown() }
        let count = Atomic<Int>(0)
        let offLoop = Atomic<Int>(0)
        DispatchQueue.concurrentPerform(iterations: 8) { i in
            let loop = group.loops[i % 2]
            for _ in 0..<500 {
                loop.execute {
                    if !loop.inLoop { offLoop.wrappingAdd(1, ordering: .relaxed) }
                    count.wrappingAdd(1, ordering: .relaxed)
                }
            }
        }
        #expect(waitUntil { count.load(ordering: .relaxed) == 4000 })
        #expect(offLoop.load(ordering: .relaxed) == 0)
    }

    /// Echo server on the loop, a blocking client thread: bytes round-trip through accept/read/write.
    final class Echo: IOHandler {
        let socket: Socket
        let loop: EventLoop
        var peers: [Peer] = []
        init(socket: Socket, loop: EventLoop) { self.socket = socket; self.loop = loop }
        func handle(_ events: IOEvents) {
            while let (s, _) = (try? socket.accept()) ?? nil {
                let p = Peer(socket: s)
                peers.append(p)
                try? loop.register(s, handler: p)
            }
        }
        final class Peer: IOHandler {
            let socket: Socket
            init(socket: Socket) { self.socket = socket }
            func handle(_ events: IOEvents) {
                var buffer = [UInt8](repeating: 0, count: 4096)
                while true {
                    let r = buffer.withUnsafeMutableBytes { try? socket.read(into: $0) }
                    guard case .bytes(let n)? = r else { return }
                    _ = buffer.withUnsafeBytes { try? socket.write(UnsafeRawBufferPointer(rebasing: $0[..<n])) }
                }
            }
        }
    }

    @Test func socketsAcceptReadAndWriteOnLoopback() throws {
        let group = try EventLoopGroup(threads: 1)
        defer { group.shutdown() }
        let loop = group.loops[0]
        let listener = try Socket.listen(on: SocketAddress(ip: "127.0.0.1", port: 0)!)
        let address = try listener.localAddress()
        #expect(address.isLoopback && address.port > 0)
        let echo = Echo(socket: listener, loop: loop)
        let box = Box<Echo?>(echo)
        loop.execute { try? loop.register(listener, handler: box.value!) }

        let client = try Socket.connect(to: address)
        defer { client.close() }
        // Wait for the connect, then send and read back (non-blocking client, polled).
        #expect(waitUntil { client.pendingError() == nil && (try? client.peerAddress()) != nil })
        let message = Array("hello through epoll".utf8)
        _ = try message.withUnsafeBytes { try client.write($0) }
        var received: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 256)
        _ = waitUntil {
            if case .bytes(let n)? = buffer.withUnsafeMutableBytes({ try? client.read(into: $0) }) { received += buffer[..<n] }
            return received.count >= message.count
        }
        #expect(received == message)
        loop.execute { box.with { $0 = nil } }
    }

    @Test func errnoIsMappedToTypedErrors() throws {
        let taken = try Socket.listen(on: SocketAddress(ip: "127.0.0.1", port: 0)!)
        defer { taken.close() }
        let address = try taken.localAddress()
        #expect(throws: PosixError.self) { try Socket.listen(on: address) }
        do {
            _ = try Socket.listen(on: address)
        } catch {
            #expect(error.kind == .addressInUse)
            #expect(error.description.contains("bind 127.0.0.1:\(address.port)"))
        }
        // Connecting to a closed port: refused (reported through SO_ERROR once the connect completes).
        let closedPort = address.port
        taken.close()
        let client = try Socket.connect(to: SocketAddress(ip: "127.0.0.1", port: closedPort)!)
        defer { client.close() }
        var error: PosixError?
        _ = waitUntil { error = client.pendingError(); return error != nil }
        #expect(error?.kind == .connectionRefused)
    }

    @Test func addressesParseAndPrint() {
        #expect(SocketAddress(parsing: "127.0.0.1:8080")?.description == "127.0.0.1:8080")
        #expect(SocketAddress(parsing: "[::1]:443")?.description == "[::1]:443")
        #expect(SocketAddress(parsing: "[::1]:443")?.isLoopback == true)
        #expect(SocketAddress(parsing: "0.0.0.0:1")?.isUnspecified == true)
        #expect(SocketAddress(parsing: "example.com:80") == nil)
        #expect(SocketAddress(parsing: "127.0.0.1:99999") == nil)
        #expect(SocketAddress(parsing: "10.0.0.1:80")?.isLoopback == false)
    }

    @Test func resolverAnswersLiteralsAndNamesOffTheLoop() throws {
        let group = try EventLoopGroup(threads: 1)
        defer { group.shutdown() }
        let resolver = Resolver(threads: 1)
        defer { resolver.shutdown() }
        let results = Box<[String]>([])
        resolver.resolve(host: "localhost", port: 80, on: group.loops[0]) { r in
            results.with { $0.append((try? r.get().first?.isLoopback) == true ? "ok" : "bad") }
        }
        resolver.resolve(host: "127.0.0.9", port: 81, on: group.loops[0]) { r in
            results.with { $0.append((try? r.get().first?.description) ?? "bad") }
        }
        resolver.resolve(host: "no-such-host.invalid", port: 80, on: group.loops[0]) { r in
            if case .failure(let e) = r { results.with { $0.append(e.kind == .nameResolution ? "nx" : "bad") } }
        }
        #expect(waitUntil(10) { results.with { $0.count } == 3 })
        #expect(Set(results.with { $0 }) == ["ok", "127.0.0.9:81", "nx"])
    }
}

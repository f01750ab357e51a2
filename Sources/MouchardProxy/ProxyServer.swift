import Foundation
import MouchardPosix
import MouchardWire

/// The forward proxy: one listening socket per event loop (SO_REUSEPORT spreads connections),
/// sessions that live on the loop that accepted them, a shared DNS resolver and flow sink.
/// `start()` returns the bound address; `stop()` closes everything and stops the loops.
public final class ProxyServer: @unchecked Sendable {
    public let configuration: ProxyConfiguration
    private let sink: any FlowSink
    private let localResponder: @Sendable (HTTPRequestHead) -> LocalResponse?
    private let interceptor: TLSInterceptor?
    private var group: EventLoopGroup?
    private var resolver: Resolver?
    private var shared: ProxyShared?
    private var contexts: [LoopContext] = []
    private var listeners: [Listener] = []
    /// The address the proxy listens on (known after `start()`).
    public private(set) var boundAddress: SocketAddress?

    public init(configuration: ProxyConfiguration, sink: any FlowSink = DiscardingFlowSink(),
                interceptor: TLSInterceptor? = nil,
                localResponder: @escaping @Sendable (HTTPRequestHead) -> LocalResponse? = { _ in nil }) {
        self.configuration = configuration
        self.sink = sink
        self.interceptor = interceptor
        self.localResponder = localResponder
    }

    /// Counters since start.
    public var statistics: ProxyStatistics.Snapshot? { shared?.statistics.snapshot }

    /// Binds, starts the loops and accepts connections; returns the bound address.
    @discardableResult
    public func start() throws -> SocketAddress {
        let patterns = try configuration.ignoreHosts.map { try IgnoreHostPattern($0) }
        ResourceLimits.raiseOpenFileLimit()
        let threads = max(1, configuration.threads)
        // Bind every listening socket first so a bad address fails before any thread starts.
        var sockets: [Socket] = []
        var address = configuration.listen
        if threads > 1 && address.port != 0 {
            // SO_REUSEPORT would let us share a port another proxy already listens on: check first.
            let probe = try Socket.listen(on: address, backlog: 1, reusePort: false)
            probe.close()
        }
        do {
            for i in 0..<threads {
                let s = try Socket.listen(on: address, reusePort: threads > 1)
                sockets.append(s)
                if i == 0 { address = try s.localAddress() }
            }
        } catch {
            for s in sockets { s.close() }
            throw error
        }
        boundAddress = address
        let group = try EventLoopGroup(threads: threads)
        let resolver = Resolver(threads: 2)
        let shared = ProxyShared(configuration: configuration, resolver: resolver, sink: sink, ignorePatterns: patterns,
                                 localResponder: localResponder, boundPort: address.port, interceptor: interceptor)
        self.group = group
        self.resolver = resolver
        self.shared = shared
        for (loop, socket) in zip(group.loops, sockets) {
            let context = LoopContext(loop: loop, shared: shared)
            let listener = Listener(socket: socket, context: context)
            contexts.append(context)
            listeners.append(listener)
            let box = UncheckedBox((context, listener))
            loop.execute {
                let (context, listener) = box.value
                do {
                    try loop.register(listener.socket, handler: listener)
                } catch {
                    FileHandle.standardError.write(Data("mouchard: cannot watch the listening socket: \(error)\n".utf8))
                }
                context.startSweeping()
            }
        }
        return address
    }

    /// Closes every connection, stops the loops and the resolver (waits up to a few seconds).
    public func stop() {
        guard let group else { return }
        let done = DispatchGroup()
        for (context, listener) in zip(contexts, listeners) {
            done.enter()
            let box = UncheckedBox((context, listener))
            context.loop.execute {
                let (context, listener) = box.value
                context.loop.deregister(listener.socket)
                listener.socket.close()
                context.closeAll()
                done.leave()
            }
        }
        _ = done.wait(timeout: .now() + 5)
        group.shutdown()
        resolver?.shutdown()
        self.group = nil
        contexts = []
        listeners = []
    }
}

/// Accepts connections on one loop's listening socket and starts a session for each.
final class Listener: IOHandler {
    let socket: Socket
    let context: LoopContext

    init(socket: Socket, context: LoopContext) {
        self.socket = socket
        self.context = context
    }

    func handle(_ events: IOEvents) {
        while true {
            let accepted: (Socket, SocketAddress)?
            do {
                accepted = try socket.accept()
            } catch {
                // EMFILE and friends: the listener is edge-triggered, so retry shortly rather than
                // wait for a new connection to trigger readiness again.
                context.loop.schedule(afterMilliseconds: 100) { [weak self] in self?.handle(.readable) }
                return
            }
            guard let (client, address) = accepted else { return }
            try? client.setNoDelay()
            let stream = StreamConnection(socket: client, loop: context.loop, connecting: false)
            let session = ProxySession(context: context, client: stream, clientAddress: address)
            stream.delegate = session
            do {
                try stream.start()
            } catch {
                client.close()
                continue
            }
            context.add(session)
            context.shared.statistics.accepted.wrappingAdd(1, ordering: .relaxed)
        }
    }
}

/// Carries loop-confined objects into a closure that runs on that same loop.
struct UncheckedBox<T>: @unchecked Sendable {
    let value: T
    init(_ value: T) { self.value = value }
}

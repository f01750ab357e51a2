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
    /// Every address listened on: `listen` then `additionalListen`, with ports resolved.
    public private(set) var boundAddresses: [SocketAddress] = []

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
        // Bind every listening socket first so a bad address fails before any thread starts:
        // one socket per loop and address.
        var sockets: [[Socket]] = []
        var address = configuration.listen
        var addresses = [configuration.listen] + configuration.additionalListen
        do {
            for (n, listen) in addresses.enumerated() {
                if threads > 1 && listen.port != 0 {
                    // SO_REUSEPORT would let us share a port another proxy already listens on: check first.
                    let probe = try Socket.listen(on: listen, backlog: 1, reusePort: false)
                    probe.close()
                }
                var perLoop: [Socket] = []
                // Port 0 on a further address means the same port as the first one got.
                var bound = n > 0 && listen.port == 0 ? SocketAddress(ip: listen.ip, port: address.port) ?? listen : listen
                for i in 0..<threads {
                    let s: Socket
                    do {
                        s = try Socket.listen(on: bound, reusePort: threads > 1)
                    } catch {
                        for s in perLoop { s.close() }
                        throw error
                    }
                    perLoop.append(s)
                    if i == 0 { bound = try s.localAddress() }
                }
                sockets.append(perLoop)
                addresses[n] = bound
                if n == 0 { address = bound }
            }
        } catch {
            for s in sockets.joined() { s.close() }
            throw error
        }
        boundAddress = address
        boundAddresses = addresses
        let group = try EventLoopGroup(threads: threads)
        let resolver = Resolver(threads: 2)
        let shared = ProxyShared(configuration: configuration, resolver: resolver, sink: sink, ignorePatterns: patterns,
                                 localResponder: localResponder, boundPort: address.port, interceptor: interceptor)
        self.group = group
        self.resolver = resolver
        self.shared = shared
        for (index, loop) in group.loops.enumerated() {
            let context = LoopContext(loop: loop, shared: shared)
            let mine = sockets.map { Listener(socket: $0[index], context: context) }
            contexts.append(context)
            listeners.append(contentsOf: mine)
            let box = UncheckedBox((context, mine))
            loop.execute {
                let (context, mine) = box.value
                for listener in mine {
                    do {
                        try loop.register(listener.socket, handler: listener)
                    } catch {
                        context.shared.configuration.log("mouchard: cannot watch the listening socket: \(error)")
                    }
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
        for context in contexts {
            done.enter()
            let box = UncheckedBox((context, listeners.filter { $0.context === context }))
            context.loop.execute {
                let (context, mine) = box.value
                for listener in mine {
                    context.loop.deregister(listener.socket)
                    listener.socket.close()
                }
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
            if !context.shared.configuration.access.allows(address) {
                client.close()  // never served, not even read
                context.shared.refuse(address.unmapped)
                continue
            }
            var redirect: TransparentRedirect?
            if context.shared.configuration.transparent {
                guard let r = transparentRedirect(client, from: address) else {
                    client.close()
                    continue
                }
                redirect = r
            }
            try? client.setNoDelay()
            let stream = StreamConnection(socket: client, loop: context.loop, connecting: false)
            let session = ProxySession(context: context, client: stream, clientAddress: address.unmapped, redirect: redirect)
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

extension Listener {
    /// Where a redirected connection was going (conntrack's original destination), or nil (the
    /// connection is refused and logged) when there is no NAT entry or it targets this listener.
    func transparentRedirect(_ client: Socket, from peer: SocketAddress) -> TransparentRedirect? {
        let shared = context.shared
        let original: SocketAddress
        let local: SocketAddress
        do {
            original = try client.originalDestination().unmapped
            local = try client.localAddress().unmapped
        } catch {
            shared.statistics.refused.wrappingAdd(1, ordering: .relaxed)
            shared.configuration.log("mouchard: refused \(peer.unmapped): no NAT entry for this connection " +
                                     "(it was not redirected to the gateway's listener): \(error)")
            return nil
        }
        if original == local || (original.ip == local.ip && original.port == local.port) {
            shared.statistics.refused.wrappingAdd(1, ordering: .relaxed)
            shared.configuration.log("mouchard: refused \(peer.unmapped) → \(original): a connection to the gateway's own " +
                                     "listener would loop")
            return nil
        }
        return TransparentRedirect(original: original, toGatewayItself: original.ip == local.ip)
    }
}

/// A transparently redirected connection: where the client meant to go.
struct TransparentRedirect {
    var original: SocketAddress
    /// The client targeted the gateway's own address (on another port): only the onboarding page
    /// is served there.
    var toGatewayItself: Bool

    var target: UpstreamTarget { UpstreamTarget(host: original.ip, port: original.port, tls: false) }
}

/// Carries loop-confined objects into a closure that runs on that same loop.
struct UncheckedBox<T>: @unchecked Sendable {
    let value: T
    init(_ value: T) { self.value = value }
}

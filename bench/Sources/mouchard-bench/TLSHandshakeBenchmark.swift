import Foundation
import MouchardTLS
import Synchronization

/// `mouchard-bench tls-handshake [SECONDS]`: in-memory TLS 1.3 handshakes between a fresh
/// TLSClientSession (verifying, like the proxy's upstream side) and a fresh TLSServerSession
/// (leaf from the cache, like the phone side), one small request and response each. Run twice:
/// full handshakes (no resumption) and with the client's session cache (resumed). Single
/// thread; rates are per CPU-second of this thread (the machine is shared, wall time is noisy),
/// with the wall-clock rate alongside. Also times leaf minting and cache hits.
@MainActor let tlsHandshakeBenchmark = Benchmark(
    name: "tls-handshake",
    summary: "in-memory TLS 1.3 client↔server handshakes/s (single thread) and leaf mints/s"
) { args in
    let seconds = args.first.flatMap(Double.init) ?? 5
    let setup = try TLSBenchSetup()
    defer { setup.remove() }
    let (minter, serverContext) = (setup.minter, setup.serverContext)
    let anchors = UpstreamVerification.only(anchorFiles: [setup.authority.certificatePath])
    let fullContext = try TLSClientContext(verification: anchors, resumableOrigins: 0)
    let resumingContext = try TLSClientContext(verification: anchors)
    var bench = TLSHandshakeLoop(serverContext: serverContext, minter: minter)

    for (label, context) in [("full", fullContext), ("resumed", resumingContext)] {
        for _ in 0..<50 { _ = try bench.connect(clientContext: context) }  // warm-up (fills caches)
        bench.serverCPU = 0
        var count = 0, resumed = 0
        let start = Date(), cpuStart = threadCPUTime()
        while Date().timeIntervalSince(start) < seconds / 2 {
            for _ in 0..<50 { resumed += try bench.connect(clientContext: context) ? 1 : 0 }
            count += 50
        }
        let wall = Date().timeIntervalSince(start), cpu = threadCPUTime() - cpuStart
        print(String(format: "tls-handshake %@: %d connections (%d resumed), %.0f/CPU-s both sides (%.0f/s wall); "
                     + "server side alone %.0f µs CPU = %.0f/CPU-s", label, count, resumed, Double(count) / cpu,
                     Double(count) / wall, bench.serverCPU / Double(count) * 1e6, Double(count) / bench.serverCPU))
    }

    var mints = 0
    let mintStart = Date(), mintCPU = threadCPUTime()
    while Date().timeIntervalSince(mintStart) < min(2, seconds) {
        _ = try minter.identity(serverName: "host\(mints).bench.test")
        mints += 1
    }
    print(String(format: "leaf-mint: %d new leaves, %.0f mints/CPU-s (cache misses)", mints, Double(mints) / (threadCPUTime() - mintCPU)))
    let hitCPU = threadCPUTime()
    for hit in 0..<200_000 { _ = try minter.identity(serverName: "host\(hit % 1000).bench.test") }
    print(String(format: "leaf-cache-hit: %.0f lookups/CPU-s", 200_000 / (threadCPUTime() - hitCPU)))
}

/// A throw-away CA (in a temporary directory), a minter and a server context for one run.
struct TLSBenchSetup {
    let home = NSTemporaryDirectory() + "mouchard-bench-tls-\(UUID().uuidString)"
    let authority: CertificateAuthority
    let minter: LeafCertificateMinter
    let serverContext: TLSServerContext

    init() throws {
        authority = try CertificateAuthority.loadOrCreate(directory: home)
        minter = try LeafCertificateMinter(authority: authority, cacheCapacity: 100_000)
        serverContext = try TLSServerContext()
    }

    func remove() { try? FileManager.default.removeItem(atPath: home) }
}

/// CPU time of the calling thread, in seconds.
func threadCPUTime() -> Double {
    var t = timespec()
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t)
    return Double(t.tv_sec) + Double(t.tv_nsec) * 1e-9
}

/// One client↔server connection pumped in memory; accumulates the server side's CPU time.
struct TLSHandshakeLoop {
    let serverContext: TLSServerContext
    let minter: LeafCertificateMinter
    var serverCPU = 0.0
    let request = Array("GET / HTTP/1.1\r\nHost: bench.test\r\n\r\n".utf8)
    let response = Array("HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok".utf8)

    /// Returns whether the handshake was resumed.
    mutating func connect(clientContext: TLSClientContext) throws -> Bool {
        let client = try TLSClientSession(context: clientContext, host: "bench.test")
        var mark = threadCPUTime()
        let server = try TLSServerSession(context: serverContext)
        serverCPU += threadCPUTime() - mark
        try client.write(request)
        var gotRequest = false, gotResponse = false
        for _ in 0..<10 {
            let toServer = client.pendingOutput()
            mark = threadCPUTime()
            for event in server.feed(toServer) {
                switch event {
                case .clientHello(let hello):
                    for e in server.provideIdentity(try minter.identity(serverName: hello.serverName)) {
                        if case .failed(let error) = e { throw error }
                    }
                case .plaintext:
                    gotRequest = true
                    try server.write(response)
                case .failed(let error): throw error
                default: break
                }
            }
            let toClient = server.pendingOutput()
            serverCPU += threadCPUTime() - mark
            for event in client.feed(toClient) {
                if case .plaintext = event { gotResponse = true }
                if case .failed(let error) = event { throw error }
            }
            if gotRequest, gotResponse { return client.isResumed }
        }
        throw TLSError.handshakeFailed("benchmark exchange did not finish")
    }
}

/// `mouchard-bench tls-idle-memory [N]`: memory held by N established, idle phone-side sessions
/// (each after a 100 KB response, so grown buffers must have been given back), with their
/// client peers freed. The proxy keeps thousands of idle keep-alive connections.
@MainActor let tlsIdleMemoryBenchmark = Benchmark(
    name: "tls-idle-memory",
    summary: "RSS per idle established TLSServerSession after a 100 KB response"
) { args in
    let count = args.first.flatMap(Int.init) ?? 2000
    let setup = try TLSBenchSetup()
    defer { setup.remove() }
    let (minter, serverContext) = (setup.minter, setup.serverContext)
    let clientContext = try TLSClientContext(verification: .only(anchorFiles: [setup.authority.certificatePath]))
    let body = [UInt8](repeating: 0x61, count: 100_000)
    var held: [TLSServerSession] = []
    held.reserveCapacity(count)
    func residentBytes() -> Int {
        guard let text = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8) else { return 0 }
        let fields = text.split(separator: " ")
        return fields.count > 1 ? (Int(fields[1]) ?? 0) * Int(sysconf(Int32(_SC_PAGESIZE))) : 0
    }
    _ = try minter.identity(serverName: "idle.test")
    let before = residentBytes()
    for _ in 0..<count {
        let client = try TLSClientSession(context: clientContext, host: "idle.test")
        let server = try TLSServerSession(context: serverContext, identity: try minter.identity(serverName: "idle.test"))
        var received = 0
        for round in 0..<20 {
            _ = server.feed(client.pendingOutput())
            if round == 2 { try server.write(body) }
            for case .plaintext(let bytes) in client.feed(server.pendingOutput()) { received += bytes.count }
            if received >= body.count { break }
        }
        guard received == body.count else { throw TLSError.handshakeFailed("idle benchmark transfer incomplete") }
        held.append(server)
    }
    let after = residentBytes()
    print(String(format: "tls-idle-memory: %d idle server sessions hold %.1f MB RSS = %.1f KB each",
                 held.count, Double(after - before) / 1e6, Double(after - before) / Double(count) / 1e3))
}

/// `mouchard-bench tls-handshake-threads [SECONDS] [THREADS]`: the full-handshake loop on
/// several threads sharing the contexts and the minter (one event loop per core in the proxy):
/// shows whether OpenSSL's internal locks let it scale. Reports wall-clock totals and CPU use.
@MainActor let tlsHandshakeThreadsBenchmark = Benchmark(
    name: "tls-handshake-threads",
    summary: "full in-memory TLS handshakes on N threads sharing one SSL_CTX pair"
) { args in
    let seconds = args.first.flatMap(Double.init) ?? 5
    let threads = args.dropFirst().first.flatMap(Int.init) ?? 2
    let setup = try TLSBenchSetup()
    defer { setup.remove() }
    let clientContext = try TLSClientContext(verification: .only(anchorFiles: [setup.authority.certificatePath]),
                                             resumableOrigins: 0)
    let results = Mutex<[(count: Int, cpu: Double)]>([])
    let finished = DispatchSemaphore(value: 0)
    let start = Date()
    for _ in 0..<threads {
        Thread.detachNewThread { [setup] in
            var loop = TLSHandshakeLoop(serverContext: setup.serverContext, minter: setup.minter)
            var count = 0
            let cpuStart = threadCPUTime()
            while Date().timeIntervalSince(start) < seconds {
                for _ in 0..<20 { if (try? loop.connect(clientContext: clientContext)) != nil { count += 1 } }
            }
            let cpu = threadCPUTime() - cpuStart
            results.withLock { $0.append((count, cpu)) }
            finished.signal()
        }
    }
    for _ in 0..<threads { finished.wait() }
    let wall = Date().timeIntervalSince(start)
    let all = results.withLock { $0 }
    let total = all.reduce(0) { $0 + $1.count }, cpu = all.reduce(0) { $0 + $1.cpu }
    print(String(format: "tls-handshake-threads: %d threads, %d connections in %.2f s = %.0f/s wall, %.0f per CPU-second (CPU used %.2f s)",
                 threads, total, wall, Double(total) / wall, Double(total) / cpu, cpu))
}

import MouchardFlow
import MouchardProxy
import Synchronization

/// Names the IP-only flows of the gateway (no Host, no SNI: raw TCP, UDP, QUIC without a readable
/// SNI) with the DNS answer the phone got for that address, seen on the phone side: the flow keeps
/// its address as the fact and gains `_dnsName` as evidence. Thread-safe: answers come from the
/// capture thread, flows from the event loops.
public final class DNSNamingSink: FlowSink {
    private let inner: any FlowSink
    private let names = Mutex<[String: String]>([:])
    /// Addresses remembered at most (the oldest answers are forgotten first beyond it).
    static let capacity = 65_536

    public init(_ inner: any FlowSink) { self.inner = inner }

    /// A DNS answer: each address now names `name` (the latest answer wins).
    public func learn(_ observation: DNSObservation) {
        guard !observation.name.isEmpty else { return }
        names.withLock { map in
            if map.count >= Self.capacity { map.removeAll(keepingCapacity: true) }
            for a in observation.addresses { map[a] = observation.name.lowercased() }
        }
    }

    public func name(of address: String) -> String? { names.withLock { $0[address] } }

    public func record(_ flow: Flow) {
        var f = flow
        if f.request == nil, (f.tls?.serverName ?? "").isEmpty, let a = f.server?.address, let n = name(of: a),
           n.allSatisfy({ $0 != "\"" && $0 != "\\" }) {
            f.extras[Flow.dnsNameKey] = "\"\(n)\""
        }
        inner.record(f)
    }
}

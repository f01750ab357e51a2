import MouchardFlow
import MouchardProxy
import Synchronization

/// Joins the DNS answers the phone got (seen on the phone side) to the gateway's flows, keeping the
/// original destination address as the fact and names as evidence:
/// - an IP-only flow (no Host, no SNI: raw TCP, UDP, QUIC without a readable SNI) gains `_dnsName`,
///   the name the phone resolved to its address;
/// - an intercepted flow whose claimed name (SNI, else Host) the phone resolved, but not to the
///   address it then connected to, gains `_nameMismatch` (a spoofed Host/SNI, a hard-coded address,
///   or another resolver than the gateway's view: recorded, never blocked). A name with no answer
///   seen makes no claim either way.
/// Thread-safe: answers come from the capture thread, flows from the event loops.
public final class DNSNamingSink: FlowSink {
    private struct Answers {
        /// address → the name last resolved to it.
        var names: [String: String] = [:]
        /// name → every address seen for it.
        var addresses: [String: Set<String>] = [:]
    }

    private let inner: any FlowSink
    private let answers = Mutex(Answers())
    private let mismatches = Atomic<Int>(0)
    /// Flows marked `_nameMismatch` so far.
    public var nameMismatches: Int { mismatches.load(ordering: .relaxed) }
    /// Addresses (and names) remembered at most (all answers are forgotten beyond it).
    static let capacity = 65_536
    public static let nameMismatchKey = "_nameMismatch"

    public init(_ inner: any FlowSink) { self.inner = inner }

    /// A DNS answer: each address now names `name` (the latest answer wins), and is one of its addresses.
    public func learn(_ observation: DNSObservation) {
        guard !observation.name.isEmpty, !observation.addresses.isEmpty else { return }
        let name = observation.name.lowercased()
        answers.withLock { a in
            if a.names.count >= Self.capacity || a.addresses.count >= Self.capacity { a = Answers() }
            for address in observation.addresses { a.names[address] = name }
            a.addresses[name, default: []].formUnion(observation.addresses)
        }
    }

    public func name(of address: String) -> String? { answers.withLock { $0.names[address] } }

    /// The addresses the phone was given for `name` (nil when no answer for it was seen).
    public func addresses(of name: String) -> Set<String>? { answers.withLock { $0.addresses[name.lowercased()] } }

    public func record(_ flow: Flow) {
        var f = flow
        let sni = f.tls?.serverName ?? ""
        if let address = f.server?.address {
            if f.request == nil, sni.isEmpty, let n = name(of: address), Self.isPlainJSONText(n) {
                f.extras[Flow.dnsNameKey] = "\"\(n)\""
            }
            let claimed = sni.isEmpty ? (f.request?.host ?? "") : sni.lowercased()
            if f.source == .transparent, !claimed.isEmpty, claimed != address, Self.isPlainJSONText(claimed),
               let known = addresses(of: claimed), !known.contains(address) {
                let given = known.sorted().prefix(4).joined(separator: ", ") + (known.count > 4 ? ", ..." : "")
                f.extras[Self.nameMismatchKey] = "\"\(claimed) resolved to \(given); the connection went to \(address)\""
                mismatches.add(1, ordering: .relaxed)
            }
        }
        inner.record(f)
    }

    /// True when `text` can sit between JSON quotes as it is (names and addresses from the wire).
    static func isPlainJSONText(_ text: String) -> Bool {
        text.unicodeScalars.allSatisfy { $0 != "\"" && $0 != "\\" && $0.value >= 0x20 }
    }
}

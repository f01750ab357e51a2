/// Puts IPv4 (RFC 791) and IPv6 (RFC 8200 §4.5) fragments back together into datagrams, in
/// bounded memory: pure (fragments in, datagrams out; capture time passed in, no clock).
///
/// Rules, the conservative reading of the RFCs:
/// - Fragments of one datagram share a key: addresses, identification and (IPv4) protocol.
/// - Overlapping fragments drop the whole datagram and every later fragment of it until it
///   expires (RFC 5722 for IPv6; done for IPv4 too, where overlaps are how IDS evasion works).
///   An exact copy of a fragment already held (a retransmission) is ignored, not an overlap.
/// - A datagram larger than 65,535 bytes, a non-final fragment whose length is not a multiple
///   of 8, or a second "last" fragment with another end are dropped the same way.
/// - Incomplete datagrams expire `timeout` seconds (capture time) after their first fragment;
///   beyond `maxDatagrams` or `maxBytes` held, the oldest incomplete datagram is dropped.
public struct IPFragmentReassembler: Sendable {
    public struct Limits: Sendable, Hashable {
        public var maxDatagrams: Int
        public var maxBytes: Int
        public var timeout: Double
        public init(maxDatagrams: Int = 4096, maxBytes: Int = 16 << 20, timeout: Double = 60) {
            self.maxDatagrams = maxDatagrams
            self.maxBytes = maxBytes
            self.timeout = timeout
        }
    }

    /// Which datagram a fragment belongs to.
    public struct Key: Sendable, Hashable {
        public var source: IPAddress
        public var destination: IPAddress
        public var identification: UInt32
        /// IPv4: the protocol field (part of the key); IPv6: 0 (the next header travels in the first fragment).
        public var protocolNumber: UInt8
        public init(source: IPAddress, destination: IPAddress, identification: UInt32, protocolNumber: UInt8) {
            self.source = source
            self.destination = destination
            self.identification = identification
            self.protocolNumber = protocolNumber
        }
    }

    /// What adding a fragment gave.
    public enum Outcome: Sendable, Equatable {
        /// Kept, waiting for the rest.
        case held
        /// The datagram is whole: its bytes (from offset 0) and the `firstContext` that the
        /// offset-0 fragment was added with (IPv6: the next header after the Fragment header).
        case complete(bytes: [UInt8], firstContext: UInt8)
        /// Dropped (with whatever was held of its datagram).
        case dropped(DropReason)
        /// An exact copy of a fragment already held.
        case duplicate
    }

    public enum DropReason: String, Sendable, Hashable, CaseIterable {
        case overlap = "overlapping fragments (RFC 5722)"
        case oversized = "datagram beyond 65,535 bytes"
        case malformed = "fragment length not a multiple of 8, or two different ends"
        case poisoned = "fragment of a datagram already dropped"
        case memory = "reassembly memory cap"
    }

    /// Counts for the honest account of a capture.
    public struct Statistics: Sendable, Hashable {
        public var fragments = 0
        public var datagrams = 0
        public var duplicates = 0
        /// Fragments dropped, per reason.
        public var dropped: [DropReason: Int] = [:]
        /// Datagrams that never completed (expired or still pending at the end).
        public var incomplete = 0
        public init() {}
    }

    /// A datagram larger than this cannot exist (the IPv4 total length and IPv6 payload length are 16 bits).
    public static let maxDatagramLength = 65_535

    private struct Piece {
        var offset: Int
        var bytes: [UInt8]
        var end: Int { offset + bytes.count }
    }

    private struct Pending {
        var pieces: [Piece] = []
        var total: Int?
        var held = 0
        var firstContext: UInt8 = 0
        var firstSeen: Double
        var order: Int
        /// Dropped: later fragments are dropped too, until the entry expires.
        var poisoned = false
    }

    public let limits: Limits
    public private(set) var statistics = Statistics()
    private var pending: [Key: Pending] = [:]
    private var heldBytes = 0
    private var nextOrder = 0
    /// Capture time of the last expiry pass (run at most once a second of capture time).
    private var lastExpiry = -Double.infinity

    public init(limits: Limits = Limits()) { self.limits = limits }

    /// Datagrams currently waiting for fragments.
    public var pendingCount: Int { pending.count }
    /// Fragment bytes currently held.
    public var bytesHeld: Int { heldBytes }

    /// Adds one fragment: `offset` in bytes from the start of the fragmentable part, `more` its
    /// More Fragments flag, `context` a byte returned with the completed datagram when this is
    /// the offset-0 fragment.
    public mutating func add(_ key: Key, offset: Int, more: Bool, data: ArraySlice<UInt8>, context: UInt8 = 0,
                             time: Double) -> Outcome {
        statistics.fragments += 1
        if time - lastExpiry >= 1 {
            expire(before: time - limits.timeout)
            lastExpiry = time
        }
        if pending[key] == nil {
            if pending.count >= limits.maxDatagrams { evictOldest(except: key) }
            nextOrder += 1
        }
        var entry = pending[key] ?? Pending(firstSeen: time, order: nextOrder)
        if entry.poisoned { return drop(.poisoned, key, &entry) }
        let end = offset + data.count
        if end > Self.maxDatagramLength { return drop(.oversized, key, &entry) }
        if more && data.count % 8 != 0 { return drop(.malformed, key, &entry) }
        if !more {
            if let t = entry.total, t != end { return drop(.malformed, key, &entry) }
            entry.total = end
        }
        if let t = entry.total, end > t { return drop(.malformed, key, &entry) }
        // Sorted insert, with the overlap check against the neighbours.
        var index = entry.pieces.count
        for (k, p) in entry.pieces.enumerated() where p.offset >= offset { index = k; break }
        if index < entry.pieces.count, entry.pieces[index].offset == offset, entry.pieces[index].bytes.elementsEqual(data) {
            statistics.duplicates += 1
            statistics.fragments -= 1
            if !more { pending[key] = entry }
            return .duplicate
        }
        if index > 0, entry.pieces[index - 1].end > offset { return drop(.overlap, key, &entry) }
        if index < entry.pieces.count, entry.pieces[index].offset < end { return drop(.overlap, key, &entry) }
        if data.isEmpty && more { pending[key] = entry; return .held }
        while heldBytes + data.count > limits.maxBytes, pending.contains(where: { $0.key != key }) { evictOldest(except: key) }
        if heldBytes + data.count > limits.maxBytes { return drop(.memory, key, &entry) }
        entry.pieces.insert(Piece(offset: offset, bytes: Array(data)), at: index)
        entry.held += data.count
        heldBytes += data.count
        if offset == 0 { entry.firstContext = context }
        if let t = entry.total, entry.held == t, entry.pieces.first?.offset == 0 {
            // No overlaps and as many bytes as the datagram: the pieces tile it exactly.
            var bytes: [UInt8] = []
            bytes.reserveCapacity(t)
            for p in entry.pieces { bytes += p.bytes }
            heldBytes -= entry.held
            pending[key] = nil
            statistics.datagrams += 1
            return .complete(bytes: bytes, firstContext: entry.firstContext)
        }
        pending[key] = entry
        return .held
    }

    /// Drops datagrams whose first fragment came before `time`; returns how many were incomplete.
    @discardableResult
    public mutating func expire(before time: Double) -> Int {
        guard !pending.isEmpty else { return 0 }
        var count = 0
        for (key, entry) in pending where entry.firstSeen < time {
            if !entry.poisoned { count += 1 }
            heldBytes -= entry.held
            pending[key] = nil
        }
        statistics.incomplete += count
        return count
    }

    /// Ends reassembly: every datagram still waiting is incomplete.
    public mutating func finish() { expire(before: .infinity) }

    private mutating func drop(_ reason: DropReason, _ key: Key, _ entry: inout Pending) -> Outcome {
        statistics.dropped[reason, default: 0] += 1
        heldBytes -= entry.held
        entry.pieces = []
        entry.held = 0
        entry.poisoned = true
        pending[key] = entry
        return .dropped(reason)
    }

    private mutating func evictOldest(except key: Key) {
        guard let oldest = pending.filter({ $0.key != key }).min(by: { $0.value.order < $1.value.order }) else { return }
        heldBytes -= oldest.value.held
        pending[oldest.key] = nil
        if !oldest.value.poisoned {
            statistics.incomplete += 1
            statistics.dropped[.memory, default: 0] += oldest.value.pieces.count
        }
    }
}

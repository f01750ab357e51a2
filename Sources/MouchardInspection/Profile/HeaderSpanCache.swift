import Synchronization

/// The spans of header values already scanned, shared by all the requests one matcher sees: an
/// app sends the same `User-Agent`, `Accept`... with every request, and scanning a User-Agent
/// costs some 4,000 instructions where a look-up costs a few hundred. Spans depend only on the
/// value's bytes and the matcher, so a cached answer is the scan's answer.
///
/// Direct-mapped and bounded: `slotCount` slots chosen by a hash of the value (a new value takes
/// its slot over), values of up to `maxValueBytes`. Thread-safe: one `Mutex`, held for a slot's
/// look-up or replacement, never while scanning.
final class HeaderSpanCache: Sendable {
    static let maxValueBytes = 512
    static let slotCount = 256

    private struct Entry {
        let value: [UInt8]
        let spans: [Range<Int>]
    }

    private let slots = Mutex<[Entry?]>(Array(repeating: nil, count: HeaderSpanCache.slotCount))

    /// The spans of `value`: cached, or `scan(value)` (then cached).
    func spans(of value: [UInt8], _ scan: ([UInt8]) -> [Range<Int>]) -> [Range<Int>] {
        guard value.count <= Self.maxValueBytes else { return scan(value) }
        let slot = Int(truncatingIfNeeded: fnv1a(value)) & (Self.slotCount - 1)
        let known = slots.withLock { slots -> [Range<Int>]? in
            guard let entry = slots[slot], entry.value == value else { return nil }
            return entry.spans
        }
        if let known { return known }
        let found = scan(value)
        slots.withLock { $0[slot] = Entry(value: value, spans: found) }
        return found
    }
}

import Synchronization

/// Answers already computed for header values, shared by all the requests one inspector sees: an
/// app sends the same `User-Agent`, `Accept`... with every request, and scanning a User-Agent
/// costs some 4,000 instructions where a look-up costs a few hundred. Used for a value's spans
/// (`HeaderSpanCache`, per matcher), for whether it may hold a password key (per inspector) and
/// for what a `Content-Type` says about the body (`ContentTypeReading`, one for all).
/// An answer must depend only on the value's bytes and the cache's owner, so a cached answer is
/// the computation's answer.
///
/// Direct-mapped and bounded: `slotCount` slots chosen by a hash of the value (a new value takes
/// its slot over), values of up to `maxValueBytes`. Thread-safe: one `Mutex`, held for a slot's
/// look-up or replacement, never while computing.
final class HeaderValueCache<Answer: Sendable>: Sendable {
    static var maxValueBytes: Int { 512 }
    static var slotCount: Int { 256 }

    /// Slot `i` holds `values[i]` and its answer (nil: empty). Two arrays, not one of entries:
    /// a look-up compares the value in place and copies only the answer (an entry read out of
    /// its array would be copied whole, a retain and a release more per hit).
    private struct Slots {
        var values = [[UInt8]](repeating: [], count: HeaderValueCache.slotCount)
        var answers = [Answer?](repeating: nil, count: HeaderValueCache.slotCount)
    }

    private let slots = Mutex<Slots>(Slots())

    /// The answer for `value`: cached, or `compute(value)` (then cached).
    func answer(for value: [UInt8], _ compute: ([UInt8]) -> Answer) -> Answer {
        guard value.count <= Self.maxValueBytes else { return compute(value) }
        return value.withUnsafeBytes { bytes in
            answer(for: bytes, { _ in compute(value) }, copy: { _ in value })
        }
    }

    /// The answer for the bytes `value` points to: cached, or `compute(value)` (then cached, in
    /// an array made only then).
    func answer(for value: UnsafeBufferPointer<UInt8>, _ compute: (UnsafeBufferPointer<UInt8>) -> Answer) -> Answer {
        guard value.count <= Self.maxValueBytes else { return compute(value) }
        return answer(for: UnsafeRawBufferPointer(value), { _ in compute(value) }, copy: { _ in Array(value) })
    }

    private func answer(for bytes: UnsafeRawBufferPointer, _ compute: (UnsafeRawBufferPointer) -> Answer,
                        copy: (UnsafeRawBufferPointer) -> [UInt8]) -> Answer {
        let slot = Self.slot(of: bytes)
        let known = slots.withLock { slots -> Answer? in
            guard slots.values[slot].withUnsafeBytes({ Self.same($0, bytes) }) else { return nil }
            return slots.answers[slot]
        }
        if let known { return known }
        let found = compute(bytes)
        let value = copy(bytes)
        slots.withLock {
            $0.values[slot] = value
            $0.answers[slot] = found
        }
        return found
    }

    /// The slot of `value`: a multiply-and-rotate hash of its bytes read 8 at a time (the last
    /// word padded with zeros), and of its length. Of a value longer than 64 bytes only the first
    /// and the last 32 are read (a User-Agent is some 150): values that differ only in between
    /// share a slot, and the look-up's comparison tells them apart.
    private static func slot(of raw: UnsafeRawBufferPointer) -> Int {
        do {
            var h = UInt64(raw.count) &* 0x9E37_79B9_7F4A_7C15
            var i = 0
            while i + 8 <= raw.count {
                h = (h ^ raw.loadUnaligned(fromByteOffset: i, as: UInt64.self)) &* 0x100_0000_01b3
                h ^= h >> 29
                i += 8
                if i == 32, raw.count > 64 { i = raw.count - 32 }
            }
            var last: UInt64 = 0
            if raw.count >= 8 {
                // The last 8 bytes, those already read shifted out (one load, no loop).
                let rest = raw.count - i
                if rest > 0 { last = raw.loadUnaligned(fromByteOffset: raw.count - 8, as: UInt64.self) >> UInt64(8 * (8 - rest)) }
            } else {
                var shift: UInt64 = 0
                while i < raw.count {
                    last |= UInt64(raw[i]) << shift
                    shift += 8
                    i += 1
                }
            }
            h = (h ^ last) &* 0x100_0000_01b3
            h ^= h >> 32
            return Int(truncatingIfNeeded: h) & (slotCount - 1)
        }
    }

    /// The same bytes, compared 8 at a time.
    private static func same(_ x: UnsafeRawBufferPointer, _ y: UnsafeRawBufferPointer) -> Bool {
        guard x.count == y.count else { return false }
        var i = 0
        while i + 8 <= x.count {
            if x.loadUnaligned(fromByteOffset: i, as: UInt64.self) != y.loadUnaligned(fromByteOffset: i, as: UInt64.self) { return false }
            i += 8
        }
        // The last 8 bytes at once when there are 8 (some compared twice).
        if i < x.count, x.count >= 8 {
            let k = x.count - 8
            return x.loadUnaligned(fromByteOffset: k, as: UInt64.self) == y.loadUnaligned(fromByteOffset: k, as: UInt64.self)
        }
        while i < x.count {
            if x[i] != y[i] { return false }
            i += 1
        }
        return true
    }
}

/// The spans of header values already scanned, per matcher (see `HeaderValueCache`).
typealias HeaderSpanCache = HeaderValueCache<[Range<Int>]>

extension HeaderValueCache where Answer == [Range<Int>] {
    /// The spans of `value`: cached, or `scan(value)` (then cached).
    func spans(of value: [UInt8], _ scan: ([UInt8]) -> [Range<Int>]) -> [Range<Int>] { answer(for: value, scan) }
}

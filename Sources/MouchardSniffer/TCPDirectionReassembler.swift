/// Rebuilds the byte stream of one direction of a TCP connection from its segments.
///
/// Policy (like most IDS, documented because a different one gives different bytes):
/// - **First write wins**: bytes already delivered or already buffered are never replaced by a
///   later segment covering the same sequence numbers (retransmissions and overlaps are trimmed
///   and counted).
/// - **Out of order**: segments ahead of the expected sequence number are held (bounded per
///   direction and globally) and delivered once the hole fills.
/// - **Gaps**: when a hole does not fill (buffer cap reached, FIN/RST, idle timeout, end of
///   capture), the hole is reported as a `gap` event with its length and delivery resumes at the
///   next held segment; consumers mark the message in progress incomplete and resync.
/// - **Mid-stream start**: without a SYN, the first segment seen sets the stream origin.
struct TCPDirectionReassembler {
    /// What the consumer of the stream receives, in stream order.
    enum Event {
        case data(ArraySlice<UInt8>, time: Double)
        case gap(length: Int)
    }

    /// Next expected sequence number and its offset in the stream; nil before any SYN or data.
    private(set) var nextSequence: UInt32?
    private(set) var nextOffset = 0
    private(set) var sawSYN = false
    private(set) var finished = false
    /// Out-of-order segments by stream offset, sorted, never overlapping each other.
    private var held: [(offset: Int, bytes: [UInt8], time: Double)] = []
    private(set) var heldBytes = 0
    private var finOffset: Int?

    /// The direction's stream offset for a sequence number (valid within ±2 GiB of the expected one).
    private func offset(of seq: UInt32) -> Int? {
        guard let next = nextSequence else { return nil }
        return nextOffset + Int(Int32(bitPattern: seq &- next))
    }

    /// Handles one segment. `globalHeld` is the out-of-order total across connections.
    mutating func segment(sequence: UInt32, syn: Bool, fin: Bool, payload: ArraySlice<UInt8>, time: Double,
                          limits: ReassemblyLimits, globalHeld: inout Int, stats: inout ExtractionStatistics,
                          deliver: (Event) -> Void) {
        var seq = sequence
        if syn {
            if !sawSYN || nextSequence == nil {
                sawSYN = true
                if nextOffset == 0 && held.isEmpty { nextSequence = sequence &+ 1 }
            }
            seq = sequence &+ 1
        }
        if nextSequence == nil {
            if payload.isEmpty && !fin { return }
            nextSequence = seq  // capture started mid-connection
        }
        guard let start = offset(of: seq) else { return }
        if start - nextOffset > limits.maxSequenceJump {
            stats.implausibleSegments += 1
            return
        }
        if fin { finOffset = start + payload.count }
        if !payload.isEmpty {
            let end = start + payload.count
            if end <= nextOffset {
                stats.retransmittedBytes += payload.count
            } else if start <= nextOffset {
                let skip = nextOffset - start
                stats.retransmittedBytes += skip
                let fresh = payload.dropFirst(skip)
                advance(by: fresh.count)
                deliver(.data(fresh, time: time))
                drain(globalHeld: &globalHeld, stats: &stats, deliver: deliver)
            } else {
                hold(Array(payload), at: start, time: time, limits: limits, globalHeld: &globalHeld, stats: &stats,
                     deliver: deliver)
            }
        }
        if let f = finOffset, f <= nextOffset { finished = true }
    }

    private mutating func advance(by n: Int) {
        nextOffset += n
        nextSequence = nextSequence.map { $0 &+ UInt32(truncatingIfNeeded: n) }
    }

    /// Stores an out-of-order segment, first write wins against what is already held.
    private mutating func hold(_ bytes: [UInt8], at start: Int, time: Double, limits: ReassemblyLimits,
                               globalHeld: inout Int, stats: inout ExtractionStatistics, deliver: (Event) -> Void) {
        stats.outOfOrderSegments += 1
        // Cut the new segment into the pieces not already held.
        var pieces: [(Int, ArraySlice<UInt8>)] = []
        var cursor = start
        let end = start + bytes.count
        for h in held where h.offset + h.bytes.count > cursor && h.offset < end {
            if h.offset > cursor { pieces.append((cursor, bytes[(cursor - start)..<(h.offset - start)])) }
            cursor = max(cursor, h.offset + h.bytes.count)
        }
        if cursor < end { pieces.append((cursor, bytes[(cursor - start)...])) }
        stats.retransmittedBytes += bytes.count - pieces.reduce(0) { $0 + $1.1.count }
        for (o, piece) in pieces {
            // Make room: cap per direction and global; a forced gap frees the buffer.
            while heldBytes + piece.count > limits.outOfOrderBytesPerDirection
                    || globalHeld + piece.count > limits.outOfOrderBytesTotal, !held.isEmpty {
                skipToFirstHeld(globalHeld: &globalHeld, stats: &stats, deliver: deliver)
                drain(globalHeld: &globalHeld, stats: &stats, deliver: deliver)
            }
            if o <= nextOffset {
                // The forced gap moved us past (part of) this piece.
                let skip = nextOffset - o
                if skip < piece.count {
                    let fresh = piece.dropFirst(skip)
                    advance(by: fresh.count)
                    deliver(.data(fresh, time: time))
                    drain(globalHeld: &globalHeld, stats: &stats, deliver: deliver)
                }
                continue
            }
            if heldBytes + piece.count > limits.outOfOrderBytesPerDirection || globalHeld + piece.count > limits.outOfOrderBytesTotal {
                stats.droppedBytes += piece.count
                continue
            }
            let index = held.firstIndex { $0.offset > o } ?? held.count
            held.insert((o, Array(piece), time), at: index)
            heldBytes += piece.count
            globalHeld += piece.count
        }
    }

    /// Delivers held segments that became contiguous.
    private mutating func drain(globalHeld: inout Int, stats: inout ExtractionStatistics, deliver: (Event) -> Void) {
        while let first = held.first, first.offset <= nextOffset {
            held.removeFirst()
            heldBytes -= first.bytes.count
            globalHeld -= first.bytes.count
            let skip = nextOffset - first.offset
            if skip >= first.bytes.count {
                stats.retransmittedBytes += first.bytes.count
                continue
            }
            stats.retransmittedBytes += skip
            let fresh = first.bytes[skip...]
            advance(by: fresh.count)
            deliver(.data(fresh, time: first.time))
        }
        if let f = finOffset, f <= nextOffset { finished = true }
    }

    /// Gives up on the hole before the first held segment.
    private mutating func skipToFirstHeld(globalHeld: inout Int, stats: inout ExtractionStatistics,
                                          deliver: (Event) -> Void) {
        guard let first = held.first, first.offset > nextOffset else { return }
        let length = first.offset - nextOffset
        stats.gaps += 1
        stats.gapBytes += length
        advance(by: length)
        deliver(.gap(length: length))
    }

    /// End of the connection (FIN, RST, idle, end of capture): every remaining hole becomes a gap
    /// and everything held is delivered.
    mutating func flush(globalHeld: inout Int, stats: inout ExtractionStatistics, deliver: (Event) -> Void) {
        while !held.isEmpty {
            skipToFirstHeld(globalHeld: &globalHeld, stats: &stats, deliver: deliver)
            drain(globalHeld: &globalHeld, stats: &stats, deliver: deliver)
        }
    }

    /// Frees what is held without delivering it (connection abandoned).
    mutating func discard(globalHeld: inout Int) {
        globalHeld -= heldBytes
        heldBytes = 0
        held.removeAll()
    }
}

import CZlib

/// Raw deflate (RFC 1951) inflated piece by piece, keeping its window between calls: what
/// `permessage-deflate` (RFC 7692) needs, where each message continues the compressor's stream
/// ("context takeover") unless the peers agreed otherwise.
///
/// Output is bounded by the caller's `limit`: past it, the data is still inflated (the window must
/// stay right for the next message) but dropped and counted, so a small hostile message that
/// inflates to gigabytes costs CPU, never memory.
public final class StreamInflater {
    /// The z_stream lives at a fixed address: zlib keeps a pointer back to it.
    private let stream: UnsafeMutablePointer<z_stream>
    private var ready = false

    public init() {
        stream = UnsafeMutablePointer<z_stream>.allocate(capacity: 1)
        stream.initialize(to: z_stream())
        ready = inflateInit2_(stream, -MAX_WBITS, ZLIB_VERSION, Int32(MemoryLayout<z_stream>.size)) == Z_OK
    }

    deinit {
        if ready { inflateEnd(stream) }
        stream.deinitialize(count: 1)
        stream.deallocate()
    }

    /// What one `inflate` call did.
    public struct Step: Sendable, Equatable {
        /// The deflate stream ended (a block with BFINAL): the next message starts a new one.
        public var ended: Bool
        /// Bytes inflated beyond `limit` and dropped.
        public var dropped: Int
    }

    /// Inflates `input`, appending what it gives to `output` while `output` stays within `limit`
    /// bytes. After a stream end the inflater starts over (a new stream may follow).
    public func inflate(_ input: ArraySlice<UInt8>, into output: inout [UInt8], limit: Int) throws(ContentDecodingError) -> Step {
        guard ready else { throw .corrupt(coding: "deflate", detail: "inflateInit failed", offset: 0) }
        var step = Step(ended: false, dropped: 0)
        var failure: ContentDecodingError?
        let chunk = 16 * 1024
        var scratch = [UInt8](repeating: 0, count: chunk)
        input.withUnsafeBufferPointer { p in
            stream.pointee.next_in = UnsafeMutablePointer(mutating: p.baseAddress)
            stream.pointee.avail_in = uInt(p.count)
            while true {
                let status = scratch.withUnsafeMutableBufferPointer { out -> Int32 in
                    stream.pointee.next_out = out.baseAddress
                    stream.pointee.avail_out = uInt(chunk)
                    return CZlib.inflate(stream, Z_SYNC_FLUSH)
                }
                let produced = chunk - Int(stream.pointee.avail_out)
                let room = max(0, limit - output.count)
                output.append(contentsOf: scratch[0..<min(room, produced)])
                step.dropped += max(0, produced - room)
                switch status {
                case Z_STREAM_END:
                    step.ended = true
                    inflateReset(stream)
                    if stream.pointee.avail_in == 0 { return }
                case Z_OK:
                    if stream.pointee.avail_in == 0 && stream.pointee.avail_out != 0 { return }
                case Z_BUF_ERROR:
                    // No progress possible: every input byte is taken and the output was not full.
                    return
                default:
                    let detail = stream.pointee.msg.map { String(cString: $0) } ?? "error \(status)"
                    failure = .corrupt(coding: "deflate", detail: detail, offset: p.count - Int(stream.pointee.avail_in))
                    return
                }
            }
        }
        stream.pointee.next_in = nil
        stream.pointee.next_out = nil
        if let failure {
            reset()
            throw failure
        }
        return step
    }

    /// Forgets the window: the next input starts a new stream (no context takeover, or after an error).
    public func reset() {
        if ready { inflateReset(stream) }
    }
}

/// Raw deflate with its window kept between messages: the sending side of `permessage-deflate`,
/// for tests and generated traffic.
public final class StreamDeflater {
    private let stream: UnsafeMutablePointer<z_stream>
    private var ready = false

    public init(level: Int32 = 6) {
        stream = UnsafeMutablePointer<z_stream>.allocate(capacity: 1)
        stream.initialize(to: z_stream())
        ready = deflateInit2_(stream, level, Z_DEFLATED, -MAX_WBITS, 8, Z_DEFAULT_STRATEGY, ZLIB_VERSION,
                              Int32(MemoryLayout<z_stream>.size)) == Z_OK
    }

    deinit {
        if ready { deflateEnd(stream) }
        stream.deinitialize(count: 1)
        stream.deallocate()
    }

    /// `input` compressed and sync-flushed, with the trailing `00 00 FF FF` removed as RFC 7692
    /// §7.2.1 says a message's payload is sent.
    public func compressMessage(_ input: [UInt8]) -> [UInt8] {
        guard ready else { return [] }
        var out: [UInt8] = []
        let chunk = 16 * 1024
        var scratch = [UInt8](repeating: 0, count: chunk)
        input.withUnsafeBufferPointer { p in
            stream.pointee.next_in = UnsafeMutablePointer(mutating: p.baseAddress)
            stream.pointee.avail_in = uInt(p.count)
            repeat {
                scratch.withUnsafeMutableBufferPointer { o in
                    stream.pointee.next_out = o.baseAddress
                    stream.pointee.avail_out = uInt(chunk)
                    _ = deflate(stream, Z_SYNC_FLUSH)
                }
                out.append(contentsOf: scratch[0..<(chunk - Int(stream.pointee.avail_out))])
            } while stream.pointee.avail_out == 0
        }
        stream.pointee.next_in = nil
        stream.pointee.next_out = nil
        if out.count >= 4, out.suffix(4) == [0x00, 0x00, 0xFF, 0xFF] { out.removeLast(4) }
        return out
    }

    /// Forgets the window (the sender's `no_context_takeover`).
    public func reset() {
        if ready { deflateReset(stream) }
    }
}

import CNghttp2

/// HPACK decoding of one direction of a connection read passively (a capture), over nghttp2's
/// inflater: header blocks go in whole, in order (the dynamic table carries over between them).
public final class HPACKInflater {
    private let inflater: OpaquePointer

    /// A decoded block: its fields up to the size limit, and whether more were dropped.
    public struct Block: Sendable, Equatable {
        public var fields: [HTTP2Field]
        /// The block decoded to more than the limit: the fields past it were decoded (to keep the
        /// table in step) but not kept.
        public var truncated: Bool
    }

    public init() throws(HTTP2Error) {
        var created: OpaquePointer?
        guard nghttp2_hd_inflate_new(&created) == 0, let created else { throw HTTP2Error("nghttp2_hd_inflate_new failed") }
        inflater = created
    }

    deinit { nghttp2_hd_inflate_del(inflater) }

    /// Decodes one complete header block (HEADERS, CONTINUATION... or PUSH_PROMISE fragments joined),
    /// keeping at most `maxListSize` bytes of fields (name + value + 32 each). Throws on a
    /// compression error, after which this direction cannot be decoded any more (RFC 9113 §4.3).
    public func decode(_ block: [UInt8], maxListSize: Int) throws(HTTP2Error) -> Block {
        var out = Block(fields: [], truncated: false)
        var size = 0
        var offset = 0
        let bytes = block.isEmpty ? [0] : block  // a valid pointer for an empty block
        let count = block.count
        while true {
            var nv = nghttp2_nv()
            var flags: Int32 = 0
            let rv = bytes.withUnsafeBufferPointer { buffer in
                nghttp2_hd_inflate_hd2(inflater, &nv, &flags, buffer.baseAddress! + offset, count - offset, 1)
            }
            if rv < 0 { throw HTTP2Error("HPACK: \(HTTP2Connection.text(Int32(truncatingIfNeeded: rv)))") }
            offset += rv
            if flags & Int32(NGHTTP2_HD_INFLATE_EMIT.rawValue) != 0 {
                size += nv.namelen + nv.valuelen + 32
                if size <= maxListSize {
                    out.fields.append(HTTP2Field(name: Array(UnsafeBufferPointer(start: nv.name, count: nv.namelen)),
                                                 value: Array(UnsafeBufferPointer(start: nv.value, count: nv.valuelen))))
                } else {
                    out.truncated = true
                }
            }
            if flags & Int32(NGHTTP2_HD_INFLATE_FINAL.rawValue) != 0 {
                nghttp2_hd_inflate_end_headers(inflater)
                return out
            }
            if rv == 0 && flags & Int32(NGHTTP2_HD_INFLATE_EMIT.rawValue) == 0 { throw HTTP2Error("HPACK: block ends inside a field") }
        }
    }
}

/// gRPC's length-prefixed messages (grpc `doc/PROTOCOL-HTTP2.md`) and gRPC-Web's additions
/// (`doc/PROTOCOL-WEB.md`): each message is a 1-byte flag (bit 0: compressed with the stream's
/// `grpc-encoding`; bit 7, gRPC-Web only: the trailers), a 4-byte big-endian length and the bytes.
/// Bodies are split after the fact (HTTP/2 DATA frames do not align with messages); what does not
/// fit (a length past the end of a cut body) is reported, never read past.
public enum GRPCFrames {
    /// One length-prefixed frame of a body.
    public struct Frame: Sendable, Equatable {
        public var flags: UInt8
        /// The frame's bytes (a slice of the body).
        public var payload: ArraySlice<UInt8>
        /// Body offset of the frame's flag byte.
        public var offset: Int

        /// Compressed with the stream's `grpc-encoding`.
        public var isCompressed: Bool { flags & 0x01 != 0 }
        /// gRPC-Web's in-body trailers (HTTP/1-style header lines).
        public var isTrailers: Bool { flags & 0x80 != 0 }
    }

    /// A body split into frames.
    public struct Split: Sendable, Equatable {
        public var frames: [Frame] = []
        /// Set when the body ends inside a frame (cut capture, broken sender): its offset, the
        /// length the prefix declared and the bytes there were.
        public var incomplete: (offset: Int, declared: UInt32, available: Int)?
        /// More frames than the limit: the rest was not split (their count is unknown).
        public var stoppedAtLimit = false

        public static func == (a: Split, b: Split) -> Bool {
            a.frames == b.frames && a.stoppedAtLimit == b.stoppedAtLimit
                && a.incomplete?.offset == b.incomplete?.offset && a.incomplete?.declared == b.incomplete?.declared
                && a.incomplete?.available == b.incomplete?.available
        }
    }

    /// Frames of one body at most (a body of empty messages has five bytes per message).
    public static let defaultMaxFrames = 10_000

    /// The frames of `body`, in order.
    public static func split(_ body: ArraySlice<UInt8>, maxFrames: Int = defaultMaxFrames) -> Split {
        var out = Split()
        var i = body.startIndex
        while i < body.endIndex {
            guard out.frames.count < maxFrames else {
                out.stoppedAtLimit = true
                return out
            }
            guard body.endIndex - i >= 5 else {
                out.incomplete = (i - body.startIndex, 0, body.endIndex - i)
                return out
            }
            let length = UInt32(body[i + 1]) << 24 | UInt32(body[i + 2]) << 16 | UInt32(body[i + 3]) << 8 | UInt32(body[i + 4])
            let start = i + 5
            guard UInt64(length) <= UInt64(body.endIndex - start) else {
                out.incomplete = (i - body.startIndex, length, body.endIndex - start)
                return out
            }
            let end = start + Int(length)
            out.frames.append(Frame(flags: body[i], payload: body[start..<end], offset: i - body.startIndex))
            i = end
        }
        return out
    }

    /// The fields of a gRPC-Web trailers frame: `name: value` lines ended by CRLF (or LF), names
    /// lower-cased; lines without a colon are skipped.
    public static func trailerFields(_ payload: ArraySlice<UInt8>) -> [(name: String, value: String)] {
        var fields: [(String, String)] = []
        for line in payload.split(separator: 0x0A, omittingEmptySubsequences: true) {
            var l = line
            if l.last == 0x0D { l = l.dropLast() }
            guard let colon = l.firstIndex(of: UInt8(ascii: ":")) else { continue }
            let name = String(decoding: l[..<colon], as: UTF8.self).lowercased()
            var value = l[(colon + 1)...]
            while let f = value.first, f == 0x20 || f == 0x09 { value = value.dropFirst() }
            while let b = value.last, b == 0x20 || b == 0x09 { value = value.dropLast() }
            fields.append((name, String(decoding: value, as: UTF8.self)))
        }
        return fields
    }

    /// A `grpc-web-text` body decoded: base64 written in chunks, each possibly padded, so `=` may
    /// appear in the middle of the stream (a padded group ends one chunk). Whitespace is skipped.
    /// Nil when a byte is not base64 or padding is misplaced. A trailing group of fewer than four
    /// characters (a cut body) is decoded as far as it goes.
    public static func decodeWebText(_ text: ArraySlice<UInt8>) -> [UInt8]? {
        var out: [UInt8] = []
        out.reserveCapacity(text.count / 4 * 3)
        var group: [UInt8] = []
        group.reserveCapacity(4)
        var pad = 0
        func flush() -> Bool {
            // `group` holds 2 to 4 sextets; `pad` of the four were `=`.
            let n = group.count
            guard n >= 2 else { return n == 0 }
            var v: UInt32 = 0
            for k in 0..<4 { v = v << 6 | UInt32(k < n ? group[k] : 0) }
            out.append(UInt8(v >> 16))
            if n >= 3 { out.append(UInt8((v >> 8) & 0xFF)) }
            if n >= 4 { out.append(UInt8(v & 0xFF)) }
            group.removeAll(keepingCapacity: true)
            pad = 0
            return true
        }
        for b in text {
            if b == 0x20 || b == 0x0A || b == 0x0D || b == 0x09 { continue }
            if b == UInt8(ascii: "=") {
                // Padding closes the group: 2 sextets + "==", or 3 + "=".
                guard group.count >= 2, group.count + pad < 4 else { return nil }
                pad += 1
                if group.count + pad == 4 {
                    guard flush() else { return nil }
                }
                continue
            }
            guard pad == 0, let sextet = base64Value(b) else { return nil }
            group.append(sextet)
            if group.count == 4 { guard flush() else { return nil } }
        }
        guard pad == 0 else { return nil }
        // One sextet alone carries no whole byte: the rest of a cut group.
        if group.count == 1 { group.removeAll() }
        return flush() ? out : nil
    }

    /// The value of a base64 (or base64url) character.
    static func base64Value(_ b: UInt8) -> UInt8? {
        switch b {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"): b - UInt8(ascii: "A")
        case UInt8(ascii: "a")...UInt8(ascii: "z"): b - UInt8(ascii: "a") + 26
        case UInt8(ascii: "0")...UInt8(ascii: "9"): b - UInt8(ascii: "0") + 52
        case UInt8(ascii: "+"), UInt8(ascii: "-"): 62
        case UInt8(ascii: "/"), UInt8(ascii: "_"): 63
        default: nil
        }
    }
}

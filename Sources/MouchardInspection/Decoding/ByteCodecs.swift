import MouchardWire

/// Small, bounded byte transforms the decode layers need: percent-decoding, base64/base64url,
/// hex, and a "does this look like text" test. Each returns nil when the input is not of its kind.
enum ByteCodecs {
    /// Percent-decodes `bytes` (`+` → space when `plusAsSpace`). Returns nil when nothing changed.
    static func percentDecode(_ bytes: ArraySlice<UInt8>, plusAsSpace: Bool) -> [UInt8]? {
        // Most names and values hold neither: answer before allocating.
        guard bytes.contains(where: { $0 == 0x25 || ($0 == 0x2B && plusAsSpace) }) else { return nil }
        var changed = false
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count)
        var i = bytes.startIndex
        while i < bytes.endIndex {
            let b = bytes[i]
            if b == 0x25, i + 2 < bytes.endIndex, let h = hexNibble(bytes[i + 1]), let l = hexNibble(bytes[i + 2]) {
                out.append(h << 4 | l)
                i += 3
                changed = true
                continue
            }
            if b == 0x2B, plusAsSpace { out.append(0x20); changed = true; i += 1; continue }
            out.append(b)
            i += 1
        }
        return changed ? out : nil
    }

    /// True when `bytes` holds at least one `%XX` escape.
    static func hasPercentEscape(_ bytes: ArraySlice<UInt8>) -> Bool {
        var i = bytes.startIndex
        while i + 2 < bytes.endIndex {
            if bytes[i] == 0x25, hexNibble(bytes[i + 1]) != nil, hexNibble(bytes[i + 2]) != nil { return true }
            i += 1
        }
        return false
    }

    /// Percent-encodes everything but unreserved characters (RFC 3986).
    static func percentEncode(_ bytes: [UInt8]) -> [UInt8] {
        let hex = Array("0123456789ABCDEF".utf8)
        var out: [UInt8] = []
        for b in bytes {
            if isASCIIAlnum(b) || b == 0x2D || b == 0x2E || b == 0x5F || b == 0x7E {
                out.append(b)
            } else {
                out.append(0x25); out.append(hex[Int(b >> 4)]); out.append(hex[Int(b & 15)])
            }
        }
        return out
    }

    @inline(__always)
    static func base64Value(_ b: UInt8) -> UInt8? {
        switch b {
        case 0x41...0x5A: b - 0x41
        case 0x61...0x7A: b - 0x61 + 26
        case 0x30...0x39: b - 0x30 + 52
        case 0x2B, 0x2D: 62
        case 0x2F, 0x5F: 63
        default: nil
        }
    }

    @inline(__always)
    static func isBase64Byte(_ b: UInt8) -> Bool { base64Value(b) != nil }

    /// Decodes standard or URL-safe base64, padded or not. Nil when not valid base64.
    static func base64Decode(_ bytes: ArraySlice<UInt8>) -> [UInt8]? {
        var end = bytes.endIndex
        var pad = 0
        while end > bytes.startIndex, bytes[end - 1] == 0x3D, pad < 2 { end -= 1; pad += 1 }
        let n = end - bytes.startIndex
        if n % 4 == 1 || n == 0 { return nil }
        if pad > 0, (n + pad) % 4 != 0 { return nil }
        var out: [UInt8] = []
        out.reserveCapacity(n * 3 / 4)
        var acc: UInt32 = 0
        var bits = 0
        var i = bytes.startIndex
        while i < end {
            guard let v = base64Value(bytes[i]) else { return nil }
            acc = acc << 6 | UInt32(v)
            bits += 6
            if bits >= 8 {
                bits -= 8
                out.append(UInt8(truncatingIfNeeded: acc >> UInt32(bits)))
            }
            i += 1
        }
        return out
    }

    /// Standard base64 with padding.
    static func base64Encode(_ bytes: [UInt8]) -> [UInt8] {
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)
        var out: [UInt8] = []
        var i = 0
        while i + 3 <= bytes.count {
            let v = UInt32(bytes[i]) << 16 | UInt32(bytes[i + 1]) << 8 | UInt32(bytes[i + 2])
            out += [alphabet[Int(v >> 18 & 63)], alphabet[Int(v >> 12 & 63)], alphabet[Int(v >> 6 & 63)], alphabet[Int(v & 63)]]
            i += 3
        }
        let rest = bytes.count - i
        if rest == 1 {
            let v = UInt32(bytes[i]) << 16
            out += [alphabet[Int(v >> 18 & 63)], alphabet[Int(v >> 12 & 63)], 0x3D, 0x3D]
        } else if rest == 2 {
            let v = UInt32(bytes[i]) << 16 | UInt32(bytes[i + 1]) << 8
            out += [alphabet[Int(v >> 18 & 63)], alphabet[Int(v >> 12 & 63)], alphabet[Int(v >> 6 & 63)], 0x3D]
        }
        return out
    }

    /// Decodes an even-length hex string. Nil when not hex.
    static func hexDecode(_ bytes: ArraySlice<UInt8>) -> [UInt8]? {
        guard bytes.count % 2 == 0, !bytes.isEmpty else { return nil }
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count / 2)
        var i = bytes.startIndex
        while i < bytes.endIndex {
            guard let h = hexNibble(bytes[i]), let l = hexNibble(bytes[i + 1]) else { return nil }
            out.append(h << 4 | l)
            i += 2
        }
        return out
    }

    static func hexEncode(_ bytes: [UInt8]) -> [UInt8] {
        let hex = Array("0123456789abcdef".utf8)
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count * 2)
        for b in bytes { out.append(hex[Int(b >> 4)]); out.append(hex[Int(b & 15)]) }
        return out
    }

    /// True when `bytes` is valid UTF-8 and at least 90% printable (tabs and newlines allowed).
    static func looksLikeText(_ bytes: [UInt8]) -> Bool { looksLikeText(bytes[...]) }

    static func looksLikeText(_ bytes: ArraySlice<UInt8>) -> Bool {
        guard !bytes.isEmpty else { return false }
        var bad = 0
        var ascii = true
        bytes.withUnsafeBufferPointer { p in
            for b in p {
                // Printable ASCII (most bytes) costs one comparison.
                if b >= 0x20 && b < 0x7F { continue }
                if b >= 0x80 { ascii = false; continue }
                if b != 0x09, b != 0x0A, b != 0x0D { bad += 1 }
            }
        }
        if bad * 10 > bytes.count { return false }
        if !ascii, String(validating: bytes, as: UTF8.self) == nil { return false }
        return true
    }
}

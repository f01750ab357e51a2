import MouchardWire

/// Small, bounded byte transforms the decode layers need: percent-decoding, base64/base64url,
/// hex, and a "does this look like text" test. Each returns nil when the input is not of its kind.
enum ByteCodecs {
    /// Percent-decodes `bytes` (`+` → space when `plusAsSpace`). Returns nil when nothing changed.
    static func percentDecode(_ bytes: ArraySlice<UInt8>, plusAsSpace: Bool) -> [UInt8]? {
        // Most names and values hold neither: answer before allocating.
        let plus: UInt8 = plusAsSpace ? 0x2B : 0x25
        guard ByteSearch.contains(0x25, or: plus, in: bytes) else { return nil }
        var changed = false
        let out = bytes.withUnsafeBufferPointer { p in
            [UInt8](unsafeUninitializedCapacity: p.count) { buffer, count in
                guard let source = p.baseAddress, let target = buffer.baseAddress else { count = 0; return }
                let n = p.count
                var i = 0
                var k = 0
                while i < n {
                    // Eight bytes at a time up to the next `%` or `+`: the word is stored whole (the
                    // output never runs ahead of the input, so it has room), and what follows the
                    // plain bytes is written over next.
                    if i + 8 <= n {
                        let w = UnsafeRawPointer(source + i).loadUnaligned(as: UInt64.self)
                        UnsafeMutableRawPointer(target + k).storeBytes(of: w, as: UInt64.self)
                        let plain = ByteSearch.bytesBefore(0x25, or: plus, in: UInt64(littleEndian: w))
                        i += plain
                        k += plain
                        if plain == 8 { continue }
                    }
                    let b = p[i]
                    if b == 0x25, i + 2 < n, let h = hexNibble(p[i + 1]), let l = hexNibble(p[i + 2]) {
                        target[k] = h << 4 | l
                        k += 1
                        i += 3
                        changed = true
                        continue
                    }
                    if b == 0x2B, plusAsSpace {
                        target[k] = 0x20
                        changed = true
                    } else {
                        target[k] = b
                    }
                    k += 1
                    i += 1
                }
                count = k
            }
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
        bytes.withUnsafeBufferPointer { p -> [UInt8]? in
            guard let layout = base64Layout(p) else { return nil }
            var valid = true
            let out = [UInt8](unsafeUninitializedCapacity: layout.bytes) { buffer, count in
                valid = buffer.baseAddress.map { base64Decode(p, characters: layout.characters, into: $0) } ?? false
                count = valid ? layout.bytes : 0
            }
            return valid ? out : nil
        }
    }

    /// How base64 text `p` decodes, from its length and padding alone: the characters before
    /// the padding and the bytes they give (every 6 bits in, 8 out, leftover bits dropped); nil
    /// when no base64 is that long or padded that way.
    static func base64Layout(_ p: UnsafeBufferPointer<UInt8>) -> (characters: Int, bytes: Int)? {
        var n = p.count
        var pad = 0
        while n > 0, p[n - 1] == 0x3D, pad < 2 { n -= 1; pad += 1 }
        if n % 4 == 1 || n == 0 { return nil }
        if pad > 0, (n + pad) % 4 != 0 { return nil }
        return (n, n * 3 / 4)
    }

    /// Decodes the first `characters` bytes of `p` (a `base64Layout`) into `out`, which has room
    /// for the layout's bytes; false when one of them is outside both alphabets. Four characters
    /// a round, then the last two or three bit by bit. The span scan decodes its candidates with
    /// it into a stack buffer; `base64Decode` into an array.
    static func base64Decode(_ p: UnsafeBufferPointer<UInt8>, characters n: Int, into out: UnsafeMutablePointer<UInt8>) -> Bool {
        let table = base64Values
        var i = 0
        var k = 0
        while i + 4 <= n {
            let a = table[Int(p[i])], b = table[Int(p[i + 1])], c = table[Int(p[i + 2])], d = table[Int(p[i + 3])]
            if (a | b | c | d) & 0x80 != 0 { return false }
            let v = UInt32(a) << 18 | UInt32(b) << 12 | UInt32(c) << 6 | UInt32(d)
            out[k] = UInt8(truncatingIfNeeded: v >> 16)
            out[k + 1] = UInt8(truncatingIfNeeded: v >> 8)
            out[k + 2] = UInt8(truncatingIfNeeded: v)
            k += 3
            i += 4
        }
        var acc: UInt32 = 0
        var bits = 0
        while i < n {
            let v = table[Int(p[i])]
            if v & 0x80 != 0 { return false }
            acc = acc << 6 | UInt32(v)
            bits += 6
            if bits >= 8 {
                bits -= 8
                out[k] = UInt8(truncatingIfNeeded: acc >> UInt32(bits))
                k += 1
            }
            i += 1
        }
        return true
    }

    /// `base64Value` of every byte, 0xFF for bytes outside both alphabets (a pointer: no retain or
    /// bounds check in the decoding loop; written once, before first use, then only read).
    nonisolated(unsafe) static let base64Values: UnsafePointer<UInt8> = {
        let table = UnsafeMutablePointer<UInt8>.allocate(capacity: 256)
        for b in 0..<256 { table[b] = base64Value(UInt8(b)) ?? 0xFF }
        return UnsafePointer(table)
    }()

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

    /// True when `bytes` is hex digits that decode to bytes `looksLikeText` accepts and that hold
    /// an ASCII letter or digit (`FieldWalker.tryHex`'s test), read pair by pair without decoding:
    /// hex of binary (digests, keys: most hex) is turned away at its first byte that cannot be
    /// UTF-8, before anything is allocated.
    static func hexDecodesToText(_ bytes: ArraySlice<UInt8>) -> Bool {
        guard !bytes.isEmpty, bytes.count % 2 == 0 else { return false }
        var bad = 0
        var alnum = false
        // UTF-8 continuation bytes still expected, and the range the next one must fall in.
        var need = 0
        var low: UInt8 = 0x80, high: UInt8 = 0xBF
        var i = bytes.startIndex
        while i < bytes.endIndex {
            guard let h = hexNibble(bytes[i]), let l = hexNibble(bytes[i + 1]) else { return false }
            i += 2
            let b = h << 4 | l
            if need > 0 {
                guard b >= low, b <= high else { return false }
                need -= 1
                low = 0x80
                high = 0xBF
            } else if b < 0x80 {
                if b < 0x20 || b == 0x7F {
                    if b != 0x09, b != 0x0A, b != 0x0D { bad += 1 }
                } else if isASCIIAlnum(b) {
                    alnum = true
                }
            } else {
                // The lead byte of a well-formed sequence (Unicode table 3-7), else not UTF-8.
                switch b {
                case 0xC2...0xDF: need = 1
                case 0xE0: need = 2; low = 0xA0
                case 0xE1...0xEC, 0xEE, 0xEF: need = 2
                case 0xED: need = 2; high = 0x9F
                case 0xF0: need = 3; low = 0x90
                case 0xF1...0xF3: need = 3
                case 0xF4: need = 3; high = 0x8F
                default: return false
                }
            }
        }
        return need == 0 && alnum && bad * 10 <= bytes.count / 2
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
            guard let base = p.baseAddress else { return }
            // Eight printable ASCII bytes (most text) at a time: no high bit, none below 0x20, no DEL;
            // a word holding another byte is looked at byte by byte.
            let ones: UInt64 = 0x0101_0101_0101_0101, highs: UInt64 = 0x8080_8080_8080_8080
            var i = 0
            while i < p.count {
                var stop = p.count
                if i + 8 <= p.count {
                    let x = UnsafeRawPointer(base + i).loadUnaligned(as: UInt64.self)
                    let below20 = (x &- 0x20 &* ones) & ~x & highs
                    let del = ((x ^ 0x7F &* ones) &- ones) & ~(x ^ 0x7F &* ones) & highs
                    if (x & highs) | below20 | del == 0 { i += 8; continue }
                    stop = i + 8
                }
                while i < stop {
                    let b = p[i]
                    i += 1
                    // Printable ASCII (most bytes) costs one comparison.
                    if b >= 0x20 && b < 0x7F { continue }
                    if b >= 0x80 { ascii = false; continue }
                    if b != 0x09, b != 0x0A, b != 0x0D { bad += 1 }
                }
            }
        }
        if bad * 10 > bytes.count { return false }
        if !ascii, !UTF8Validation.isValid(bytes) { return false }
        return true
    }
}

/// What the base64 tests of the walk (`FieldWalker.nextBase64Candidate`) and of the span scan
/// (`KnownValueMatcher.base64Suspect`) note of a byte: bits of `base64RunClasses`.
enum Base64RunClass {
    /// In the base64 or base64url alphabet (padding excluded): `ByteCodecs.isBase64Byte`.
    static let alphabet: UInt8 = 1
    static let upper: UInt8 = 2
    static let lower: UInt8 = 4
    static let digit: UInt8 = 8
    /// In the alphabet but not a hex digit nor `-` (`G-Z`, `g-z`, `+`, `/`, `_`).
    static let nonHex: UInt8 = 16
}

/// `Base64RunClass` bits of every byte (a pointer: no retain or bounds check in the scans; never
/// freed, written once before first use, then only read).
nonisolated(unsafe) let base64RunClasses: UnsafePointer<UInt8> = {
    let table = UnsafeMutablePointer<UInt8>.allocate(capacity: 256)
    for v in 0..<256 {
        let b = UInt8(v)
        var c: UInt8 = 0
        if ByteCodecs.isBase64Byte(b) {
            c |= Base64RunClass.alphabet
            if hexNibble(b) == nil && b != 0x2D { c |= Base64RunClass.nonHex }
        }
        if b >= 0x41 && b <= 0x5A { c |= Base64RunClass.upper }
        if b >= 0x61 && b <= 0x7A { c |= Base64RunClass.lower }
        if b >= 0x30 && b <= 0x39 { c |= Base64RunClass.digit }
        table[v] = c
    }
    return UnsafePointer(table)
}()

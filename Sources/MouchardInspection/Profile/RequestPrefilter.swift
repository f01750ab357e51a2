import MouchardFlow
import MouchardWire

/// Some span of `spans` (sorted by lower bound) overlaps `range`.
func touches(_ spans: [Range<Int>], _ range: Range<Int>) -> Bool {
    for s in spans {
        if s.lowerBound >= range.upperBound { return false }
        if s.upperBound > range.lowerBound { return true }
    }
    return false
}

extension KnownValueMatcher {
    /// The spans of one request (see `RequestInterest`).
    func interest(_ request: HTTPRequest, target: [UInt8], pathAndQuery: String, passwordKeys: [String],
                  cleartext: Bool) -> RequestInterest {
        interest(request, target: target, pathAndQuery: pathAndQuery, passwordKeys: FoldedKeySearch(passwordKeys), cleartext: cleartext)
    }

    /// The spans of one request, with the password keys read once (`Inspector`); `keyAnswers`
    /// remembers which header values may hold one of them (cleartext requests).
    func interest(_ request: HTTPRequest, target: [UInt8], pathAndQuery: String, passwordKeys: FoldedKeySearch,
                  keyAnswers: HeaderValueCache<Bool>? = nil, cleartext: Bool) -> RequestInterest {
        var r = RequestInterest()
        var contentEncoding = false
        var binaryType = false
        // Cleartext only: some key name or value may hold a credential (see below).
        var hasCredentials = false
        // Fields are read in place: `for field in fields` would copy each one (name and value
        // retained and released), and `withUTF8` on a copy of the name too.
        let fields = request.headers.fields
        for i in fields.indices {
            let kind = fields[i].name.utf8.withContiguousStorageIfAvailable { ScannedHeaderName($0) }
                ?? { var name = fields[i].name; return name.withUTF8 { ScannedHeaderName($0) } }()
            if kind.isUnread {
                if kind == .contentEncoding { contentEncoding = true }
                if kind == .contentType {
                    // A multipart part may be typed as binary too.
                    switch ContentTypeReading.of(fields[i].valueBytes) {
                    case .binary: binaryType = true
                    case .multipart: if binaryTypeWords.isFound(in: request.body[...]) { binaryType = true }
                    case .other: break
                    }
                }
                r.headers.append([])
                continue
            }
            r.headers.append(headerSpans.spans(of: fields[i].valueBytes) { spans($0[...]) })
            // Keys are header names, cookie names, form, query and JSON keys, some of them
            // percent-encoded or JSON-escaped, and keys of forms and documents inside header values.
            // A name is read as a value is, answers remembered in the same cache (apps send the
            // same names with every request): JSON escapes are undone too, which only a name
            // holding `\` could need; a yes there walks the request whole, never less.
            if cleartext, !hasCredentials {
                var name = fields[i].name
                hasCredentials = kind == .authorization
                    || name.withUTF8 { b in keyAnswers.map { $0.answer(for: b) { mayHoldKey(ArraySlice($0), passwordKeys) } } ?? mayHoldKey(ArraySlice(b), passwordKeys) }
                    || keyAnswers.map { $0.answer(for: fields[i].valueBytes) { mayHoldKey($0[...], passwordKeys) } }
                    ?? mayHoldKey(fields[i].valueBytes[...], passwordKeys)
            }
        }
        if !request.body.isEmpty {
            // A body typed as binary is read as protobuf first (`walkDocument`), even when it looks
            // like text: its fields are not where a text scan cuts them.
            if contentEncoding || binaryType || !looksLikeText(request.body.prefix(512)) {
                r.walkAll = true
                r.body = nil
            } else {
                r.body = spans(request.body[...])
            }
        }
        r.target = spans(target[...], context: .target)
        if cleartext, hasCredentials || mayHoldKey(request.body.prefix(1 << 16), passwordKeys) || mayHoldKey(target[...], passwordKeys) {
            r.walkAll = true
            r.prunes = false
        }
        return r
    }

    /// One of `keys` is in `bytes` as written or after undoing up to three rounds of percent and
    /// JSON escapes (`pa%73sword`, `p\u0061ssword`, `pa%2573sword`): how the walk may read a key.
    private func mayHoldKey(_ bytes: ArraySlice<UInt8>, _ keys: FoldedKeySearch) -> Bool {
        if keys.isFound(in: bytes) { return true }
        var text = bytes
        for _ in 0..<3 {
            guard let unescaped = keyUnescaped(text) else { return false }
            if keys.isFound(in: unescaped[...]) { return true }
            text = unescaped[...]
        }
        return false
    }

    /// `bytes` with `%XX`, `\uXXXX` (ASCII) and `\x` escapes undone, nil when it holds none that
    /// can make a letter of a key: a `%XX` or `\u00XX` of a letter (`XX` from 40 to 7F), of `%`
    /// or of `\` (`%25`, `%5C`: escapes twice over), or `\` before anything but a JSON escape of
    /// a control byte, `"` or `/`. Keys are letters: undoing other escapes
    /// only puts a byte that is no letter where the escape was, and a key found then was there
    /// before.
    private func keyUnescaped(_ bytes: ArraySlice<UInt8>) -> [UInt8]? {
        let mayMakeLetter = bytes.withUnsafeBufferPointer { p -> Bool in
            guard let base = p.baseAddress else { return false }
            let ones: UInt64 = 0x0101_0101_0101_0101, highs: UInt64 = 0x8080_8080_8080_8080
            var i = 0
            while i < p.count {
                // 8 bytes at a time while none is `%` or `\` (most text).
                if i + 8 <= p.count {
                    let x = UnsafeRawPointer(base + i).loadUnaligned(as: UInt64.self)
                    let percent = x ^ (0x25 &* ones), backslash = x ^ (0x5C &* ones)
                    if ((percent &- ones) & ~percent | (backslash &- ones) & ~backslash) & highs == 0 { i += 8; continue }
                }
                let b = p[i]
                if b == 0x5C, i + 1 < p.count {
                    switch p[i + 1] {
                    case 0x62, 0x66, 0x6E, 0x72, 0x74, 0x22, 0x2F: break // \b \f \n \r \t \" \/: no letter
                    case 0x75: // \u00XX of a letter, of `%` or of `\`
                        if i + 5 < p.count, p[i + 2] == 0x30, p[i + 3] == 0x30, let h = hexNibble(p[i + 4]), hexNibble(p[i + 5]) != nil,
                           (h >= 4 && h <= 7) || (h == 2 && p[i + 5] == 0x35) { return true }
                    default: return true
                    }
                }
                if b == 0x25, i + 2 < p.count, let h = hexNibble(p[i + 1]), hexNibble(p[i + 2]) != nil,
                   (h >= 4 && h <= 7) || (h == 2 && p[i + 2] == 0x35) { return true }
                i += 1
            }
            return false
        }
        guard mayMakeLetter else { return nil }
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count)
        var i = bytes.startIndex
        let end = bytes.endIndex
        while i < end {
            let b = bytes[i]
            if b == 0x25, i + 2 < end, let h = hexNibble(bytes[i + 1]), let l = hexNibble(bytes[i + 2]) {
                out.append(h << 4 | l)
                i += 3
            } else if b == 0x5C, i + 5 < end, bytes[i + 1] == 0x75, bytes[i + 2] == 0x30, bytes[i + 3] == 0x30,
                      let h = hexNibble(bytes[i + 4]), let l = hexNibble(bytes[i + 5]), h < 8 {
                out.append(h << 4 | l)
                i += 6
            } else if b == 0x5C, i + 1 < end {
                out.append(bytes[i + 1])
                i += 2
            } else {
                out.append(b)
                i += 1
            }
        }
        return out
    }

    /// `ByteCodecs.looksLikeText`, answered 8 bytes at a time when every byte is printable ASCII,
    /// tab, LF or CR (then it is text); anything else is left to `looksLikeText` itself.
    func looksLikeText(_ bytes: ArraySlice<UInt8>) -> Bool {
        let plain = bytes.withUnsafeBufferPointer { b -> Bool in
            guard let base = b.baseAddress, !b.isEmpty else { return false }
            let ones: UInt64 = 0x0101_0101_0101_0101, highs: UInt64 = 0x8080_8080_8080_8080
            var i = 0
            while i < b.count {
                if i + 8 <= b.count {
                    let x = UnsafeRawPointer(base + i).loadUnaligned(as: UInt64.self)
                    let below20 = (x &- 0x20 &* ones) & ~x & highs
                    let del = ((x ^ 0x7F &* ones) &- ones) & ~(x ^ 0x7F &* ones) & highs
                    if (x & highs) | below20 | del == 0 { i += 8; continue }
                }
                let c = b[i]
                guard (c >= 0x20 && c < 0x7F) || c == 0x09 || c == 0x0A || c == 0x0D else { return false }
                i += 1
            }
            return true
        }
        return plain || ByteCodecs.looksLikeText(bytes)
    }
}

/// The words of `ContentTypeWords.readsProtobufFirst`: a multipart body that holds one may have
/// a part typed as binary (walked whole).
let binaryTypeWords = FoldedKeySearch(ContentTypeWords.protobufFirstWords)

/// `ContentTypeWords.multipart`'s word.
let multipartWord = FoldedKeySearch([ContentTypeWords.multipartWord])

/// `foldASCII` of every byte (never freed; written once, before first use, then only read).
nonisolated(unsafe) let asciiFold: UnsafePointer<UInt8> = {
    let table = UnsafeMutablePointer<UInt8>.allocate(capacity: 256)
    for b in 0..<256 { table[b] = foldASCII(UInt8(b)) }
    return UnsafePointer(table)
}()

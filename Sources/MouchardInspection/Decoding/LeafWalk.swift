import MouchardCodec
import MouchardWire

/// Leaves: a value recorded, then tried as an encoded layer (base64, hex, compressed, a
/// structure in a string, numbers in text).
extension FieldWalker {
    /// Records one value and tries to decode it further. A value that parses as a structure
    /// (JSON, XML, a form, a compressed blob) is not recorded whole: its parts are, each with its
    /// own inner path, so findings point at the exact field.
    mutating func leaf(_ bytes: ArraySlice<UInt8>, _ origin: FieldOrigin, depth: Int) {
        guard !bytes.isEmpty, !full else { return }
        guard depth < config.maxDepth else { emit(bytes, origin); return }
        let trimmed = trimSpace(bytes)
        guard trimmed.count >= 4 else { emit(bytes, origin); return }
        // Compressed blobs.
        if let (inflated, how) = inflateByMagic(trimmed) {
            var o = origin
            o.decodings.append(how)
            walkDocument(inflated[...], contentType: DocumentType(lowercased: ""), origin: o, topLevel: false, depth: depth + 1)
            return
        }
        let first = trimmed[trimmed.startIndex]
        // JSON inside a string.
        if first == UInt8(ascii: "{") || first == UInt8(ascii: "[") {
            let document = Array(trimmed)
            var skimmer = JSONSkimmer(document)
            if skimmer.validateIndexing(0..<document.count) != nil {
                // Profile mode: a sizeable document (a decoded blob, most often) is pruned by its own
                // spans, as a decompressed body is (`walkBody`).
                let spans = pruning.flatMap { walk in
                    document.count >= 32 && walk.matcher.looksLikeText(document.prefix(512)) ? walk.matcher.spans(document[...]) : nil
                }
                walkJSON(skimmer, 0, path: origin.inner ?? "$", key: origin.key, parentKey: origin.parentKey, origin: origin,
                             topLevel: false, depth: depth + 1, spans: spans, end: document.count)
                return
            }
        }
        if first == UInt8(ascii: "<"), trimmed.last == UInt8(ascii: ">") {
            walkXML(trimmed, origin: origin, topLevel: false, depth: depth + 1)
            return
        }
        // One pass answers the questions below (escapes, form, decimals, marks).
        let shape = LeafShape(trimmed)
        // Protobuf text format (its parts walked; the whole value is recorded too, since a text
        // that merely fits the grammar may be something else).
        if shape.hasColon, shape.hasNewlineOrBrace, TextProto.mayBe(trimmed) { _ = walkTextProto(trimmed, origin: origin, depth: depth) }
        emit(bytes, origin)
        // A value that is one prefix glued to a device-id-long hex run (`AND<android id>`, `__g<ad id>`).
        if let tail = PrefixedIdentifier.tail(trimmed) {
            var o = origin
            o.decodings.append("prefix")
            emit(tail, o)
        }
        // Marked coordinates (hemisphere letters, degrees-minutes-seconds) explain the numbers of
        // the text: its plain numbers (the seconds of a DMS pair) are then no pair of their own.
        let marked = (shape.hasDot || shape.hasNonASCII) && MarkedCoordinates.mayHoldMarks(trimmed)
            && markedCoordinates(trimmed, origin)
        if shape.hasDot, !marked { numbersInString(bytes, origin) }
        // Percent-encoding left in a value (double encoding, or a header/JSON string holding it).
        if shape.hasPercentEscape, let decoded = ByteCodecs.percentDecode(trimmed, plusAsSpace: false) {
            var o = origin
            o.decodings.append("url")
            leaf(decoded[...], o, depth: depth + 1)
            return
        }
        // A query/form string inside a value, or the query of a URL held in a value (a crash
        // breadcrumb's `https://host/path?phone=…`).
        if shape.looksLikeForm {
            walkForm(trimmed, prefix: "", origin: origin, depth: depth + 1)
        } else if shape.hasColon, let query = Self.queryOfURL(trimmed) {
            walkForm(query, prefix: "", origin: origin, depth: depth + 1)
        }
        tryHex(trimmed, origin, depth: depth)
        // A run is a base64 candidate only when padded or holding an upper-case letter.
        if shape.hasUppercaseOrEquals { tryBase64(trimmed, origin, depth: depth) }
    }

    mutating func tryHex(_ bytes: ArraySlice<UInt8>, _ origin: FieldOrigin, depth: Int) {
        guard bytes.count >= 8, bytes.count % 2 == 0, bytes.count <= 1 << 16 else { return }
        // Text with some letters or digits (digits-only hex decodes to punctuation), told from the
        // pairs: hex of binary (most hex) is turned away before anything is allocated.
        guard ByteCodecs.hexDecodesToText(bytes), let decoded = ByteCodecs.hexDecode(bytes) else { return }
        var o = origin
        o.decodings.append("hex")
        leaf(decoded[...], o, depth: depth + 1)
    }

    /// Base64 / base64url: the whole value, or runs of the alphabet inside it (JWT segments,
    /// `Basic …`, `email:ts` tokens). A run is a candidate only when padded or holding an
    /// upper-case letter: `leaf` calls this only for values holding one or the other (its
    /// `LeafShape` tells, in the pass it makes anyway).
    mutating func tryBase64(_ bytes: ArraySlice<UInt8>, _ origin: FieldOrigin, depth: Int) {
        // No run can be long enough in a shorter value.
        guard bytes.count >= config.minBase64Length else { return }
        var i = bytes.startIndex
        var tried = 0
        // The origin of what the runs decode to: the same for every run, built for the first.
        var decodedOrigin: FieldOrigin?
        while i < bytes.endIndex, tried < 64 {
            guard let run = nextBase64Candidate(bytes, from: &i) else { return }
            tried += 1
            var decoded = ByteCodecs.base64Decode(run)
            // A short tag glued before the text (`a+<base64>`, AdMob's `uule`): the run read
            // whole decodes to noise, the text after the tag to text.
            if !(decoded.map { ($0.count >= 2 && $0[0] == 0x1F && $0[1] == 0x8B) || ByteCodecs.looksLikeText($0) } ?? false),
               let tail = Self.afterShortTag(run), let text = ByteCodecs.base64Decode(tail), ByteCodecs.looksLikeText(text) {
                decoded = text
            }
            guard let decoded, decoded.count >= 4 else { continue }
            let o: FieldOrigin
            if let decodedOrigin {
                o = decodedOrigin
            } else {
                var made = origin
                made.decodings.append("base64")
                o = made
                decodedOrigin = made
            }
            if decoded.count >= 2, decoded[0] == 0x1F, decoded[1] == 0x8B {
                leaf(decoded[...], o, depth: depth + 1)
            } else if ByteCodecs.looksLikeText(decoded) {
                leaf(decoded[...], o, depth: depth + 1)
            } else if decoded.count >= 8 {
                _ = walkProtobuf(decoded[...], origin: o, topLevel: false, path: "pb", depth: depth + 1)
            }
        }
    }

    /// The query (up to a `#`) of the first absolute `http`/`https` URL in a value (the whole
    /// value, or a URL inside a log line or a decoded record), nil when there is none.
    static func queryOfURL(_ value: ArraySlice<UInt8>) -> ArraySlice<UInt8>? {
        guard value.count >= 12 else { return nil }
        let s = value.startIndex, end = value.endIndex
        var from = s
        while from < end, let colon = value[from...].firstIndex(of: UInt8(ascii: ":")) {
            from = colon + 1
            guard colon + 2 < end, value[colon + 1] == UInt8(ascii: "/"), value[colon + 2] == UInt8(ascii: "/"), colon - s >= 4 else { continue }
            let scheme = value[..<colon].suffix(5)
            guard scheme.suffix(4).elementsEqual("http".utf8) || scheme.elementsEqual("https".utf8) else { continue }
            // The URL runs to the first byte no URL holds unescaped.
            var e = colon + 3
            while e < end, value[e] > 0x20, value[e] < 0x7F, value[e] != UInt8(ascii: "\""), value[e] != UInt8(ascii: "<"),
                  value[e] != UInt8(ascii: ">"), value[e] != UInt8(ascii: "#") { e += 1 }
            guard let q = value[(colon + 3)..<e].firstIndex(of: UInt8(ascii: "?")), q + 1 < e else { return nil }
            return value[(q + 1)..<e]
        }
        return nil
    }

    /// The rest of a base64 run after a tag of one or two letters and a `+` or `/` (`a+cm9sZ…`),
    /// when long enough to be worth decoding; nil when the run starts otherwise.
    static func afterShortTag(_ run: ArraySlice<UInt8>) -> ArraySlice<UInt8>? {
        let s = run.startIndex
        for k in (s + 1)..<min(s + 3, run.endIndex) where run[k] == UInt8(ascii: "+") || run[k] == UInt8(ascii: "/") {
            let tail = run[(k + 1)...]
            return tail.count >= 12 ? tail : nil
        }
        return nil
    }

    /// The next run of the base64/base64url alphabet from `i` (with up to two `=` of padding) worth
    /// decoding: long enough, not plain hex, mixing cases or letters and digits. `i` moves past it.
    func nextBase64Candidate(_ bytes: ArraySlice<UInt8>, from i: inout Int) -> ArraySlice<UInt8>? {
        let minimum = config.minBase64Length
        let base = bytes.startIndex
        let table = base64RunClasses
        let found: Range<Int>? = bytes.withUnsafeBufferPointer { p in
            var k = i - base
            let n = p.count
            while k < n {
                guard table[Int(p[k])] & Base64RunClass.alphabet != 0 else { k += 1; continue }
                let start = k
                var seen: UInt8 = 0
                while k < n {
                    let c = table[Int(p[k])]
                    if c & Base64RunClass.alphabet == 0 { break }
                    seen |= c
                    k += 1
                }
                let runEnd = k
                while k < n, p[k] == 0x3D, k - runEnd < 2 { k += 1 }
                // Same tests as `looksLikeBase64Run` and the plain-hex exclusion, in the one pass.
                let padded = k > runEnd
                let upper = seen & Base64RunClass.upper != 0, lower = seen & Base64RunClass.lower != 0
                let digit = seen & Base64RunClass.digit != 0, nonHex = seen & Base64RunClass.nonHex != 0
                if k - start >= minimum, nonHex || padded, padded || (upper && lower) || (upper && digit) {
                    i = base + k
                    return (base + start)..<(base + k)
                }
            }
            i = base + n
            return nil
        }
        return found.map { bytes[$0] }
    }

    /// Decimal numbers written inside one string (`47.08,2.39`, `geo:47.08;2.39`, `[2.39, 47.08]`).
    /// Only called for bytes holding a `.` (the leaf's `LeafShape` tells).
    mutating func numbersInString(_ bytes: ArraySlice<UInt8>, _ origin: FieldOrigin) {
        guard bytes.count >= 7, bytes.count <= 200 else { return }
        var members: [NumberGroup.Member] = []
        bytes.withUnsafeBufferPointer { p in
            @inline(__always) func isDigit(_ b: UInt8) -> Bool { b >= 0x30 && b <= 0x39 }
            let end = p.count
            // Every number `parseDecimal` reads holds a digit, a `.` and a digit in a row: a group
            // of two needs two such dots (most dotted values, host names and versions, have
            // none or one, and are turned away before the number-by-number read).
            var digitDots = 0
            var d = 1
            while d + 1 < end, digitDots < 2 {
                if p[d] == 0x2E, isDigit(p[d - 1]), isDigit(p[d + 1]) { digitDots += 1 }
                d += 1
            }
            guard digitDots == 2 else { return }
            var i = 0
            while i < end, members.count < 8 {
                let b = p[i]
                let startsNumber = isDigit(b) || (b == 0x2D && i + 1 < end && isDigit(p[i + 1]))
                if !startsNumber { i += 1; continue }
                if i > 0, isASCIIAlnum(p[i - 1]) || p[i - 1] == 0x2E {
                    i += 1
                    while i < end, isASCIIAlnum(p[i]) || p[i] == 0x2E { i += 1 }
                    continue
                }
                var j = i + 1
                while j < end, isDigit(p[j]) || p[j] == 0x2E { j += 1 }
                if j < end, isASCIIAlnum(p[j]) { i = j; continue }
                if let n = parseDecimal(UnsafeBufferPointer(rebasing: p[i..<j])) {
                    members.appendMember(.init(key: String(members.count), value: n.value, decimals: n.decimals))
                }
                i = j
            }
        }
        if members.count >= 2 {
            result.groups.append(NumberGroup(prefix: origin.location, inner: origin.inner, decodings: origin.decodings,
                                             containerKey: origin.key, members: members, fromOneString: true))
        }
    }

    /// Coordinates marked by hemisphere letters or degree signs (`MarkedCoordinates`): a group of
    /// their own, marked, whatever key holds the text.
    /// True when the text held such a group.
    mutating func markedCoordinates(_ bytes: ArraySlice<UInt8>, _ origin: FieldOrigin) -> Bool {
        guard let values = MarkedCoordinates.read(bytes) else { return false }
        var members: [NumberGroup.Member] = []
        for (i, v) in values.enumerated() { members.appendMember(.init(key: String(i), value: v.degrees, decimals: v.decimals)) }
        result.groups.append(NumberGroup(prefix: origin.location, inner: origin.inner, decodings: origin.decodings,
                                         containerKey: origin.key, members: members, fromOneString: true, marked: true))
        return true
    }

    func inflateByMagic(_ bytes: ArraySlice<UInt8>) -> ([UInt8], String)? {
        guard bytes.count >= 10 else { return nil }
        let b0 = bytes[bytes.startIndex], b1 = bytes[bytes.startIndex + 1]
        // Nearly every value starts otherwise: told before the decoder is made.
        let gzip = b0 == 0x1F && b1 == 0x8B
        let zlib = b0 == 0x78 && (b1 == 0x01 || b1 == 0x5E || b1 == 0x9C || b1 == 0xDA) && (UInt16(b0) << 8 | UInt16(b1)) % 31 == 0
        guard gzip || zlib else { return nil }
        let decoder = ContentDecoder(limit: config.maxDecodedBytes)
        if gzip, let out = try? decoder.gunzip(Array(bytes)) { return (out, "gzip") }
        if zlib, let out = try? decoder.inflate(Array(bytes)) { return (out, "deflate") }
        return nil
    }

    /// `a=1&b=2` or one short `key=value`: key characters only before the first `=`, no spaces or
    /// newlines, not base64 padding (`abc==`), a value after the `=` (see `LeafShape`).
    func looksLikeForm(_ bytes: ArraySlice<UInt8>) -> Bool { LeafShape(bytes).looksLikeForm }
}

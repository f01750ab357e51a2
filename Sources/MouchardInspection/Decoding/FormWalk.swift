/// Forms and queries (`a=1&b[c]=2`): percent-decoded pairs, bracket keys, nested forms.
extension FieldWalker {
    /// `a=1&b=2` (also `;` separators); names percent-decoded; `prefix` + name is the location,
    /// unless `origin` already sits inside a blob (then the name extends its inner path).
    /// `spans` (over the bytes `bytes` is a slice of) skips pairs that cannot hold a profile value.
    mutating func walkForm(_ bytes: ArraySlice<UInt8>, prefix: String, origin: FieldOrigin, depth: Int, spans: [Range<Int>]? = nil) {
        var members: [NumberGroup.Member] = []
        let nested = prefix.isEmpty
        var complete = true
        // The decodings of a percent-decoded value: built once, shared by the pairs.
        var urlDecodings: [String]?
        // A loop, not `forEachPart`: a closure here would copy the walker for every pair.
        var start = bytes.startIndex
        while start < bytes.endIndex {
            let end = ByteSearch.index(of: UInt8(ascii: "&"), in: bytes, from: start)
            defer { start = end + 1 }
            guard end > start else { continue }
            let pair = bytes[start..<end]
            if full { complete = false; break }
            let eqAt = ByteSearch.index(of: UInt8(ascii: "="), in: pair, from: pair.startIndex)
            let eq = eqAt < pair.endIndex ? eqAt : nil
            // A pair without escapes decodes to itself: when no span touches it, only its number
            // (for coordinate pairs) is needed.
            if let spans, !touches(spans, pair.startIndex..<pair.endIndex),
               !ByteSearch.contains(UInt8(ascii: "%"), or: UInt8(ascii: "+"), in: pair) {
                if let eq, let n = parseDecimal(pair[(eq + 1)...]) {
                    let name = String(decoding: pair[pair.startIndex..<eq], as: UTF8.self)
                    members.appendMember(.init(key: name, value: n.value, decimals: n.decimals))
                }
                continue
            }
            let rawName = eq.map { pair[pair.startIndex..<$0] } ?? pair
            let rawValue = eq.map { pair[($0 + 1)...] } ?? pair[pair.endIndex...]
            let decodedName = ByteCodecs.percentDecode(rawName, plusAsSpace: true)
            let name = decodedName.map { String(decoding: $0, as: UTF8.self) } ?? String(decoding: rawName, as: UTF8.self)
            var o = FieldOrigin(location: nested ? origin.location : prefix + name,
                                inner: nested ? (origin.inner ?? "") + (origin.inner == nil ? "" : ".") + name : origin.inner,
                                decodings: origin.decodings, key: bracketLeaf(name), parentKey: origin.key)
            if eq == nil {
                if !nested { leaf(rawName, FieldOrigin(location: prefix.hasPrefix("query") ? "query:\(name)" : o.location, key: ""), depth: depth) }
                continue
            }
            if let decoded = ByteCodecs.percentDecode(rawValue, plusAsSpace: true) {
                if let n = parseDecimal(decoded[...]) { members.appendMember(.init(key: name, value: n.value, decimals: n.decimals)) }
                if urlDecodings == nil { urlDecodings = origin.decodings.isEmpty ? Self.urlOnly : origin.decodings + ["url"] }
                o.decodings = urlDecodings ?? []
                // A raw `+` in an e-mail address is ambiguous (a space, or a `+` left unescaped):
                // the `+` reading first, then the space one.
                if ByteSearch.contains(UInt8(ascii: "+"), or: UInt8(ascii: "+"), in: rawValue), decoded.contains(UInt8(ascii: "@")) {
                    if let kept = ByteCodecs.percentDecode(rawValue, plusAsSpace: false) {
                        leaf(kept[...], o, depth: depth + 1)
                    } else {
                        var raw = o
                        raw.decodings = origin.decodings
                        leaf(rawValue, raw, depth: depth + 1)
                    }
                }
                leaf(decoded[...], o, depth: depth + 1)
            } else {
                if let n = parseDecimal(rawValue) { members.appendMember(.init(key: name, value: n.value, decimals: n.decimals)) }
                leaf(rawValue, o, depth: depth)
            }
        }
        guard complete else { return }
        if members.count >= 2 {
            if nested {
                result.groups.append(NumberGroup(prefix: origin.location, inner: (origin.inner.map { $0 + "." } ?? ""), decodings: origin.decodings,
                                                 containerKey: origin.key, members: members, fromOneString: false))
            } else {
                result.groups.append(NumberGroup(prefix: prefix, inner: nil, decodings: origin.decodings, containerKey: "",
                                                 members: members, fromOneString: false))
            }
        }
    }

    /// The decodings of a value percent-decoded from a form read as sent (a query string, most
    /// often): one array shared by every request.
    static let urlOnly = ["url"]

    /// `ud[em]` → `em`, `a[]` → `a`.
    func bracketLeaf(_ name: String) -> String {
        // Most names do not end in `]`: told from the last byte before the character test.
        var text = name
        guard text.withUTF8({ $0.last }) == UInt8(ascii: "]"), name.hasSuffix("]"), let open = name.lastIndex(of: "[") else { return name }
        let inside = name[name.index(after: open)..<name.index(before: name.endIndex)]
        return inside.isEmpty ? String(name[..<open]) : String(inside)
    }
}

import MouchardWire

extension FieldWalker {
    /// Walks a JSON value read in place with a `JSONSkimmer` (no tree is built; only the strings
    /// walked are unescaped): strings are leaves (decoded further), long numbers are fields, and
    /// numbers side by side in an object or a short array form a group (coordinate candidates).
    ///
    /// At the top level `path` starts with the location (`body:$`) and is each field's location;
    /// inside a blob it is the inner path (`$.a`). With `spans` (a top-level body in profile mode,
    /// spans counted in `json.bytes`), members and items whose bytes — from the value to the next
    /// key or item, `end` for the last — touch no span are skipped: they cannot hold a profile
    /// value (`PartPruningTests` holds the pruned walk to the full one).
    mutating func walkJSON(_ json: JSONSkimmer, _ value: JSONSkimmer.Span, path: String, key: String, parentKey: String,
                           origin: FieldOrigin, topLevel: Bool, depth: Int, spans: [Range<Int>]?, end: Int) {
        if full { return }
        func at(_ p: String, key: String, parent: String) -> FieldOrigin {
            // Built whole: copying `origin` and then replacing three of its strings costs more.
            FieldOrigin(location: topLevel ? p : origin.location, inner: topLevel ? origin.inner : p, decodings: origin.decodings,
                        key: key, parentKey: parent)
        }
        let bytes = json.bytes
        switch value.kind {
        case .object:
            let members = json.members(of: value)
            var numbers: [NumberGroup.Member] = []
            for (index, m) in members.enumerated() {
                let v = m.value
                var memberKey: String?
                func keyText() -> String {
                    if let memberKey { return memberKey }
                    let k = json.text(m.key)
                    memberKey = k
                    return k
                }
                if v.kind == .number {
                    let t = bytes[v.start..<v.end]
                    if let n = parseDecimal(t) {
                        numbers.append(.init(key: keyText(), value: n.value, decimals: n.decimals))
                    } else if t.count >= 5, t.count <= 12, let scaled = scaledCoordinate(key: keyText(), t) {
                        // `latE7: 470864000`, `lng_e6: 2391300`: fixed-point degrees.
                        numbers.append(.init(key: keyText(), value: scaled.value, decimals: scaled.decimals))
                    }
                } else if v.kind == .string, v.end - v.start >= 5 {
                    let inner = bytes[(v.start + 1)..<(v.end - 1)]
                    let n = inner.contains(UInt8(ascii: "\\")) ? parseDecimal(json.string(v)[...]) : parseDecimal(inner)
                    if let n { numbers.append(.init(key: keyText(), value: n.value, decimals: n.decimals)) }
                }
                if yieldsNothing(json, v) { continue }
                let childEnd = index + 1 < members.count ? members[index + 1].key.start : end
                if let spans, !touches(spans, v.start..<childEnd) { continue }
                let k = keyText()
                walkJSON(json, v, path: joined(path, ".", k), key: k, parentKey: key, origin: origin, topLevel: topLevel, depth: depth,
                         spans: spans, end: childEnd)
            }
            if numbers.count >= 2 {
                result.groups.append(topLevel
                    ? NumberGroup(prefix: path + ".", inner: nil, decodings: origin.decodings, containerKey: key, members: numbers,
                                  fromOneString: false)
                    : NumberGroup(prefix: origin.location, inner: path + ".", decodings: origin.decodings, containerKey: key,
                                  members: numbers, fromOneString: false))
            }
        case .array:
            let items = json.items(of: value)
            var numbers: [NumberGroup.Member] = []
            for (i, item) in items.enumerated() {
                if item.kind == .number, items.count <= 3, let n = parseDecimal(bytes[item.start..<item.end]) {
                    numbers.append(.init(key: String(i), value: n.value, decimals: n.decimals))
                }
                if yieldsNothing(json, item) { continue }
                let childEnd = i + 1 < items.count ? items[i + 1].start : end
                if let spans, !touches(spans, item.start..<childEnd) { continue }
                walkJSON(json, item, path: indexed(path, i), key: key, parentKey: parentKey, origin: origin,
                         topLevel: topLevel, depth: depth, spans: spans, end: childEnd)
            }
            if numbers.count >= 2 {
                let o = at(path, key: key, parent: parentKey)
                result.groups.append(NumberGroup(prefix: o.location, inner: o.inner, decodings: origin.decodings,
                                                 containerKey: key, members: numbers, fromOneString: true))
            }
        case .string:
            leaf(json.stringSlice(value), at(path, key: key, parent: parentKey), depth: depth + 1)
        case .number:
            emit(Array(bytes[value.start..<value.end])[...], at(path, key: key, parent: parentKey), isNumber: true)
        case .literal:
            break
        }
    }

    /// `a + separator + b`, written into one buffer (chained `+` makes an intermediate string, and
    /// appends each check and grow).
    func joined(_ a: String, _ separator: StaticString, _ b: String) -> String {
        let count = a.utf8.count + separator.utf8CodeUnitCount + b.utf8.count
        return String(unsafeUninitializedCapacity: count) { buffer in
            guard let base = buffer.baseAddress else { return 0 }
            var k = 0
            func put(_ text: String) {
                let copied = text.utf8.withContiguousStorageIfAvailable { bytes -> Int in
                    let n = min(bytes.count, count - k)
                    guard n > 0, let from = bytes.baseAddress else { return 0 }
                    (base + k).update(from: from, count: n)
                    return n
                }
                if let copied { k += copied; return }
                // Text not stored as UTF-8 (bridged): byte by byte.
                for byte in text.utf8 where k < count {
                    base[k] = byte
                    k += 1
                }
            }
            put(a)
            let n = min(separator.utf8CodeUnitCount, count - k)
            if n > 0 {
                (base + k).update(from: separator.utf8Start, count: n)
                k += n
            }
            put(b)
            return k
        }
    }

    /// `path + "[" + String(i) + "]"` (`i` >= 0), written into one buffer.
    func indexed(_ path: String, _ i: Int) -> String {
        var digits = 1
        var rest = i / 10
        while rest > 0 { digits += 1; rest /= 10 }
        let count = path.utf8.count + digits + 2
        return String(unsafeUninitializedCapacity: count) { buffer in
            guard let base = buffer.baseAddress, i >= 0 else { return 0 }
            var k = 0
            let copied = path.utf8.withContiguousStorageIfAvailable { bytes -> Int in
                let n = min(bytes.count, count - 2 - digits)
                guard n > 0, let from = bytes.baseAddress else { return 0 }
                base.update(from: from, count: n)
                return n
            }
            if let copied {
                k = copied
            } else {
                // Text not stored as UTF-8 (bridged): byte by byte.
                for byte in path.utf8 where k < count - 2 - digits {
                    base[k] = byte
                    k += 1
                }
            }
            base[k] = UInt8(ascii: "[")
            var value = i
            var at = k + digits
            while at > k {
                base[at] = UInt8(ascii: "0") + UInt8(value % 10)
                value /= 10
                at -= 1
            }
            base[k + digits + 1] = UInt8(ascii: "]")
            return k + digits + 2
        }
    }

    /// True when walking `v` can emit no field and no group: literals, numbers and strings too
    /// short for `emit`, empty containers.
    func yieldsNothing(_ json: JSONSkimmer, _ v: JSONSkimmer.Span) -> Bool {
        switch v.kind {
        case .literal: return true
        case .number: return v.end - v.start < 5
        case .string: return json.stringIsShorter(v, than: 2)
        case .object, .array:
            // Empty when only whitespace sits between the brackets.
            var i = v.start + 1
            while i < v.end - 1 {
                let b = json.bytes[i]
                if b != 0x20, b != 0x0A, b != 0x0D, b != 0x09 { return false }
                i += 1
            }
            return true
        }
    }
}

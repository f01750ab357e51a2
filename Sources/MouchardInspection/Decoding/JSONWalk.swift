import MouchardWire

extension FieldWalker {
    /// Walks a JSON value read in place from a `JSONSkimmer`'s tape (no tree is built; only the
    /// strings walked are unescaped): strings are leaves (decoded further), long numbers are
    /// fields, and numbers side by side in an object or a short array form a group (coordinate
    /// candidates). `index` is the value's entry in `json.tape`.
    ///
    /// At the top level `path` starts with the location (`body:$`) and is each field's location;
    /// inside a blob it is the inner path (`$.a`). With `spans` (a top-level body in profile mode,
    /// spans counted in `json.bytes`), members and items whose bytes — from the value to the next
    /// key or item, `end` for the last — touch no span are skipped: they cannot hold a profile
    /// value (`PartPruningTests` holds the pruned walk to the full one).
    mutating func walkJSON(_ json: JSONSkimmer, _ index: Int, path: String, key: String, parentKey: String,
                           origin: FieldOrigin, topLevel: Bool, depth: Int, spans: [Range<Int>]?, end: Int) {
        var cursor = spans.map { SpanCursor($0) }
        // The path is written in a buffer on the stack (most paths fit).
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 256) { memory in
            var buffer = JSONPathBuffer(memory: memory)
            buffer.append(path)
            walkJSON(json, index, path: &buffer, key: key, parentKey: parentKey, origin: origin, topLevel: topLevel, depth: depth,
                     spans: &cursor, end: end)
            buffer.freeOwnMemory()
        }
    }

    /// `walkJSON` with its spans read through one cursor for the whole walk (values are visited in
    /// the order of their bytes), and its path written in `path`: a member's or an item's path is
    /// written after the container's for as long as the value is walked, and made text only for
    /// what is found (a nested container's own path is not, unless its numbers form a group).
    private mutating func walkJSON(_ json: JSONSkimmer, _ index: Int, path: inout JSONPathBuffer, key: String, parentKey: String,
                                   origin: FieldOrigin, topLevel: Bool, depth: Int, spans: inout SpanCursor?, end: Int) {
        if full { return }
        let tape = json.tape
        guard index >= 0, index < tape.count else { return }
        let bytes = json.bytes
        let value = tape[index]
        let last = min(value.next, tape.count)
        let pathEnd = path.count
        switch value.kind {
        case .object:
            var numbers: [NumberGroup.Member] = []
            var child = index + 1
            while child < last {
                let m = tape[child]
                let following = m.next
                var memberKey: String?
                func keyText() -> String {
                    if let memberKey { return memberKey }
                    let k = json.keyText(m)
                    memberKey = k
                    return k
                }
                if m.kind == .number {
                    let t = bytes[m.start..<m.end]
                    if let n = parseDecimal(t) {
                        numbers.appendMember(.init(key: keyText(), value: n.value, decimals: n.decimals))
                    } else if t.count >= 5, t.count <= 12, let scaled = scaledCoordinate(key: keyText(), t) {
                        // `latE7: 470864000`, `lng_e6: 2391300`: fixed-point degrees.
                        numbers.appendMember(.init(key: keyText(), value: scaled.value, decimals: scaled.decimals))
                    }
                } else if m.kind == .string, m.end - m.start >= 5 {
                    // A string is read as a number only when it may start like one (`parseDecimal`
                    // wants a sign or a digit first; an escaped string's first byte, not a
                    // backslash, is its decoded first byte): most strings start with a letter.
                    let first = bytes[m.start + 1]
                    if first == UInt8(ascii: "-") || first == UInt8(ascii: "+") || (first >= 0x30 && first <= 0x39)
                        || (m.escaped && first == UInt8(ascii: "\\")),
                        let n = !m.escaped ? parseDecimal(bytes[(m.start + 1)..<(m.end - 1)]) : parseDecimal(json.string(m.span)[...]) {
                        numbers.appendMember(.init(key: keyText(), value: n.value, decimals: n.decimals))
                    }
                }
                defer { child = following }
                if yieldsNothing(json, m, index: child) { continue }
                let childEnd = following < last ? tape[following].keyStart : end
                if spans?.touches(m.start..<childEnd) == false { continue }
                let k = keyText()
                // The member's path: `.` and its key, copied from the document's bytes as
                // `keyText` reads them when it can (appending `k` costs a string access per
                // member), else `k`.
                path.append(UInt8(ascii: "."))
                if m.keyEscaped || m.keyStart < 0 || m.keyEnd - m.keyStart < 2 || m.keyEnd > bytes.count {
                    path.append(k)
                } else {
                    bytes.withUnsafeBufferPointer { path.append(UnsafeBufferPointer(rebasing: $0[(m.keyStart + 1)..<(m.keyEnd - 1)])) }
                }
                // Strings and numbers are walked here: a call of this function for each costs more.
                if m.kind == .object || m.kind == .array {
                    walkJSON(json, child, path: &path, key: k, parentKey: key, origin: origin, topLevel: topLevel,
                             depth: depth, spans: &spans, end: childEnd)
                } else {
                    walkJSONScalar(json, m, path: path, key: k, parentKey: key, origin: origin, topLevel: topLevel, depth: depth)
                }
                path.truncate(to: pathEnd)
            }
            if numbers.count >= 2 {
                let text = path.text()
                result.groups.append(topLevel
                    ? NumberGroup(prefix: text + ".", inner: nil, decodings: origin.decodings, containerKey: key, members: numbers,
                                  fromOneString: false)
                    : NumberGroup(prefix: origin.location, inner: text + ".", decodings: origin.decodings, containerKey: key,
                                  members: numbers, fromOneString: false))
            }
        case .array:
            // Items are counted first: a short array's numbers make a group.
            var count = 0
            var child = index + 1
            while child < last, count <= 3 { count += 1; child = tape[child].next }
            var numbers: [NumberGroup.Member] = []
            var i = 0
            child = index + 1
            while child < last {
                let item = tape[child]
                let following = item.next
                defer { child = following; i += 1 }
                if item.kind == .number, count <= 3, let n = parseDecimal(bytes[item.start..<item.end]) {
                    numbers.appendMember(.init(key: String(i), value: n.value, decimals: n.decimals))
                }
                if yieldsNothing(json, item, index: child) { continue }
                let childEnd = following < last ? tape[following].start : end
                if spans?.touches(item.start..<childEnd) == false { continue }
                path.appendIndex(i)
                if item.kind == .object || item.kind == .array {
                    walkJSON(json, child, path: &path, key: key, parentKey: parentKey, origin: origin,
                             topLevel: topLevel, depth: depth, spans: &spans, end: childEnd)
                } else {
                    walkJSONScalar(json, item, path: path, key: key, parentKey: parentKey, origin: origin,
                                   topLevel: topLevel, depth: depth)
                }
                path.truncate(to: pathEnd)
            }
            if numbers.count >= 2 {
                let o = Self.jsonOrigin(path.text(), key: key, parentKey: parentKey, origin: origin, topLevel: topLevel)
                result.groups.append(NumberGroup(prefix: o.location, inner: o.inner, decodings: origin.decodings,
                                                 containerKey: key, members: numbers, fromOneString: true))
            }
        case .string, .number, .literal:
            walkJSONScalar(json, value, path: path, key: key, parentKey: parentKey, origin: origin, topLevel: topLevel,
                           depth: depth)
        }
    }

    /// A string (a leaf, decoded further) or a number (a field) of `json`'s tape, found at `path`.
    @inline(__always)
    private mutating func walkJSONScalar(_ json: JSONSkimmer, _ value: JSONSkimmer.Entry, path: JSONPathBuffer, key: String, parentKey: String,
                                         origin: FieldOrigin, topLevel: Bool, depth: Int) {
        switch value.kind {
        case .string:
            let place = Self.jsonOrigin(path.text(), key: key, parentKey: parentKey, origin: origin, topLevel: topLevel)
            leaf(json.stringSlice(value), place, depth: depth + 1)
        case .number:
            guard value.start >= 0, value.start <= value.end, value.end <= json.bytes.count else { return }
            let place = Self.jsonOrigin(path.text(), key: key, parentKey: parentKey, origin: origin, topLevel: topLevel)
            emit(json.bytes[value.start..<value.end], place, isNumber: true)
        case .object, .array, .literal:
            break
        }
    }

    /// The origin of a value at `path` of a JSON document found at `origin` (`path` is the
    /// location at the top level, the inner path inside a blob). Built whole: copying `origin` and
    /// then replacing three of its strings costs more.
    static func jsonOrigin(_ path: String, key: String, parentKey: String, origin: FieldOrigin, topLevel: Bool) -> FieldOrigin {
        FieldOrigin(location: topLevel ? path : origin.location, inner: topLevel ? origin.inner : path, decodings: origin.decodings,
                    key: key, parentKey: parentKey)
    }

    /// True when walking tape entry `v` (at `index`) can emit no field and no group: literals,
    /// numbers and strings too short for `emit`, empty containers.
    func yieldsNothing(_ json: JSONSkimmer, _ v: JSONSkimmer.Entry, index: Int) -> Bool {
        switch v.kind {
        case .literal: return true
        case .number: return v.end - v.start < 5
        case .string: return v.escaped ? json.stringIsShorter(v.span, than: 2) : v.end - v.start - 2 < 2
        case .object, .array: return v.next <= index + 1
        }
    }
}

/// Protobuf text format (`key: value` lines, `name { ... }` blocks), as some SDKs put it in a
/// query value after base64 (AdMob's `uule`: `latlng{ latitude_e7: 535503400 ... }`).
enum TextProto {
    /// One scalar: the block path it sits in (`latlng`, empty at the top), its key, its bytes
    /// (a string's without the quotes, escapes left as written) and whether it was a string.
    struct Scalar {
        var block: String
        var key: String
        var value: ArraySlice<UInt8>
        var quoted: Bool
    }

    /// Blocks nested deeper than this make the text no message of interest.
    static let maxDepth = 16
    /// Scalars read at most.
    static let maxScalars = 1024

    /// The scalars of `text`, nil when it is not text format: every token must fit the grammar
    /// (`ident [:] value`, `ident [:] { ... }`, `}`), with at least two scalars, and the first
    /// byte must start an identifier.
    static func parse(_ text: ArraySlice<UInt8>) -> [Scalar]? {
        guard let first = text.first, isIdentStart(first) else { return nil }
        var out: [Scalar] = []
        var blocks: [String] = []
        var i = text.startIndex
        let end = text.endIndex
        func skipSpace() {
            while i < end, text[i] == 0x20 || text[i] == 0x0A || text[i] == 0x0D || text[i] == 0x09 || text[i] == 0x2C || text[i] == 0x3B { i += 1 }
        }
        while true {
            skipSpace()
            guard i < end else { break }
            if text[i] == UInt8(ascii: "}") || text[i] == UInt8(ascii: ">") {
                guard !blocks.isEmpty else { return nil }
                blocks.removeLast()
                i += 1
                continue
            }
            guard isIdentStart(text[i]) else { return nil }
            let keyStart = i
            while i < end, isIdentByte(text[i]) { i += 1 }
            let key = String(decoding: text[keyStart..<i], as: UTF8.self)
            while i < end, text[i] == 0x20 || text[i] == 0x09 { i += 1 }
            var colon = false
            if i < end, text[i] == UInt8(ascii: ":") { colon = true; i += 1 }
            while i < end, text[i] == 0x20 || text[i] == 0x09 { i += 1 }
            guard i < end else { return nil }
            if text[i] == UInt8(ascii: "{") || text[i] == UInt8(ascii: "<") {
                guard blocks.count < maxDepth else { return nil }
                blocks.append(key)
                i += 1
                continue
            }
            guard colon else { return nil }
            let block = blocks.joined(separator: ".")
            if text[i] == UInt8(ascii: "\"") || text[i] == UInt8(ascii: "'") {
                let quote = text[i]
                let start = i + 1
                i += 1
                while i < end, text[i] != quote, text[i] != 0x0A {
                    if text[i] == UInt8(ascii: "\\") { i += 1 }
                    i += 1
                }
                guard i < end, text[i] == quote else { return nil }
                out.append(Scalar(block: block, key: key, value: text[start..<i], quoted: true))
                i += 1
            } else {
                let start = i
                while i < end, isValueByte(text[i]) { i += 1 }
                guard i > start else { return nil }
                out.append(Scalar(block: block, key: key, value: text[start..<i], quoted: false))
            }
            guard out.count <= maxScalars else { return nil }
        }
        return blocks.isEmpty && out.count >= 2 ? out : nil
    }

    /// A cheap test before `parse`: starts like an identifier, holds a `:` and a newline or a `{`.
    static func mayBe(_ text: ArraySlice<UInt8>) -> Bool {
        guard text.count >= 8, let first = text.first, isIdentStart(first), text.contains(UInt8(ascii: ":")) else { return false }
        return text.contains(0x0A) || text.contains(UInt8(ascii: "{"))
    }

    private static func isIdentStart(_ b: UInt8) -> Bool { (b | 0x20) >= 0x61 && (b | 0x20) <= 0x7A || b == 0x5F }
    private static func isIdentByte(_ b: UInt8) -> Bool { isIdentStart(b) || (b >= 0x30 && b <= 0x39) || b == 0x2E || b == 0x5B || b == 0x5D || b == 0x2F }
    /// A number, an enum name or a boolean.
    private static func isValueByte(_ b: UInt8) -> Bool { isIdentByte(b) || b == 0x2D || b == 0x2B }
}

extension FieldWalker {
    /// A value holding protobuf text format: its strings walked as leaves, its numbers emitted, and
    /// each block's decimals and fixed-point degrees (`latitude_e7`) a number group. False when
    /// the value is not text format.
    mutating func walkTextProto(_ bytes: ArraySlice<UInt8>, origin: FieldOrigin, depth: Int) -> Bool {
        guard let scalars = TextProto.parse(bytes) else { return false }
        var numbers: [String: [NumberGroup.Member]] = [:]
        var blockOrder: [String] = []
        for s in scalars {
            if full { break }
            var o = origin
            let path = s.block.isEmpty ? s.key : s.block + "." + s.key
            o.inner = origin.inner.map { $0 + "." + path } ?? path
            o.key = s.key
            o.parentKey = s.block.split(separator: ".").last.map(String.init) ?? origin.key
            if s.quoted {
                leaf(s.value, o, depth: depth + 1)
                continue
            }
            emit(s.value, o, isNumber: true)
            let member: NumberGroup.Member?
            if let n = parseDecimal(s.value) {
                member = .init(key: s.key, value: n.value, decimals: n.decimals)
            } else if let scaled = scaledCoordinate(key: s.key, s.value.first == 0x2D ? s.value.dropFirst() : s.value) {
                member = .init(key: s.key, value: s.value.first == 0x2D ? -scaled.value : scaled.value, decimals: scaled.decimals)
            } else {
                member = nil
            }
            if let member {
                if numbers[s.block] == nil { blockOrder.append(s.block) }
                numbers[s.block, default: []].appendMember(member)
            }
        }
        for block in blockOrder {
            guard let members = numbers[block], members.count >= 2 else { continue }
            let prefix = block.isEmpty ? "" : block + "."
            result.groups.append(NumberGroup(prefix: origin.location, inner: origin.inner.map { $0 + "." + prefix } ?? prefix,
                                             decodings: origin.decodings, containerKey: block.split(separator: ".").last.map(String.init) ?? "",
                                             members: members, fromOneString: false))
        }
        return true
    }
}

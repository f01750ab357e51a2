/// XML and plist text.
extension FieldWalker {
    /// A forgiving scan of XML text: text nodes and attribute values become leaves named by the
    /// element path; in a plist, `<key>` names the next value.
    mutating func walkXML(_ bytes: ArraySlice<UInt8>, origin: FieldOrigin, topLevel: Bool, depth: Int) {
        var stack: [String] = []
        var plistKey: String?
        var i = bytes.startIndex
        var textStart = i
        var numbers: [NumberGroup.Member] = []
        func place(_ name: String) -> FieldOrigin {
            var o = origin
            let p = "/" + stack.joined(separator: "/") + (name.isEmpty ? "" : "/" + name)
            if topLevel { o.location = "\(origin.location):\(p)" } else { o.inner = p }
            o.key = name.isEmpty ? (stack.last ?? "") : name
            return o
        }
        while i < bytes.endIndex, !full {
            guard bytes[i] == UInt8(ascii: "<") else { i += 1; continue }
            let text = trimSpace(bytes[textStart..<i])
            if !text.isEmpty {
                let decoded = xmlUnescape(text)
                let name = plistKey ?? ""
                if stack.last == "key" {
                    plistKey = String(decoding: decoded, as: UTF8.self)
                } else {
                    if let n = parseDecimal(decoded[...]) {
                        numbers.appendMember(.init(key: plistKey ?? stack.last ?? "", value: n.value, decimals: n.decimals))
                    }
                    leaf(decoded[...], place(name), depth: depth + 1)
                    plistKey = nil
                }
            }
            guard let close = bytes[i...].firstIndex(of: UInt8(ascii: ">")) else { break }
            let tag = bytes[(i + 1)..<close]
            i = close + 1
            textStart = i
            guard let f = tag.first else { continue }
            if f == UInt8(ascii: "?") || f == UInt8(ascii: "!") { continue }
            if f == UInt8(ascii: "/") { if !stack.isEmpty { stack.removeLast() }; continue }
            let selfClosing = tag.last == UInt8(ascii: "/")
            let nameEnd = tag.firstIndex(where: { $0 == 0x20 || $0 == 0x2F || $0 == 0x09 || $0 == 0x0A }) ?? tag.endIndex
            let name = String(decoding: tag[tag.startIndex..<nameEnd], as: UTF8.self)
            // Attributes: name="value".
            var j = nameEnd
            while j < tag.endIndex, let eq = tag[j...].firstIndex(of: UInt8(ascii: "=")) {
                let attrName = String(decoding: trimSpace(tag[j..<eq]), as: UTF8.self)
                var k = eq + 1
                guard k < tag.endIndex, tag[k] == 0x22 || tag[k] == 0x27 else { break }
                let quote = tag[k]
                k += 1
                guard let endQ = tag[k...].firstIndex(of: quote) else { break }
                stack.append(name)
                leaf(xmlUnescape(tag[k..<endQ])[...], place("@" + attrName), depth: depth + 1)
                stack.removeLast()
                j = endQ + 1
            }
            if !selfClosing, stack.count < 64 { stack.append(name) }
        }
        if numbers.count >= 2 {
            result.groups.append(NumberGroup(prefix: topLevel ? "\(origin.location):" : origin.location, inner: topLevel ? nil : "",
                                             decodings: origin.decodings, containerKey: "", members: numbers, fromOneString: false))
        }
    }

    func xmlUnescape(_ bytes: ArraySlice<UInt8>) -> [UInt8] {
        guard bytes.contains(UInt8(ascii: "&")) else { return Array(bytes) }
        var s = String(decoding: bytes, as: UTF8.self)
        for (e, r) in [("&lt;", "<"), ("&gt;", ">"), ("&quot;", "\""), ("&apos;", "'"), ("&amp;", "&")] {
            s = s.replacingOccurrences(of: e, with: r)
        }
        return Array(s.utf8)
    }
}

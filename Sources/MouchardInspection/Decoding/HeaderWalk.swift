import MouchardWire

/// Headers and cookies: each value a leaf, named `header:NAME` and `cookie:NAME`.
extension FieldWalker {
    /// `spans` (per header, over its value) skips headers and cookies that cannot hold a profile value.
    mutating func walkHeaders(_ headers: HTTPHeaders, spans: RequestInterest.HeaderSpans?) {
        var members: [NumberGroup.Member] = []
        let fields = headers.fields
        for index in fields.indices {
            // No span: nothing to find in it, but its number (if any) still joins the headers' group.
            // Read in place: most headers are passed over without copying their field.
            let quiet = spans.map { $0[index].isEmpty } ?? false
            let count = fields[index].valueBytes.count
            let number = count >= 3 && count <= 24 ? parseDecimal(fields[index].valueBytes[...]) : nil
            if quiet, number == nil { continue }
            let field = fields[index]
            let headerSpans = spans?[index]
            let name = field.name.lowercased()
            if name == "cookie" {
                if !quiet { walkCookies(field.valueBytes, spans: headerSpans.map(Array.init)) }
                continue
            }
            if skippedHeaders.contains(name) { continue }
            if let number { members.appendMember(.init(key: field.name, value: number.value, decimals: number.decimals)) }
            if !quiet { leaf(field.valueBytes[...], FieldOrigin(location: "header:" + field.name, key: field.name), depth: 0) }
        }
        if members.count >= 2 {
            result.groups.append(NumberGroup(prefix: "header:", inner: nil, decodings: [], containerKey: "", members: members, fromOneString: false))
        }
    }

    mutating func walkCookies(_ bytes: [UInt8], spans: [Range<Int>]?) {
        var members: [NumberGroup.Member] = []
        defer {
            if members.count >= 2 {
                result.groups.append(NumberGroup(prefix: "cookie:", inner: nil, decodings: [], containerKey: "", members: members, fromOneString: false))
            }
        }
        for part in bytes.split(separator: UInt8(ascii: ";")) {
            var p = part
            while let f = p.first, f == 0x20 { p = p.dropFirst() }
            guard let eq = p.firstIndex(of: UInt8(ascii: "=")) else { continue }
            let name = String(decoding: p[p.startIndex..<eq], as: UTF8.self)
            var value = p[(eq + 1)...]
            if value.count >= 2, value.first == 0x22, value.last == 0x22 { value = value.dropFirst().dropLast() }
            if let n = parseDecimal(value) { members.appendMember(.init(key: name, value: n.value, decimals: n.decimals)) }
            if let spans, !touches(spans, p.startIndex..<p.endIndex) { continue }
            leaf(value, FieldOrigin(location: "cookie:" + name, key: name), depth: 0)
        }
    }
}

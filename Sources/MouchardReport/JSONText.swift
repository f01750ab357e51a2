import MouchardFindings
import MouchardInspection

/// Hand-written JSON for the large arrays of the JSON and SARIF reports (every finding, every
/// result): Foundation's `JSONEncoder` takes seconds for 100,000+ findings, string appends do not.
/// The shapes are exactly those `Codable` gives (`FindingsJSON.load` reads them back).
enum JSONText {
    /// Appends `s` as a JSON string: quotes, backslashes and control characters escaped, and
    /// U+2028/U+2029 too (so the document is also safe to embed in a script).
    static func string(_ s: String, into out: inout String) {
        out += "\""
        // Fast path: nothing to escape (0xE2 may start U+2028/U+2029, so it takes the slow path).
        let plain = s.utf8.withContiguousStorageIfAvailable { bytes in
            for b in bytes where b < 0x20 || b == 0x22 || b == 0x5C || b == 0x7F || b == 0xE2 { return false }
            return true
        } ?? !s.utf8.contains(where: { $0 < 0x20 || $0 == 0x22 || $0 == 0x5C || $0 == 0x7F || $0 == 0xE2 })
        if plain {
            out += s
            out += "\""
            return
        }
        for u in s.unicodeScalars {
            switch u {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case "\u{2028}": out += "\\u2028"
            case "\u{2029}": out += "\\u2029"
            default:
                if u.value < 0x20 || u.value == 0x7F {
                    let hex = String(u.value, radix: 16)
                    out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
                } else {
                    out.unicodeScalars.append(u)
                }
            }
        }
        out += "\""
    }

    static func field(_ name: String, _ value: String, into out: inout String) {
        out += ",\"\(name)\":"
        string(value, into: &out)
    }

    static func number(_ d: Double) -> String { d.isFinite ? "\(d)" : "null" }

    /// One finding as a compact JSON object (spec fields first, then the additions that are set).
    static func finding(_ f: Finding, into out: inout String) {
        out += "{\"category\":"
        string(f.category.rawValue, into: &out)
        field("type", f.type, into: &out)
        out += ",\"request\":{\"method\":"
        string(f.request.method, into: &out)
        field("url", f.request.url, into: &out)
        out += "},\"destination\":{\"host\":"
        string(f.destination.host, into: &out)
        if let t = f.destination.tracker { field("tracker", t, into: &out) }
        if let c = f.destination.trackerCategory { field("tracker_category", c, into: &out) }
        if let o = f.destination.owner { field("owner", o, into: &out) }
        out += ",\"third_party\":\(f.destination.thirdParty)}"
        field("where", f.where, into: &out)
        field("encoding", f.encoding, into: &out)
        field("evidence", f.evidence, into: &out)
        field("rule", f.rule, into: &out)
        field("transport", f.transport, into: &out)
        if let v = f.flow { out += ",\"flow\":\(v)" }
        if let v = f.confidence { out += ",\"confidence\":\(number(v))" }
        if let v = f.severity { field("severity", v.rawValue, into: &out) }
        if let v = f.description { field("description", v, into: &out) }
        if let v = f.time { field("time", v, into: &out) }
        if let v = f.inner { field("inner", v, into: &out) }
        out += "}"
    }

    /// `items` as a JSON array, one element per line, indented for a pretty-printed document.
    static func array<T>(_ items: [T], indent: String, _ element: (T, inout String) -> Void) -> String {
        guard !items.isEmpty else { return "[]" }
        var out = "[\n"
        out.reserveCapacity(items.count * 400)
        for (i, item) in items.enumerated() {
            out += indent + "  "
            element(item, &out)
            out += i + 1 < items.count ? ",\n" : "\n"
        }
        return out + indent + "]"
    }

    /// Replaces the placeholder string `"marker"` in `document` with `replacement`.
    static func splice(_ document: [UInt8], marker: String, with replacement: String) -> [UInt8] {
        let needle = Array("\"\(marker)\"".utf8)
        guard needle.count <= document.count else { return document }
        var i = 0
        while i + needle.count <= document.count {
            if document[i] == needle[0] && Array(document[i..<(i + needle.count)]) == needle {
                return Array(document[..<i]) + Array(replacement.utf8) + Array(document[(i + needle.count)...])
            }
            i += 1
        }
        return document
    }
}

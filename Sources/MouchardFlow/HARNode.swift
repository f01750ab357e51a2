import MouchardWire

/// A JSON value with the path that leads to it, so every type check in the HAR reader can
/// fail with `log.entries[12].request.headers[3].value: expected a string, found a number`.
struct HARNode {
    let value: JSONValue
    let path: String

    func fail(_ message: String) -> HARError { HARError(path: path, message: message) }

    /// The member `key` of this object, nil when absent or `null` (HAR tools write both for "unknown").
    func child(_ key: String) -> HARNode? {
        guard let v = value.members?.first(where: { $0.key == key })?.value else { return nil }
        if case .null = v.kind { return nil }
        return HARNode(value: v, path: path.isEmpty ? key : "\(path).\(key)")
    }

    func required(_ key: String) throws(HARError) -> HARNode {
        guard let c = child(key) else {
            throw HARError(path: path.isEmpty ? key : "\(path).\(key)", message: "missing")
        }
        return c
    }

    func requireObject() throws(HARError) {
        guard case .object = value.kind else { throw fail("expected an object, found \(value.kindName)") }
    }

    /// The members of an object, for collecting custom `_fields`.
    func members() throws(HARError) -> [JSONMember] {
        guard let m = value.members else { throw fail("expected an object, found \(value.kindName)") }
        return m
    }

    func items() throws(HARError) -> [HARNode] {
        guard let a = value.elements else { throw fail("expected an array, found \(value.kindName)") }
        return a.enumerated().map { HARNode(value: $0.element, path: "\(path)[\($0.offset)]") }
    }

    func string() throws(HARError) -> String {
        guard let s = value.stringValue else { throw fail("expected a string, found \(value.kindName)") }
        return s
    }

    func bool() throws(HARError) -> Bool {
        guard case .bool(let b) = value.kind else { throw fail("expected a boolean, found \(value.kindName)") }
        return b
    }

    /// A number (or a string holding one: some exporters quote numbers).
    func double() throws(HARError) -> Double {
        switch value.kind {
        case .number:
            if let d = value.doubleValue, d.isFinite { return d }
        case .string:
            if let d = value.stringValue.flatMap({ Double($0.trimmingSpaces) }), d.isFinite { return d }
        default: break
        }
        throw fail("expected a number, found \(value.kindName)")
    }

    func int() throws(HARError) -> Int {
        let d = try double()
        guard d == d.rounded(), abs(d) < 1e15 else { throw fail("expected an integer") }
        return Int(d)
    }
}

extension JSONParser {
    /// How HAR files are parsed: browsers nest little, but custom `_fields` may nest deeper than
    /// request bodies do; a byte order mark (some exporters write one) is skipped.
    public static let har = JSONParser(maxDepth: 512, skipsByteOrderMark: true)
}

extension String {
    /// The string without leading and trailing ASCII spaces and tabs.
    var trimmingSpaces: String {
        var s = Substring(self)
        while let f = s.first, f == " " || f == "\t" { s = s.dropFirst() }
        while let l = s.last, l == " " || l == "\t" { s = s.dropLast() }
        return String(s)
    }
}

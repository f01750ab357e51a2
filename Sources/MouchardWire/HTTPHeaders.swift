/// One header field exactly as it appeared: the name keeps its case, the value keeps its bytes.
///
/// The value's bytes are the source of truth so that a parsed message serializes back
/// byte-for-byte even when an app sends bytes that are not UTF-8; `value` is the text view
/// used by everything that reads headers (UTF-8 when valid, otherwise Latin-1, never lossy).
public struct HTTPField: Sendable, Hashable {
    public var name: String
    public var valueBytes: [UInt8]

    public init(name: String, value: String) {
        self.name = name
        self.valueBytes = Array(value.utf8)
    }

    public init(name: String, valueBytes: [UInt8]) {
        self.name = name
        self.valueBytes = valueBytes
    }

    /// The value as text: UTF-8 when the bytes are valid UTF-8, otherwise Latin-1 (one scalar per byte).
    public var value: String {
        get { decodeFieldText(valueBytes) }
        set { valueBytes = Array(newValue.utf8) }
    }
}

/// Decodes header or start-line bytes as text without losing information:
/// valid UTF-8 stays UTF-8, anything else maps each byte to the Latin-1 scalar of the same value.
public func decodeFieldText<C: Collection>(_ bytes: C) -> String where C.Element == UInt8 {
    if let s = String(validating: bytes, as: UTF8.self) { return s }
    var out = String()
    out.unicodeScalars.reserveCapacity(bytes.count)
    for b in bytes { out.unicodeScalars.append(Unicode.Scalar(b)) }
    return out
}

/// An ordered list of header fields that keeps order, case and duplicates, as HTTP/1 and HAR need.
/// Look-ups by name are case-insensitive (ASCII).
public struct HTTPHeaders: Sendable, Hashable, RandomAccessCollection, ExpressibleByArrayLiteral {
    public var fields: [HTTPField]

    public init(_ fields: [HTTPField] = []) { self.fields = fields }

    public init(arrayLiteral elements: (String, String)...) {
        self.fields = elements.map { HTTPField(name: $0.0, value: $0.1) }
    }

    public var startIndex: Int { fields.startIndex }
    public var endIndex: Int { fields.endIndex }
    public subscript(position: Int) -> HTTPField { fields[position] }

    /// The first value of the field named `name` (case-insensitive), or nil.
    public subscript(name: String) -> String? {
        fields.first { asciiCaseInsensitiveEquals($0.name, name) }?.value
    }

    /// Every value of the fields named `name`, in order.
    public func values(for name: String) -> [String] {
        fields.filter { asciiCaseInsensitiveEquals($0.name, name) }.map(\.value)
    }

    public func contains(_ name: String) -> Bool {
        fields.contains { asciiCaseInsensitiveEquals($0.name, name) }
    }

    public mutating func add(name: String, value: String) {
        fields.append(HTTPField(name: name, value: value))
    }

    /// Removes every field named `name`; returns how many were removed.
    @discardableResult
    public mutating func remove(name: String) -> Int {
        let before = fields.count
        fields.removeAll { asciiCaseInsensitiveEquals($0.name, name) }
        return before - fields.count
    }

    /// Replaces every field named `name` with a single one at the position of the first.
    public mutating func replaceOrAdd(name: String, value: String) {
        if let i = fields.firstIndex(where: { asciiCaseInsensitiveEquals($0.name, name) }) {
            fields[i].value = value
            var j = fields.count - 1
            while j > i {
                if asciiCaseInsensitiveEquals(fields[j].name, name) { fields.remove(at: j) }
                j -= 1
            }
        } else {
            add(name: name, value: value)
        }
    }
}

/// ASCII case-insensitive comparison, the rule for HTTP field names and tokens.
public func asciiCaseInsensitiveEquals(_ a: String, _ b: String) -> Bool {
    let au = a.utf8, bu = b.utf8
    guard au.count == bu.count else { return false }
    for (x, y) in zip(au, bu) where x != y {
        let lx = (x >= 65 && x <= 90) ? x | 0x20 : x
        let ly = (y >= 65 && y <= 90) ? y | 0x20 : y
        if lx != ly { return false }
    }
    return true
}

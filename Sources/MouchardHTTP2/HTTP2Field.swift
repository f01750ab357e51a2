/// One HTTP/2 header field as it travels (HPACK-decoded): names are lower-case on the wire,
/// pseudo-header names start with `:`. Bytes are kept as received (values need not be UTF-8).
public struct HTTP2Field: Sendable, Hashable {
    public var name: [UInt8]
    public var value: [UInt8]

    public init(name: [UInt8], value: [UInt8]) {
        self.name = name
        self.value = value
    }

    public init(_ name: String, _ value: String) {
        self.name = Array(name.utf8)
        self.value = Array(value.utf8)
    }

    public var nameText: String { String(decoding: name, as: UTF8.self) }
    public var valueText: String { String(decoding: value, as: UTF8.self) }
    public var isPseudo: Bool { name.first == UInt8(ascii: ":") }
    /// What HPACK and SETTINGS_MAX_HEADER_LIST_SIZE count for this field (RFC 9113 §6.5.2).
    public var listSize: Int { name.count + value.count + 32 }
}

extension [HTTP2Field] {
    /// The value of the first field named `name` (lower-case), as text.
    public func value(of name: String) -> String? {
        let wanted = [UInt8](name.utf8)
        return first { $0.name == wanted }?.valueText
    }
}

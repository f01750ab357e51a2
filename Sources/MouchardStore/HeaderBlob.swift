import MouchardWire

/// Header lists stored as BLOBs: exact bytes of every name and value, order and duplicates kept.
/// Layout: field count (u32 LE), then per field name length (u32 LE), name, value length (u32 LE), value.
enum HeaderBlob {
    static func encode(_ headers: HTTPHeaders) -> [UInt8] {
        var out: [UInt8] = []
        func u32(_ v: Int) { withUnsafeBytes(of: UInt32(truncatingIfNeeded: v).littleEndian) { out.append(contentsOf: $0) } }
        u32(headers.count)
        for f in headers {
            let name = Array(f.name.utf8)
            u32(name.count)
            out += name
            u32(f.valueBytes.count)
            out += f.valueBytes
        }
        return out
    }

    /// Nil when the blob is truncated or inconsistent.
    static func decode(_ b: [UInt8]) -> HTTPHeaders? {
        var i = 0
        func u32() -> Int? {
            guard i + 4 <= b.count else { return nil }
            let v = Int(b[i]) | Int(b[i + 1]) << 8 | Int(b[i + 2]) << 16 | Int(b[i + 3]) << 24
            i += 4
            return v
        }
        func bytes() -> ArraySlice<UInt8>? {
            guard let n = u32(), n <= b.count - i else { return nil }
            defer { i += n }
            return b[i..<(i + n)]
        }
        guard let count = u32(), count <= b.count / 8 else { return nil }
        var fields: [HTTPField] = []
        fields.reserveCapacity(count)
        for _ in 0..<count {
            guard let name = bytes(), let value = bytes() else { return nil }
            fields.append(HTTPField(name: String(decoding: name, as: UTF8.self), valueBytes: Array(value)))
        }
        return i == b.count ? HTTPHeaders(fields) : nil
    }
}

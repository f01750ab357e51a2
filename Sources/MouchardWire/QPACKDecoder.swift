/// QPACK decoding (RFC 9204) for the field sections one side of an HTTP/3 connection receives:
/// the dynamic table that the other side's encoder stream builds, and the field lines of its
/// HEADERS frames (static and dynamic references, post-base indexing, literals, Huffman strings).
/// Pure and bounded: a bad instruction or field line is an error with its reason, never a crash.
public struct QPACKDecoder: Sendable {
    public struct Field: Sendable, Hashable {
        public var name: String
        public var value: [UInt8]
    }

    public enum Outcome: Sendable, Hashable {
        case fields([Field])
        /// The section refers to inserts the encoder stream has not delivered yet.
        case blocked(requiredInsertCount: Int)
        case failed(String)
    }

    /// SETTINGS_QPACK_MAX_TABLE_CAPACITY of this (decoding) side: it gives the range in which the
    /// Required Insert Count of a field section is encoded.
    public var maxTableCapacity: Int
    /// Inserts made so far (the absolute index the next one gets).
    public private(set) var insertCount = 0
    /// Why the encoder stream could not be read further, nil while all is well.
    public private(set) var failure: String?

    private var entries: [(name: String, value: [UInt8])] = []
    /// Entries evicted from the front of `entries` (absolute index of `entries[0]`).
    private var evicted = 0
    private var capacity = 0
    private var size = 0
    /// Encoder stream bytes of an instruction not complete yet.
    private var pending: [UInt8] = []

    /// The largest field section, name or value accepted (bytes).
    public static let maxStringLength = 1 << 20
    static let entryOverhead = 32

    public init(maxTableCapacity: Int) {
        self.maxTableCapacity = maxTableCapacity
    }

    // MARK: - Encoder stream (RFC 9204 §4.3)

    /// Bytes of the peer's encoder stream, in order (any split).
    public mutating func encoderStream(_ bytes: ArraySlice<UInt8>) {
        guard failure == nil else { return }
        pending += bytes
        var o = 0
        while o < pending.count {
            let start = o
            switch readInstruction(pending[...], at: &o) {
            case .complete:
                continue
            case .needMore:
                pending.removeFirst(start)
                return
            case .failed(let why):
                failure = "QPACK encoder stream: \(why)"
                pending = []
                return
            }
        }
        pending = []
    }

    private enum Step { case complete, needMore, failed(String) }

    private mutating func readInstruction(_ b: ArraySlice<UInt8>, at o: inout Int) -> Step {
        let first = b[b.startIndex + o]
        if first & 0x80 != 0 {
            // Insert with name reference: T bit, 6-bit index, then the value.
            guard let index = Self.integer(b, at: &o, prefix: 6) else { return .needMore }
            guard let value = Self.string(b, at: &o, prefix: 7) else { return .needMore }
            guard let v = value else { return .failed("bad string") }
            let name: String
            if first & 0x40 != 0 {
                guard let e = QPACKStaticTable.entry(index) else { return .failed("static index \(index)") }
                name = e.name
            } else {
                guard let e = entry(absolute: insertCount - 1 - index) else { return .failed("dynamic index \(index)") }
                name = e.name
            }
            return insert(name: name, value: v)
        }
        if first & 0x40 != 0 {
            // Insert with literal name: H bit and 5-bit length of the name, then the value.
            guard let name = Self.string(b, at: &o, prefix: 5) else { return .needMore }
            guard let value = Self.string(b, at: &o, prefix: 7) else { return .needMore }
            guard let n = name, let v = value else { return .failed("bad string") }
            return insert(name: String(decoding: n, as: UTF8.self), value: v)
        }
        if first & 0x20 != 0 {
            guard let newCapacity = Self.integer(b, at: &o, prefix: 5) else { return .needMore }
            guard newCapacity <= maxTableCapacity else { return .failed("capacity \(newCapacity) above the maximum \(maxTableCapacity)") }
            capacity = newCapacity
            evict()
            return .complete
        }
        // Duplicate.
        guard let index = Self.integer(b, at: &o, prefix: 5) else { return .needMore }
        guard let e = entry(absolute: insertCount - 1 - index) else { return .failed("dynamic index \(index)") }
        return insert(name: e.name, value: e.value)
    }

    private mutating func insert(name: String, value: [UInt8]) -> Step {
        let entrySize = name.utf8.count + value.count + Self.entryOverhead
        guard entrySize <= capacity else { return .failed("entry of \(entrySize) bytes in a table of \(capacity)") }
        entries.append((name, value))
        insertCount += 1
        size += entrySize
        evict()
        return .complete
    }

    private mutating func evict() {
        var drop = 0
        while size > capacity, drop < entries.count {
            size -= entries[drop].name.utf8.count + entries[drop].value.count + Self.entryOverhead
            drop += 1
        }
        if drop > 0 {
            entries.removeFirst(drop)
            evicted += drop
        }
    }

    private func entry(absolute index: Int) -> (name: String, value: [UInt8])? {
        let i = index - evicted
        return i >= 0 && i < entries.count ? entries[i] : nil
    }

    // MARK: - Field sections (RFC 9204 §4.5)

    /// Decodes the field section of a HEADERS frame.
    public func decode(fieldSection b: ArraySlice<UInt8>) -> Outcome {
        var o = 0
        guard let encodedInsertCount = Self.integer(b, at: &o, prefix: 8), let signByte = b.u8(at: o),
              let deltaBase = Self.integer(b, at: &o, prefix: 7) else { return .failed("field section prefix cut short") }
        let required: Int
        switch requiredInsertCount(encoded: encodedInsertCount) {
        case .success(let r): required = r
        case .failure(let why): return .failed(why.reason)
        }
        if required > insertCount { return .blocked(requiredInsertCount: required) }
        let base = signByte & 0x80 != 0 ? required - deltaBase - 1 : required + deltaBase
        var fields: [Field] = []
        while o < b.count {
            let first = b[b.startIndex + o]
            if first & 0x80 != 0 {
                // Indexed field line: T bit, 6-bit index.
                guard let index = Self.integer(b, at: &o, prefix: 6) else { return .failed("field line cut short") }
                if first & 0x40 != 0 {
                    guard let e = QPACKStaticTable.entry(index) else { return .failed("static index \(index)") }
                    fields.append(Field(name: e.name, value: Array(e.value.utf8)))
                } else {
                    guard let e = entry(absolute: base - 1 - index) else { return .failed("dynamic index \(index)") }
                    fields.append(Field(name: e.name, value: e.value))
                }
            } else if first & 0x40 != 0 {
                // Literal with name reference: N bit, T bit, 4-bit index, value.
                guard let index = Self.integer(b, at: &o, prefix: 4), let value = Self.string(b, at: &o, prefix: 7),
                      let v = value else { return .failed("field line cut short") }
                let name: String
                if first & 0x10 != 0 {
                    guard let e = QPACKStaticTable.entry(index) else { return .failed("static index \(index)") }
                    name = e.name
                } else {
                    guard let e = entry(absolute: base - 1 - index) else { return .failed("dynamic index \(index)") }
                    name = e.name
                }
                fields.append(Field(name: name, value: v))
            } else if first & 0x20 != 0 {
                // Literal with literal name: N bit, H bit and 3-bit length of the name, value.
                guard let name = Self.string(b, at: &o, prefix: 3), let n = name, let value = Self.string(b, at: &o, prefix: 7),
                      let v = value else { return .failed("field line cut short") }
                fields.append(Field(name: String(decoding: n, as: UTF8.self), value: v))
            } else if first & 0x10 != 0 {
                // Indexed field line with post-base index (4-bit).
                guard let index = Self.integer(b, at: &o, prefix: 4) else { return .failed("field line cut short") }
                guard let e = entry(absolute: base + index) else { return .failed("post-base index \(index)") }
                fields.append(Field(name: e.name, value: e.value))
            } else {
                // Literal with post-base name reference: N bit, 3-bit index, value.
                guard let index = Self.integer(b, at: &o, prefix: 3), let value = Self.string(b, at: &o, prefix: 7),
                      let v = value else { return .failed("field line cut short") }
                guard let e = entry(absolute: base + index) else { return .failed("post-base index \(index)") }
                fields.append(Field(name: e.name, value: v))
            }
        }
        return .fields(fields)
    }

    struct PrefixError: Error { var reason: String }

    /// RFC 9204 §4.5.1.1: the Required Insert Count from its encoded form.
    private func requiredInsertCount(encoded: Int) -> Result<Int, PrefixError> {
        guard encoded != 0 else { return .success(0) }
        let maxEntries = maxTableCapacity / Self.entryOverhead
        let fullRange = 2 * maxEntries
        guard encoded <= fullRange else { return .failure(PrefixError(reason: "Required Insert Count \(encoded) out of range")) }
        let maxValue = insertCount + maxEntries
        let maxWrapped = (maxValue / fullRange) * fullRange
        var required = maxWrapped + encoded - 1
        if required > maxValue {
            guard required > fullRange else { return .failure(PrefixError(reason: "Required Insert Count \(encoded) out of range")) }
            required -= fullRange
        }
        guard required != 0 else { return .failure(PrefixError(reason: "Required Insert Count of 0 encoded as nonzero")) }
        return .success(required)
    }

    // MARK: - Primitives (RFC 7541 §5.1, §5.2)

    /// An integer with an N-bit prefix starting at `o`; nil when the bytes end first or it is too large.
    static func integer(_ b: ArraySlice<UInt8>, at o: inout Int, prefix: Int) -> Int? {
        guard let first = b.u8(at: o) else { return nil }
        let mask = (1 << prefix) - 1
        var value = Int(first) & mask
        var i = o + 1
        if value == mask {
            var shift = 0
            while true {
                guard let byte = b.u8(at: i), shift <= 56 else { return nil }
                i += 1
                value += Int(byte & 0x7F) << shift
                shift += 7
                if byte & 0x80 == 0 { break }
            }
        }
        o = i
        return value
    }

    /// A string literal whose length has an N-bit prefix (the Huffman flag is the bit above it):
    /// nil when the bytes end first, `.some(nil)` when it is malformed (bad Huffman, too long).
    static func string(_ b: ArraySlice<UInt8>, at o: inout Int, prefix: Int) -> [UInt8]?? {
        guard let first = b.u8(at: o) else { return nil }
        let huffman = Int(first) & (1 << prefix) != 0
        var i = o
        guard let length = integer(b, at: &i, prefix: prefix) else { return nil }
        guard length <= maxStringLength else { return .some(nil) }
        guard let bytes = b.field(at: i, length: length) else { return nil }
        o = i + length
        return .some(huffman ? QPACKHuffman.decode(bytes) : Array(bytes))
    }
}

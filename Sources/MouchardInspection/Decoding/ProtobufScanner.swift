/// Reads the protobuf wire format without a schema: a sequence of (field number, wire type,
/// value). Succeeds only when the whole input is consumed by well-formed fields, which rejects
/// most random bytes and text.
public enum ProtobufScanner {
    /// One field of a message.
    public struct Field: Sendable, Equatable {
        public var number: UInt64
        public var value: Value
    }

    /// A field's value by wire type (fixed64 read as a double, fixed32 as a float: what location
    /// fields use; integers travel as varints).
    public enum Value: Sendable, Equatable {
        case varint(UInt64)
        case fixed64(Double)
        case fixed32(Float)
        case bytes(ArraySlice<UInt8>)
    }

    /// The fields of `bytes`, or nil when it is not a well-formed message (or is empty).
    public static func scan(_ bytes: ArraySlice<UInt8>, maxFields: Int = 10_000) -> [Field]? {
        var fields: [Field] = []
        var i = bytes.startIndex
        while i < bytes.endIndex {
            guard fields.count < maxFields, let tag = varint(bytes, &i) else { return nil }
            let number = tag >> 3
            guard number >= 1, number <= 536_870_911 else { return nil }
            switch tag & 7 {
            case 0:
                guard let v = varint(bytes, &i) else { return nil }
                fields.append(Field(number: number, value: .varint(v)))
            case 1:
                guard bytes.endIndex - i >= 8 else { return nil }
                var bits: UInt64 = 0
                for k in 0..<8 { bits |= UInt64(bytes[i + k]) << (8 * UInt64(k)) }
                i += 8
                fields.append(Field(number: number, value: .fixed64(Double(bitPattern: bits))))
            case 2:
                guard let length = varint(bytes, &i), length <= UInt64(bytes.endIndex - i) else { return nil }
                let end = i + Int(length)
                fields.append(Field(number: number, value: .bytes(bytes[i..<end])))
                i = end
            case 5:
                guard bytes.endIndex - i >= 4 else { return nil }
                var bits: UInt32 = 0
                for k in 0..<4 { bits |= UInt32(bytes[i + k]) << (8 * UInt32(k)) }
                i += 4
                fields.append(Field(number: number, value: .fixed32(Float(bitPattern: bits))))
            default:
                return nil
            }
        }
        return fields.isEmpty ? nil : fields
    }

    static func varint(_ bytes: ArraySlice<UInt8>, _ i: inout Int) -> UInt64? {
        bytes.withUnsafeBufferPointer { p in
            var j = i - bytes.startIndex
            defer { i = bytes.startIndex + j }
            return varint(p, &j)
        }
    }

    /// The varint at `p[i]` (at most ten bytes), `i` moved past the bytes read; nil when the bytes
    /// end first or ten do not close it. The span scan's protobuf shape check reads it here too.
    static func varint(_ p: UnsafeBufferPointer<UInt8>, _ i: inout Int) -> UInt64? {
        var result: UInt64 = 0
        for k: UInt64 in 0..<10 {
            guard i < p.count else { return nil }
            let b = p[i]
            i += 1
            result |= UInt64(b & 0x7F) << (7 * k)
            if b < 0x80 { return result }
        }
        return nil
    }
}

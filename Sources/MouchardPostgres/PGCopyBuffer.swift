import Foundation
import MouchardStore

/// Rows in PostgreSQL's binary COPY format (`COPY t (cols) FROM STDIN WITH (FORMAT binary)`): a
/// signature and two zero words, then per row a 16-bit field count and per field a 32-bit length
/// (-1 for NULL) and the value in the type's binary form, then a -1 trailer. Values are network
/// byte order. Text cannot hold NUL in PostgreSQL: a NUL character is written as U+FFFD.
struct PGCopyBuffer {
    private(set) var bytes: [UInt8]
    private(set) var rows = 0

    /// "PGCOPY\n\xFF\r\n\0", flags 0, header extension length 0.
    static let signature: [UInt8] = [0x50, 0x47, 0x43, 0x4F, 0x50, 0x59, 0x0A, 0xFF, 0x0D, 0x0A, 0x00]

    init(capacity: Int = 1 << 16) {
        bytes = []
        bytes.reserveCapacity(capacity)
        bytes += Self.signature
        int32(0)
        int32(0)
    }

    /// The buffer to send: the rows and the trailer (the rows are not copied).
    consuming func finished() -> [UInt8] {
        int16(-1)
        return bytes
    }

    mutating func startRow(fields: Int) {
        int16(Int16(fields))
        rows += 1
    }

    mutating func null() { int32(-1) }

    /// A value of a column of `type`, converted as far as it goes (a local session's SQLite column
    /// may hold another type than declared): what cannot be converted is written as NULL.
    mutating func append(_ value: SQLValue, as type: PGType) {
        switch (value, type) {
        case (.null, _): null()
        case (.integer(let n), .bool):
            int32(1)
            bytes.append(n != 0 ? 1 : 0)
        case (.integer(let n), .int2):
            int32(2)
            bigEndian(Int16(truncatingIfNeeded: n))
        case (.integer(let n), .int4):
            int32(4)
            bigEndian(Int32(truncatingIfNeeded: n))
        case (.integer(let n), .int8): int64Field(n)
        case (.integer(let n), .float8): float8(Double(n))
        case (.real(let d), .float8): float8(d)
        case (.real(let d), .int2), (.real(let d), .int4), (.real(let d), .int8), (.real(let d), .bool):
            if let n = Int64(exactly: d.rounded(.towardZero)) { append(.integer(n), as: type) } else { null() }
        case (.text(let s), .text), (.text(let s), .json): text(s)
        case (.text(let s), .int2), (.text(let s), .int4), (.text(let s), .int8), (.text(let s), .bool):
            if let n = Int64(s) { append(.integer(n), as: type) } else { null() }
        case (.text(let s), .float8): if let d = Double(s) { float8(d) } else { null() }
        case (.text(let s), .uuid): if let b = PGUUID.bytes(s) { uuid(b) } else { null() }
        case (.text(let s), .bytea): bytea(Array(s.utf8))
        case (.blob(let b), .bytea): bytea(b)
        case (.blob(let b), .text): text(String(decoding: b, as: UTF8.self))
        case (.integer(let n), .text): text(String(n))
        case (.real(let d), .text): text(String(d))
        default: null()
        }
    }

    mutating func int64Field(_ n: Int64) {
        int32(8)
        bigEndian(n)
    }

    mutating func float8(_ d: Double) {
        int32(8)
        bigEndian(d.bitPattern)
    }

    mutating func timestamptz(microseconds: Int64) { int64Field(microseconds) }

    mutating func uuid(_ b: [UInt8]) {
        int32(16)
        bytes += b
    }

    mutating func bytea(_ b: [UInt8]) {
        int32(Int32(truncatingIfNeeded: b.count))
        bytes += b
    }

    /// Text written from its UTF-8 in place; only text holding a NUL is copied (to replace it).
    mutating func text(_ s: String) {
        var s = s
        let clean = s.withUTF8 { utf8 -> Bool in
            if let base = utf8.baseAddress, memchr(base, 0, utf8.count) != nil { return false }
            int32(Int32(truncatingIfNeeded: utf8.count))
            bytes.append(contentsOf: utf8)
            return true
        }
        if !clean {
            let utf8 = Self.withoutNUL(s)
            int32(Int32(truncatingIfNeeded: utf8.count))
            bytes += utf8
        }
    }

    /// The UTF-8 bytes with each NUL replaced by U+FFFD (EF BF BD).
    static func withoutNUL(_ s: String) -> [UInt8] {
        var utf8 = Array(s.utf8)
        guard utf8.contains(0) else { return utf8 }
        utf8 = utf8.flatMap { $0 == 0 ? [0xEF, 0xBF, 0xBD] : [$0] }
        return utf8
    }

    /// The integer's bytes, most significant first, appended at once (not byte by byte: this runs
    /// for every value of every uploaded row).
    private mutating func bigEndian<T: FixedWidthInteger>(_ v: T) {
        withUnsafeBytes(of: v.bigEndian) { bytes.append(contentsOf: $0) }
    }

    private mutating func int16(_ v: Int16) { bigEndian(v) }
    private mutating func int32(_ v: Int32) { bigEndian(v) }
}

import CLibpq
import Foundation
import MouchardStore

/// The rows of a query, in PostgreSQL's binary format (freed with the object).
final class PGResult {
    private let raw: OpaquePointer

    init(_ raw: OpaquePointer) { self.raw = raw }

    deinit { PQclear(raw) }

    var count: Int { Int(PQntuples(raw)) }

    /// Each row read by `body`, in order.
    func rows<T>(_ body: (PGRow) throws(StoreError) -> T) throws(StoreError) -> [T] {
        var out: [T] = []
        out.reserveCapacity(count)
        for i in 0..<Int32(count) { out.append(try body(PGRow(result: self, index: i))) }
        return out
    }

    /// The first row, or nil.
    var first: PGRow? { count > 0 ? PGRow(result: self, index: 0) : nil }

    /// Rows affected by an INSERT, UPDATE or DELETE.
    var affectedRows: Int { Int(String(cString: PQcmdTuples(raw))) ?? 0 }

    fileprivate func isNull(_ row: Int32, _ c: Int32) -> Bool { PQgetisnull(raw, row, c) != 0 }
    fileprivate func type(_ c: Int32) -> Oid { PQftype(raw, c) }

    fileprivate func bytes(_ row: Int32, _ c: Int32) -> UnsafeRawBufferPointer {
        guard let p = PQgetvalue(raw, row, c) else { return UnsafeRawBufferPointer(start: nil, count: 0) }
        return UnsafeRawBufferPointer(start: p, count: Int(PQgetlength(raw, row, c)))
    }
}

/// One row of a binary result, read by column (0-based) whatever the column's type: integers
/// from bool/int2/int4/int8, doubles from float4/float8 and from timestamps (reference-date seconds),
/// text from text-like columns, json, jsonb and uuid.
struct PGRow: StoreRow {
    let result: PGResult
    let index: Int32

    func isNull(_ c: Int32) -> Bool { result.isNull(index, c) }

    func int64(_ c: Int32) -> Int64 {
        let b = result.bytes(index, c)
        switch result.type(c) {
        case PGType.bool.oid: return b.first.map { $0 != 0 ? 1 : 0 } ?? 0
        case PGType.float8.oid: return Int64(exactly: double(c).rounded(.towardZero)) ?? 0
        default: return Self.bigEndian(b)
        }
    }

    func double(_ c: Int32) -> Double {
        let b = result.bytes(index, c)
        switch result.type(c) {
        case PGType.float8.oid: return Double(bitPattern: UInt64(bitPattern: Self.bigEndian(b)))
        case PGType.float4.oid: return Double(Float(bitPattern: UInt32(truncatingIfNeeded: Self.bigEndian(b))))
        case PGType.timestamptz.oid, PGType.timestamp.oid: return PGTime.referenceSeconds(microseconds: Self.bigEndian(b))
        default: return Double(Self.bigEndian(b))
        }
    }

    func text(_ c: Int32) -> String {
        let b = result.bytes(index, c)
        switch result.type(c) {
        case PGType.uuid.oid: return PGUUID.text(Array(b))
        case PGType.jsonb.oid: return String(decoding: b.dropFirst(), as: UTF8.self)  // a version byte, then the text
        default: return String(decoding: b, as: UTF8.self)
        }
    }

    func blob(_ c: Int32) -> [UInt8] { Array(result.bytes(index, c)) }

    /// A big-endian signed integer of 1 to 8 bytes (0 when empty).
    private static func bigEndian(_ b: UnsafeRawBufferPointer) -> Int64 {
        guard !b.isEmpty, b.count <= 8 else { return 0 }
        var v: UInt64 = 0
        for byte in b { v = v << 8 | UInt64(byte) }
        let shift = UInt64(64 - 8 * b.count)
        return Int64(bitPattern: v << shift) >> Int64(shift)  // sign-extended
    }
}

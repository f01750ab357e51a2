import Foundation

/// The PostgreSQL column types the fleet store writes in binary COPY, with their type OIDs
/// (pg_type.oid, fixed for built-in types).
enum PGType: Sendable {
    case bool, int2, int4, int8, float4, float8, text, bytea, json, jsonb, timestamp, timestamptz, uuid

    var oid: UInt32 {
        switch self {
        case .bool: return 16
        case .bytea: return 17
        case .int8: return 20
        case .int2: return 21
        case .int4: return 23
        case .text: return 25
        case .json: return 114
        case .float4: return 700
        case .float8: return 701
        case .timestamp: return 1114
        case .timestamptz: return 1184
        case .uuid: return 2950
        case .jsonb: return 3802
        }
    }
}

/// PostgreSQL timestamps: microseconds since 2000-01-01T00:00:00Z.
enum PGTime {
    /// Seconds from 2000-01-01 to 2001-01-01 (Foundation's reference date): 366 days.
    static let referenceOffsetSeconds: Double = 31_622_400
    /// Unix seconds of PostgreSQL's epoch, 2000-01-01.
    static let unixOffsetSeconds: Double = 946_684_800

    static func microseconds(_ date: Date) -> Int64 {
        let us = ((date.timeIntervalSinceReferenceDate + referenceOffsetSeconds) * 1_000_000).rounded()
        // A time outside what a signed 64-bit count holds (a damaged value) becomes the epoch.
        return us.isFinite && abs(us) < 9.2e18 ? Int64(us) : 0
    }

    static func referenceSeconds(microseconds: Int64) -> Double {
        Double(microseconds) / 1_000_000 - referenceOffsetSeconds
    }
}

/// UUIDs as PostgreSQL's 16 bytes and as text.
enum PGUUID {
    /// The 16 bytes of a UUID in text form (with or without dashes), nil when it is not one.
    static func bytes(_ text: String) -> [UInt8]? {
        let hex = Array(text.utf8.filter { $0 != UInt8(ascii: "-") })
        guard hex.count == 32 else { return nil }
        var out: [UInt8] = []
        out.reserveCapacity(16)
        for i in stride(from: 0, to: 32, by: 2) {
            guard let hi = nibble(hex[i]), let lo = nibble(hex[i + 1]) else { return nil }
            out.append(hi << 4 | lo)
        }
        return out
    }

    /// `8-4-4-4-12` lower-case hex.
    static func text(_ b: [UInt8]) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var out: [UInt8] = []
        for (i, byte) in b.enumerated() {
            if [4, 6, 8, 10].contains(i) { out.append(UInt8(ascii: "-")) }
            out.append(digits[Int(byte >> 4)])
            out.append(digits[Int(byte & 0xF)])
        }
        return String(decoding: out, as: UTF8.self)
    }

    private static func nibble(_ c: UInt8) -> UInt8? {
        switch c {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return c - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): return c - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): return c - UInt8(ascii: "A") + 10
        default: return nil
        }
    }
}

import Foundation

/// ISO 8601 times as HAR tools, findings and reports write them (`2026-10-05T07:41:40.215Z`,
/// `...40+02:00`, `...40.123456+0000`), parsed and formatted without DateFormatter (pure, thread-safe
/// and fast enough to stamp every finding). The one date codec of the project.
public enum ISO8601Time {
    /// Parses `YYYY-MM-DDTHH:MM:SS[.fraction][Z|±HH:MM|±HHMM|±HH]`; no zone means UTC. Nil when malformed.
    public static func parse(_ text: String) -> Date? {
        let b = Array(text.utf8)
        var i = 0
        func number(_ n: Int) -> Int? {
            guard i + n <= b.count else { return nil }
            var v = 0
            for k in 0..<n {
                let c = b[i + k]
                guard c >= 0x30, c <= 0x39 else { return nil }
                v = v * 10 + Int(c - 0x30)
            }
            i += n
            return v
        }
        func expect(_ c: UInt8) -> Bool {
            guard i < b.count, b[i] == c else { return false }
            i += 1
            return true
        }
        guard let year = number(4), expect(UInt8(ascii: "-")), let month = number(2), expect(UInt8(ascii: "-")),
              let day = number(2), (1...12).contains(month), (1...31).contains(day) else { return nil }
        guard i < b.count, b[i] == UInt8(ascii: "T") || b[i] == UInt8(ascii: "t") || b[i] == 0x20 else { return nil }
        i += 1
        guard let hour = number(2), expect(UInt8(ascii: ":")), let minute = number(2), expect(UInt8(ascii: ":")),
              let second = number(2), hour < 24, minute < 60, second <= 60 else { return nil }
        var fraction = 0.0
        if i < b.count, b[i] == UInt8(ascii: ".") || b[i] == UInt8(ascii: ",") {
            i += 1
            let start = i
            while i < b.count, b[i] >= 0x30, b[i] <= 0x39 { i += 1 }
            guard i > start else { return nil }
            // The first nine digits as one integer, divided once: 0.215 exactly as Double reads "0.215".
            let digits = b[start..<min(i, start + 9)]
            var n = 0
            for c in digits { n = n * 10 + Int(c - 0x30) }
            var div = 1.0
            for _ in 0..<digits.count { div *= 10 }
            fraction = Double(n) / div
        }
        var offsetSeconds = 0
        if i < b.count {
            if b[i] == UInt8(ascii: "Z") || b[i] == UInt8(ascii: "z") {
                i += 1
            } else if b[i] == UInt8(ascii: "+") || b[i] == UInt8(ascii: "-") {
                let sign = b[i] == UInt8(ascii: "-") ? -1 : 1
                i += 1
                guard let oh = number(2) else { return nil }
                var om = 0
                if i < b.count {
                    _ = expect(UInt8(ascii: ":"))
                    guard let m = number(2) else { return nil }
                    om = m
                }
                offsetSeconds = sign * (oh * 3600 + om * 60)
            } else {
                return nil
            }
        }
        guard i == b.count else { return nil }
        let days = daysFromCivil(year: year, month: month, day: day)
        let whole = days * 86400 + hour * 3600 + minute * 60 + second - offsetSeconds
        return Date(timeIntervalSince1970: Double(whole) + fraction)
    }

    /// `2026-10-05T07:41:40.215Z`: UTC with milliseconds (rounded to the nearest millisecond).
    public static func format(_ date: Date) -> String {
        let t = date.timeIntervalSince1970
        guard t.isFinite, abs(t) < 1e13 else { return "1970-01-01T00:00:00.000Z" }
        let totalMs = Int((t * 1000).rounded())
        var secs = totalMs / 1000
        var ms = totalMs % 1000
        if ms < 0 { ms += 1000; secs -= 1 }
        var days = secs / 86400
        var rem = secs % 86400
        if rem < 0 { rem += 86400; days -= 1 }
        let (y, m, d) = civilFromDays(days)
        guard (0...9999).contains(y) else {
            func pad(_ v: Int, _ n: Int) -> String {
                let s = String(v)
                return s.count >= n ? s : String(repeating: "0", count: n - s.count) + s
            }
            return "\(pad(y, 4))-\(pad(m, 2))-\(pad(d, 2))T\(pad(rem / 3600, 2)):\(pad(rem % 3600 / 60, 2)):\(pad(rem % 60, 2)).\(pad(ms, 3))Z"
        }
        // Written digit by digit, at fixed places: findings carry one each, and interpolation costs
        // more than the rest of a finding.
        return String(unsafeUninitializedCapacity: 24) { out in
            guard out.count >= 24 else { return 0 }
            /// The two digits of `v` (0...99) at `k`, copied from `digitPairs`.
            func two(_ v: Int, at k: Int) {
                let pair = digitPairs + 2 &* v
                out[k] = pair[0]
                out[k + 1] = pair[1]
            }
            two(y / 100, at: 0); two(y % 100, at: 2); out[4] = 0x2D; two(m, at: 5); out[7] = 0x2D; two(d, at: 8)
            out[10] = 0x54; two(rem / 3600, at: 11); out[13] = 0x3A; two(rem % 3600 / 60, at: 14); out[16] = 0x3A; two(rem % 60, at: 17)
            out[19] = 0x2E; out[20] = UInt8(truncatingIfNeeded: 0x30 + ms / 100); two(ms % 100, at: 21); out[23] = 0x5A
            return 24
        }
    }

    /// Days since 1970-01-01 of a proleptic Gregorian date.
    public static func daysFromCivil(year: Int, month: Int, day: Int) -> Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yoe = y - era * 400
        let doy = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        return era * 146097 + doe - 719468
    }

    /// The date of a day count since 1970-01-01.
    public static func civilFromDays(_ days: Int) -> (year: Int, month: Int, day: Int) {
        let z = days + 719468
        let era = (z >= 0 ? z : z - 146096) / 146097
        let doe = z - era * 146097
        let yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let d = doy - (153 * mp + 2) / 5 + 1
        let m = mp < 10 ? mp + 3 : mp - 9
        return (yoe + era * 400 + (m <= 2 ? 1 : 0), m, d)
    }
}

/// `00`, `01`, ... `99` end to end: the two digits of a number below 100 at twice its place (a
/// pointer: no retain or bounds check; never freed, written once before first use, then only read).
nonisolated(unsafe) private let digitPairs: UnsafePointer<UInt8> = {
    let table = UnsafeMutablePointer<UInt8>.allocate(capacity: 200)
    for v in 0..<100 {
        table[2 * v] = UInt8(0x30 + v / 10)
        table[2 * v + 1] = UInt8(0x30 + v % 10)
    }
    return UnsafePointer(table)
}()

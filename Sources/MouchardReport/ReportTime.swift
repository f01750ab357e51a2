import Foundation

/// Fast UTC time text for reports (ISO 8601 with milliseconds) and parsing of the ISO 8601 times
/// findings carry, without the cost of `ISO8601DateFormatter` per value.
public enum ReportTime {
    /// `2026-11-30T01:50:28.123Z`.
    public static func iso(_ date: Date) -> String {
        let (day, ms) = split(date)
        let (y, m, d) = civil(fromDays: day)
        return "\(pad(y, 4))-\(pad(m, 2))-\(pad(d, 2))T\(clock(ms))Z"
    }

    /// `01:50:28` (UTC), for axis labels and tables.
    public static func clockTime(_ date: Date) -> String {
        String(clock(split(date).1).prefix(8))
    }

    /// `2026-11-30 01:50:28 UTC`.
    public static func readable(_ date: Date) -> String {
        let (day, ms) = split(date)
        let (y, m, d) = civil(fromDays: day)
        return "\(pad(y, 4))-\(pad(m, 2))-\(pad(d, 2)) \(clock(ms).prefix(8)) UTC"
    }

    /// Parses `YYYY-MM-DDTHH:MM:SS[.fraction](Z|±HH:MM)`; nil for anything else.
    public static func parse(_ text: String) -> Date? {
        let b = Array(text.utf8)
        guard b.count >= 19, b[4] == 0x2D, b[7] == 0x2D, b[10] == 0x54 || b[10] == 0x20, b[13] == 0x3A, b[16] == 0x3A
        else { return nil }
        func num(_ from: Int, _ len: Int) -> Int? {
            var v = 0
            for i in from..<(from + len) {
                let c = b[i]
                guard c >= 0x30, c <= 0x39 else { return nil }
                v = v * 10 + Int(c - 0x30)
            }
            return v
        }
        guard let y = num(0, 4), let mo = num(5, 2), let d = num(8, 2), let h = num(11, 2), let mi = num(14, 2),
              let s = num(17, 2), (1...12).contains(mo), (1...31).contains(d), h < 24, mi < 60, s < 61
        else { return nil }
        var i = 19
        var fraction = 0.0
        if i < b.count, b[i] == 0x2E {
            i += 1
            var scale = 0.1
            while i < b.count, b[i] >= 0x30, b[i] <= 0x39 {
                fraction += Double(b[i] - 0x30) * scale
                scale /= 10
                i += 1
            }
        }
        var offset = 0
        if i < b.count {
            if b[i] == 0x5A, i + 1 == b.count {
                offset = 0
            } else if b[i] == 0x2B || b[i] == 0x2D, i + 6 == b.count, b[i + 3] == 0x3A,
                      let oh = num(i + 1, 2), let om = num(i + 4, 2) {
                offset = (oh * 3600 + om * 60) * (b[i] == 0x2B ? 1 : -1)
            } else {
                return nil
            }
        }
        let days = days(fromCivil: y, mo, d)
        let seconds = Double(days * 86_400 + h * 3600 + mi * 60 + s - offset) + fraction
        return Date(timeIntervalSince1970: seconds)
    }

    /// A duration in words: `850 ms`, `12.4 s`, `3 min 20 s`, `2 h 05 min`.
    public static func duration(_ seconds: Double) -> String {
        if seconds < 1 { return "\(Int((seconds * 1000).rounded())) ms" }
        if seconds < 60 { return String(format: "%.1f s", seconds) }
        let total = Int(seconds.rounded())
        if total < 3600 { return "\(total / 60) min \(pad(total % 60, 2)) s" }
        return "\(total / 3600) h \(pad((total % 3600) / 60, 2)) min"
    }

    private static func split(_ date: Date) -> (Int, Int) {
        let totalMs = Int((date.timeIntervalSince1970 * 1000).rounded(.down))
        let day = totalMs >= 0 ? totalMs / 86_400_000 : (totalMs - 86_399_999) / 86_400_000
        return (day, totalMs - day * 86_400_000)
    }

    private static func clock(_ ms: Int) -> String {
        let s = ms / 1000
        return "\(pad(s / 3600, 2)):\(pad((s / 60) % 60, 2)):\(pad(s % 60, 2)).\(pad(ms % 1000, 3))"
    }

    private static func pad(_ v: Int, _ width: Int) -> String {
        var s = String(v)
        while s.count < width { s = "0" + s }
        return s
    }

    // Days since 1970-01-01 ↔ proleptic Gregorian date (Howard Hinnant's civil algorithms).
    private static func civil(fromDays z0: Int) -> (Int, Int, Int) {
        let z = z0 + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let doe = z - era * 146_097
        let yoe = (doe - doe / 1460 + doe / 36524 - doe / 146_096) / 365
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let d = doy - (153 * mp + 2) / 5 + 1
        let m = mp < 10 ? mp + 3 : mp - 9
        return (yoe + era * 400 + (m <= 2 ? 1 : 0), m, d)
    }

    private static func days(fromCivil y0: Int, _ m: Int, _ d: Int) -> Int {
        let y = m <= 2 ? y0 - 1 : y0
        let era = (y >= 0 ? y : y - 399) / 400
        let yoe = y - era * 400
        let doy = (153 * (m > 2 ? m - 3 : m + 9) + 2) / 5 + d - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        return era * 146_097 + doe - 719_468
    }
}

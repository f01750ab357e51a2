import Foundation
import MouchardFlow

/// Fast UTC time text for reports (ISO 8601 with milliseconds) and parsing of the ISO 8601 times
/// findings carry, without the cost of `ISO8601DateFormatter` per value (dates from `ISO8601Time`).
public enum ReportTime {
    /// `2026-11-30T01:50:28.123Z`.
    public static func iso(_ date: Date) -> String { ISO8601Time.format(date) }

    /// `01:50:28` (UTC), for axis labels and tables.
    public static func clockTime(_ date: Date) -> String {
        String(clock(split(date).1).prefix(8))
    }

    /// `2026-11-30 01:50:28 UTC`.
    public static func readable(_ date: Date) -> String {
        let (day, ms) = split(date)
        let (y, m, d) = ISO8601Time.civilFromDays(day)
        return "\(pad(y, 4))-\(pad(m, 2))-\(pad(d, 2)) \(clock(ms).prefix(8)) UTC"
    }

    /// Parses an ISO 8601 time (`YYYY-MM-DDTHH:MM:SS[.fraction][Z|±HH:MM]`); nil for anything else.
    public static func parse(_ text: String) -> Date? { ISO8601Time.parse(text) }

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
}

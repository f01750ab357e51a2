import Foundation
import MouchardFlow
import MouchardStore

/// The session metadata keys the fleet store also keeps as columns of `mouchard.sessions`, for
/// queries and indexes (every key is in `mouchard.metadata` too).
enum FleetMetadata {
    /// Metadata key → column of `mouchard.sessions`.
    static let sessionColumns: [String: String] = [
        SessionStore.MetadataKey.app: "app",
        SessionStore.MetadataKey.appVersion: "app_version",
        SessionStore.MetadataKey.device: "device",
        SessionStore.MetadataKey.gateway: "gateway",
        SessionStore.MetadataKey.source: "source",
        SessionStore.MetadataKey.toolVersion: "tool_version",
        SessionStore.MetadataKey.ended: "ended",
    ]

    /// The earliest and latest session start kept as given: a damaged `created` time outside them
    /// is clamped (each month of starts is a partition).
    static let earliestStart = Date(timeIntervalSince1970: 946_684_800)  // 2000-01-01
    static let latestStart = Date(timeIntervalSince1970: 7_258_118_400)  // 2200-01-01

    /// A session's start for the fleet store: its `created` time, whole microseconds, clamped.
    static func sessionStart(created: String?, fallback: Date) -> Date {
        let date = created.flatMap(ISO8601Time.parse) ?? fallback
        let clamped = min(max(date, earliestStart), latestStart)
        let us = PGTime.microseconds(clamped)
        return Date(timeIntervalSinceReferenceDate: PGTime.referenceSeconds(microseconds: us))
    }

    /// An ISO 8601 time as a `timestamptz` parameter, nil when the text is not one.
    static func timestampParameter(_ text: String) -> String? {
        guard let d = ISO8601Time.parse(text), d >= earliestStart, d <= latestStart else { return nil }
        return FleetBatchWriter.timestampText(PGTime.microseconds(d))
    }
}

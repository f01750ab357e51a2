import Foundation
import MouchardFlow
import Testing

/// `ISO8601Time.format` writes UTC with milliseconds, every field zero-padded to its width.
@Suite struct ISO8601TimeTests {
    @Test(arguments: ["2026-10-05T07:41:40.215Z", "1970-01-01T00:00:00.001Z", "0001-01-01T00:00:00.000Z",
                      "1999-12-31T23:59:59.999Z", "2000-02-29T12:05:09.050Z", "9999-12-31T23:59:59.900Z"])
    func formatWritesWhatParseReads(text: String) throws {
        let date = try #require(ISO8601Time.parse(text))
        #expect(ISO8601Time.format(date) == text)
    }

    /// Every field's digits, for times spread over the years 1970 to 9999 (whole milliseconds).
    @Test func formatWritesEveryFieldsDigits() {
        func pad(_ v: Int, _ n: Int) -> String { String(repeating: "0", count: max(0, n - String(v).count)) + String(v) }
        var state: UInt64 = 0x150_8601
        for _ in 0..<5_000 {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            let ms = Int(state >> 20) % 253_402_300_800_000
            let days = ms / 86_400_000, rem = ms % 86_400_000
            let (y, m, d) = ISO8601Time.civilFromDays(days)
            let expected = "\(pad(y, 4))-\(pad(m, 2))-\(pad(d, 2))T\(pad(rem / 3_600_000, 2)):\(pad(rem / 60_000 % 60, 2)):"
                + "\(pad(rem / 1000 % 60, 2)).\(pad(rem % 1000, 3))Z"
            #expect(ISO8601Time.format(Date(timeIntervalSince1970: Double(ms) / 1000)) == expected)
        }
    }
}

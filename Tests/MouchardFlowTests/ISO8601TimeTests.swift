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
}

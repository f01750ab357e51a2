import Testing
@testable import MouchardReport

@Suite struct EscapingTests {
    @Test func invisibleCharactersBecomeVisibleTags() {
        #expect(VisibleText.shown("a\u{202E}b\u{0}c\u{2066}d\u{200F}\n") == "a⟨U+202E⟩b⟨U+0000⟩c⟨U+2066⟩d⟨U+200F⟩⟨U+000A⟩")
        #expect(VisibleText.shown("\u{FEFF}\u{1B}[31m") == "⟨U+FEFF⟩⟨U+001B⟩[31m")
        #expect(VisibleText.shown("Zoë 日本") == "Zoë 日本")
    }

    @Test func longValuesAreCutWithTheirLength() {
        let long = String(repeating: "A", count: 1_048_576)
        let shown = VisibleText.shown(long, limit: 20)
        #expect(shown == String(repeating: "A", count: 20) + "… (1048576 chars)")
    }

    @Test func htmlEscapesEveryMarkupCharacter() {
        #expect(MarkupEscaping.html("<a href=\"x\" onclick='y'>&`</a>") == "&lt;a href=&quot;x&quot; onclick=&#39;y&#39;&gt;&amp;&#96;&lt;/a&gt;")
        #expect(MarkupEscaping.htmlShown("</style>\u{202E}") == "&lt;/style&gt;⟨U+202E⟩")
    }

    @Test func markdownEscapesLinksTagsAndTables() {
        let md = MarkupEscaping.markdown("[x](javascript:alert(1)) <img> | ![i](u) `c` *b*")
        #expect(md == "\\[x\\]\\(javascript\\:alert\\(1\\)\\) \\<img\\> \\| \\!\\[i\\]\\(u\\) \\`c\\` \\*b\\*")
    }

    @Test func uriReferencesArePercentEncoded() {
        #expect(MarkupEscaping.uriReference("http://h/p?q=a b&c=<x>%zz%41") == "http://h/p?q=a%20b&c=%3Cx%3E%25zz%41")
        #expect(MarkupEscaping.uriReference("http://h/é\u{0}") == "http://h/%C3%A9%00")
    }

    @Test func timesRoundTrip() {
        let d = ReportTime.parse("2026-11-30T01:50:28.123Z")
        #expect(d.map(ReportTime.iso) == "2026-11-30T01:50:28.123Z")
        #expect(ReportTime.parse("2026-11-30T03:50:28+02:00").map(ReportTime.iso) == "2026-11-30T01:50:28.000Z")
        #expect(ReportTime.parse("1969-12-31T23:59:59Z")?.timeIntervalSince1970 == -1)
        #expect(ReportTime.parse("2026-13-01T00:00:00Z") == nil)
        #expect(ReportTime.parse("garbage") == nil)
        #expect(ReportTime.duration(200) == "3 min 20 s")
    }

    @Test func maskingNeverShowsTheWholeValue() {
        #expect(MaskedValue.mask("6D92078A-8246-4BA4-AE5B-76104861E7DC") == "6D92…E7DC")
        #expect(MaskedValue.mask("0612") == "••••")
        #expect(MaskedValue.mask("F2LX1234") == "F2…34")
    }
}

import Foundation
import Testing
@testable import MouchardInspection

@Suite("Tracker directory: strict loading")
struct TrackersLoadingTests {
    /// Loads `data` expecting a failure and returns the one-line description.
    func failure(_ data: Data) -> String? {
        do {
            _ = try TrackerDirectory(jsonData: data, file: "t.json")
            return nil
        } catch {
            return error.description
        }
    }

    @Test("a well-formed file loads with every field")
    func wellFormed() throws {
        let directory = try TrackerDirectory(jsonData: makeTrackerJSON("""
            "sdk.one.example": {"company": "One Ads (One)", "owner": "One Holdings", "country": "FR", "product": "One SDK", "category": "analytics", "basis": "verified", "source": "https://one.example/docs", "checked": "2026-02-28", "evidence": "SDK guide lists sdk.one.example", "owner_source": "https://one.example/legal", "note": "hosts page"},
            "two.example": {"company": "Two", "owner": "Two Ltd.", "country": "GB", "category": "crash-reporting", "basis": "unverified", "source": "https://github.com/two/sdk/blob/main/Endpoints.kt"}
        """, extraTopLevel: "\n  \"description\": \"test\","))
        #expect(directory.count == 2)
        let one = try #require(directory.lookup(host: "x.sdk.one.example"))
        #expect(one == TrackerEntry(domain: "sdk.one.example", company: "One", brand: "One Ads", owner: "One Holdings",
                                    country: "FR", product: "One SDK", category: .analytics, source: "https://one.example/docs",
                                    verification: .init(checked: "2026-02-28", evidence: "SDK guide lists sdk.one.example",
                                                        ownerSource: "https://one.example/legal"),
                                    note: "hosts page"))
        #expect(one.isVerified && one.basis == .verified && one.checked == "2026-02-28" && one.ownerSource == "https://one.example/legal")
        let two = try #require(directory.lookup(host: "two.example"))
        #expect(!two.isVerified && two.basis == .unverified && two.checked == nil && two.evidence == nil)
        #expect(directory.lookup(host: "two.example")?.brand == "Two")
        #expect(directory.lookup(host: "two.example")?.product == nil)
        #expect(directory.lookup(host: "two.example")?.category == .crashReporting)
    }

    @Test("an unknown field names the entry, the field and its position")
    func unknownField() throws {
        let message = try #require(failure(makeTrackerJSON("""
            "good.example": {"company": "G", "category": "push", \(trackerProvenance)},
            "bad.example": {"company": "B", "category": "push", \(trackerProvenance), "categry": "x"}
        """)))
        #expect(message == #"t.json:5:191: entry "bad.example": unknown field "categry" (expected company, owner, country, product, category, basis, source, checked, evidence, owner_source, note)"#)
    }

    @Test("a domain written twice is an error at the second occurrence")
    func duplicateDomain() throws {
        let message = try #require(failure(makeTrackerJSON("""
            "dup.example": {"company": "A", "category": "push", \(trackerProvenance)},
            "dup.example": {"company": "B", "category": "push", \(trackerProvenance)}
        """)))
        #expect(message.hasPrefix("t.json:5:5: duplicate key \"dup.example\" (first at 4:5)"))
    }

    @Test("each broken entry gives one line naming the entry", arguments: [
        (#""a.example": {"category": "push", \#(trackerProvenance)}"#, #"entry "a.example": missing "company""#),
        (#""a.example": {"company": "A", \#(trackerProvenance)}"#, #"entry "a.example": missing "category""#),
        (#""a.example": {"company": "A", "category": "push", "owner": "O", "country": "US", "basis": "unverified"}"#, #"entry "a.example": missing "source""#),
        (#""a.example": {"company": "A", "category": "push", "country": "US", "basis": "unverified", "source": "https://d.example/"}"#, #"entry "a.example": missing "owner""#),
        (#""a.example": {"company": "A", "category": "push", "owner": "O", "basis": "unverified", "source": "https://d.example/"}"#, #"entry "a.example": missing "country""#),
        (#""a.example": {"company": "A", "category": "push", "owner": "O", "country": "US", "source": "https://d.example/"}"#, #"entry "a.example": missing "basis" (verified or unverified)"#),
        (#""a.example": {"company": "A", "category": "push", "owner": "O", "country": "US", "basis": "checked", "source": "https://d.example/"}"#, #"entry "a.example": unknown basis "checked" (verified or unverified)"#),
        (#""a.example": {"company": "A", "category": "push", "owner": "O", "country": "US", "basis": "verified", "source": "https://d.example/", "evidence": "e"}"#, #"entry "a.example": a verified entry needs "checked" (the date)"#),
        (#""a.example": {"company": "A", "category": "push", "owner": "O", "country": "US", "basis": "verified", "source": "https://d.example/", "checked": "2026-01-01"}"#, #"entry "a.example": a verified entry needs "evidence" (what the source shows)"#),
        (#""a.example": {"company": "A", "category": "push", "owner": "O", "country": "US", "basis": "unverified", "source": "https://d.example/", "checked": "2026-01-01"}"#, #"entry "a.example": an unverified entry must not carry "checked", "evidence" or "owner_source""#),
        (#""a.example": {"company": "A", "category": "push", "owner": "O", "country": "US", "basis": "unverified", "source": "https://d.example/", "evidence": "seen"}"#, #"entry "a.example": an unverified entry must not carry"#),
        (#""a.example": {"company": "A", "category": "push", "owner": "O", "country": "US", "basis": "verified", "source": "https://d.example/", "checked": "2026-01-01", "evidence": "e", "owner_source": "legal page"}"#, #"entry "a.example": "owner_source" must be the https:// URL"#),
        (#""a.example": {"company": "A", "category": "push", "owner": "O", "country": "US", "basis": "unverified", "source": " "}"#, #"entry "a.example": "source" must not be empty"#),
        (#""a.example": {"company": "A", "category": "push", "owner": "O", "country": "US", "basis": "unverified", "source": "vendor docs"}"#, #"entry "a.example": "source" must be the https:// URL"#),
        (#""a.example": {"company": "A", "category": "push", "owner": "O", "country": "usa", "basis": "unverified", "source": "https://d.example/"}"#, #"entry "a.example": "country" must be an ISO 3166-1 alpha-2 code"#),
        (#""a.example": {"company": "A", "category": "push", "owner": "O", "country": "US", "basis": "verified", "source": "https://d.example/", "checked": "2026-02-30", "evidence": "e"}"#, #"entry "a.example": "checked" must be a date written YYYY-MM-DD"#),
        (#""a.example": {"company": "A", "category": "push", "owner": "O", "country": "US", "basis": "verified", "source": "https://d.example/", "checked": "1/2/2026", "evidence": "e"}"#, #"entry "a.example": "checked" must be a date"#),
        (#""a.example": {"company": "A", "category": "spyware", \#(trackerProvenance)}"#, #"entry "a.example": unknown category "spyware""#),
        (#""a.example": {"company": "Acme (", "category": "push", \#(trackerProvenance)}"#, #"entry "a.example": "company" must be `Brand (Company)` or `Company`"#),
        (#""a.example": {"company": "Acme ()", "category": "push", \#(trackerProvenance)}"#, #"entry "a.example": "company" must be"#),
        (#""a.example": {"company": 3, "category": "push", \#(trackerProvenance)}"#, #"entry "a.example": "company" must be a string, found number"#),
        (#""a.example": ["A"]"#, #"entry "a.example": expected an object, found array"#),
        (#""A.example": {"company": "A", "category": "push", \#(trackerProvenance)}"#, #"entry "A.example": domain must be written in lower case"#),
        (#""example": {"company": "A", "category": "push", \#(trackerProvenance)}"#, #"entry "example": domain must have at least two labels"#),
        (#""a.example.": {"company": "A", "category": "push", \#(trackerProvenance)}"#, #"entry "a.example.": empty label"#),
        (#""*.a.example": {"company": "A", "category": "push", \#(trackerProvenance)}"#, #"entry "*.a.example": invalid character"#),
    ])
    func brokenEntries(entry: String, expected: String) throws {
        let message = try #require(failure(makeTrackerJSON("    " + entry)))
        #expect(message.hasPrefix("t.json:4:"), "\(message)")
        #expect(message.contains(expected), "\(message)")
        #expect(!message.contains("\n"))
    }

    @Test("top-level problems", arguments: [
        (makeTrackerJSON("", version: "1"), "t.json:2:14: unsupported version 1 (this build reads version 2)"),
        (makeTrackerJSON("", version: "\"1\""), "t.json:2:14: \"version\" must be an integer"),
        (makeTrackerJSON("", extraTopLevel: " \"extra\": true,"), "t.json:2:17: unknown top-level field \"extra\""),
        (Data(#"{"trackers": {}}"#.utf8), "t.json:1:1: missing \"version\""),
        (Data(#"{"version": 2}"#.utf8), "t.json:1:1: missing \"trackers\""),
        (Data(#"{"version": 2, "trackers": []}"#.utf8), "t.json:1:28: \"trackers\" must be an object"),
        (Data("[]".utf8), "t.json:1:1: expected a JSON object at the top level, found array"),
        (Data("".utf8), "t.json:1:1: expected a value, found end of input"),
        (Data(#"{"version": 2, "trackers": {},}"#.utf8), "t.json:1:31: expected a quoted key"),
        (Data("{\"version\": 2,\n \"trackers\": {\"a.example\": {\"company\": \"A\n\"}}}".utf8), "t.json:2:42: control character in string"),
    ])
    func topLevel(data: Data, expected: String) throws {
        let message = try #require(failure(data))
        #expect(message.hasPrefix(expected), "\(message)")
    }

    @Test("truncated or garbage input never crashes and always names a position")
    func everyTruncationFails() throws {
        let whole = makeTrackerJSON(#"    "a.example": {"company": "A\u00e9\ud83d\ude00", "category": "push", \#(trackerProvenance)}"#)
        _ = try TrackerDirectory(jsonData: whole)
        for length in 0..<whole.count {
            let message = try #require(failure(whole.prefix(length)), "prefix \(length) loaded")
            #expect(message.hasPrefix("t.json:"))
        }
        #expect(failure(Data([0x7B, 0x22, 0xFF, 0x22, 0x3A, 0x31, 0x7D]))?.contains("not valid UTF-8") == true)
    }

    @Test("one naming rule: a company has one owner and country, a brand one company; the error names both lines")
    func namingRule() throws {
        let twoOwners = try #require(failure(makeTrackerJSON("""
            "a.example": {"company": "Acme", "owner": "Acme Inc.", "country": "US", "category": "push", "basis": "unverified", "source": "https://d.example/"},
            "b.example": {"company": "Acme", "owner": "Acme Holdings", "country": "US", "category": "push", "basis": "unverified", "source": "https://d.example/"}
        """)))
        #expect(twoOwners.hasPrefix(#"t.json:5:18: entry "b.example": company "Acme" has owner "Acme Holdings" (US) here but "Acme Inc." (US) at 4:18"#),
                "\(twoOwners)")
        let twoFamilies = try #require(failure(makeTrackerJSON("""
            "a.example": {"company": "Rocket (Acme)", "owner": "Acme Inc.", "country": "US", "category": "push", "basis": "unverified", "source": "https://d.example/"},
            "b.example": {"company": "Rocket (Zeta)", "owner": "Zeta Inc.", "country": "US", "category": "push", "basis": "unverified", "source": "https://d.example/"}
        """)))
        #expect(twoFamilies.contains(#"brand "Rocket" belongs to company "Zeta" here but to "Acme" at 4:18"#), "\(twoFamilies)")
    }
}

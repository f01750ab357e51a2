import Foundation
import Testing
@testable import MouchardCLI

/// `mouchard trackers lookup|check`: what the directory says about a host and why, and validation of a
/// directory file with the line of the first problem.
@Suite struct TrackersCommandTests {
    static let rules = ScanCommandTests.rules

    @Test func lookupExplainsTheMatch() {
        let r = run(["trackers", "lookup", "--rules", Self.rules, "SDK-API.Adjust.com:443"])
        #expect(r.status == 0, "\(r.err)")
        #expect(r.out.hasPrefix("SDK-API.Adjust.com:443: tracker\n  matched   adjust.com (longest matching parent domain)\n"))
        for line in ["  brand     Adjust\n", "  company   AppLovin\n", "  owner     AppLovin Corporation (US)\n",
                     "  kind      attribution\n", "  basis     verified 20", "  source    https://", "  evidence  "] {
            #expect(r.out.contains(line), "\(line) in \(r.out)")
        }
    }

    @Test func lookupSaysWhenTheAttributionWasNotChecked() throws {
        let dir = NSTemporaryDirectory() + "mouchard-trackers-basis-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try Data(#"""
        {"version": 2, "trackers": {
          "a.example": {"company": "A", "owner": "A Inc.", "country": "US", "category": "push", "basis": "unverified", "source": "https://a.example/docs"},
          "b.example": {"company": "B", "owner": "B Inc.", "country": "US", "category": "push", "basis": "verified", "source": "https://b.example/docs", "checked": "2026-01-02", "evidence": "docs list b.example"}
        }}
        """#.utf8).write(to: URL(fileURLWithPath: dir + "/trackers.json"))
        let text = run(["trackers", "lookup", "--rules", dir, "x.a.example", "b.example"])
        #expect(text.status == 0, "\(text.err)")
        #expect(text.out.contains("  basis     unverified (source named from knowledge, not checked)\n  source    https://a.example/docs (not checked)\n"), "\(text.out)")
        #expect(text.out.contains("  basis     verified 2026-01-02\n  source    https://b.example/docs\n  evidence  docs list b.example\n"), "\(text.out)")
        let json = run(["trackers", "lookup", "--rules", dir, "--format", "json", "x.a.example", "b.example"])
        let answers = try #require(try JSONSerialization.jsonObject(with: Data(json.out.utf8)) as? [[String: Any]])
        #expect(answers[0]["basis"] as? String == "unverified" && answers[0]["checked"] == nil && answers[0]["evidence"] == nil)
        #expect(answers[1]["basis"] as? String == "verified" && answers[1]["checked"] as? String == "2026-01-02")
        let check = run(["trackers", "check", dir + "/trackers.json"])
        #expect(check.out.contains("1 verified, 1 unverified"), "\(check.out)")
    }

    @Test func lookupShowsOverriddenEntriesAndInfrastructure() {
        let r = run(["trackers", "lookup", "--rules", Self.rules, "x.ads.tiktok.com", "d1a2b3.cloudfront.net"])
        #expect(r.status == 0, "\(r.err)")
        #expect(r.out.contains("  overrides tiktok.com (TikTok (ByteDance), social)\n"), "\(r.out)")
        #expect(r.out.contains("d1a2b3.cloudfront.net: not a tracker (infrastructure)\n"), "\(r.out)")
    }

    @Test func unknownHostExitsOne() {
        let r = run(["trackers", "lookup", "--rules", Self.rules, "api.lumotorch.example", "app-measurement.com"])
        #expect(r.status == 1)
        #expect(r.out.contains("api.lumotorch.example: not in the directory"))
        #expect(r.out.contains("app-measurement.com: tracker\n"))
    }

    @Test func lookupAsJSON() throws {
        let r = run(["trackers", "lookup", "--rules", Self.rules, "--format", "json", "wa.me", "nothing.example"])
        #expect(r.status == 1)
        let answers = try #require(try JSONSerialization.jsonObject(with: Data(r.out.utf8)) as? [[String: Any]])
        #expect(answers.count == 2)
        #expect(answers[0]["brand"] as? String == "WhatsApp" && answers[0]["company"] as? String == "Meta")
        #expect(answers[0]["tracker"] as? Bool == true && answers[0]["country"] as? String == "US")
        #expect(answers[1]["matched"] is NSNull)
    }

    @Test func checkNamesTheLineOfTheProblem() throws {
        let dir = NSTemporaryDirectory() + "mouchard-trackers-check-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let good = dir + "/good.json", bad = dir + "/bad.json"
        try Data(#"""
        {"version": 2, "trackers": {
          "a.example": {"company": "A", "owner": "A Inc.", "country": "US", "category": "push", "basis": "verified", "source": "https://a.example/docs", "checked": "2026-01-01", "evidence": "docs"}
        }}
        """#.utf8).write(to: URL(fileURLWithPath: good))
        try Data(#"""
        {"version": 2, "trackers": {
          "a.example": {"company": "A", "owner": "A Inc.", "country": "US", "category": "push", "basis": "verified", "source": "https://a.example/docs", "checked": "2026-01-01", "evidence": "docs"},
          "b.example": {"company": "B", "owner": "B Inc.", "country": "US", "category": "push", "basis": "unverified", "source": "docs page"}
        }}
        """#.utf8).write(to: URL(fileURLWithPath: bad))
        let ok = run(["trackers", "check", good])
        #expect(ok.status == 0)
        #expect(ok.out.contains("good.json: 1 domains (1 trackers, 0 infrastructure or platform)"), "\(ok.out)")
        let broken = run(["trackers", "check", bad])
        #expect(broken.status == 1)
        #expect(broken.err.contains("bad.json:3:122: entry \"b.example\": \"source\" must be the https:// URL"), "\(broken.err)")
        #expect(run(["trackers", "check", "--rules", Self.rules]).status == 0)
        #expect(run(["trackers", "frobnicate"]).status == 64)
    }
}

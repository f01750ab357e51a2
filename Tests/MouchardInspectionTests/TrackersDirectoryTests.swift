import Foundation
import MouchardTestSupport
import Testing
@testable import MouchardInspection

/// The repository's `Rules/trackers.json`.
func bundledTrackerDirectoryData() throws -> Data {
    try Data(contentsOf: TestFiles.rules.appendingPathComponent("trackers.json"))
}

func loadBundledTrackerDirectory() throws -> TrackerDirectory {
    try TrackerDirectory(jsonData: bundledTrackerDirectoryData(), file: "Rules/trackers.json")
}

extension TrackerEntry {
    /// An entry for tests that do not care about ownership and provenance (owner named after the company).
    init(domain: String, company: String, product: String? = nil, category: TrackerCategory, source: String) {
        self.init(domain: domain, company: company, owner: "\(company) Inc.", country: "US", product: product,
                  category: category, source: "https://docs.example/\(source)",
                  verification: .init(checked: "2026-01-01", evidence: "test entry"))
    }
}

/// The fields every entry of a test file needs besides company and category.
let trackerProvenance = #""owner": "O Inc.", "country": "US", "basis": "verified", "source": "https://docs.example/", "checked": "2026-01-01", "evidence": "e""#

/// A small directory written in the test, in the file format.
func makeTrackerJSON(_ trackers: String, version: String = "2", extraTopLevel: String = "") -> Data {
    Data("""
    {
      "version": \(version),\(extraTopLevel)
      "trackers": {
    \(trackers)
      }
    }
    """.utf8)
}

@Suite("Tracker directory: Rules/trackers.json")
struct TrackersBundledFileTests {
    @Test("the bundled file loads and has at least 200 domains")
    func loadsWithAtLeast200Entries() throws {
        let directory = try loadBundledTrackerDirectory()
        #expect(directory.count >= 200)
        #expect(directory.entries.count == directory.count)
    }

    @Test("every entry has a company, a known category and a non-empty source")
    func everyEntryIsComplete() throws {
        let directory = try loadBundledTrackerDirectory()
        var categories = Set<TrackerCategory>()
        for entry in directory.entries {
            #expect(!entry.company.trimmingCharacters(in: .whitespaces).isEmpty, "\(entry.domain)")
            #expect(!entry.source.trimmingCharacters(in: .whitespaces).isEmpty, "\(entry.domain)")
            #expect(TrackerCategory(rawValue: entry.category.rawValue) == entry.category)
            #expect(TrackerDirectory.domainProblem(entry.domain) == nil, "\(entry.domain)")
            categories.insert(entry.category)
        }
        // The categories the inspection issue names are all represented.
        for needed: TrackerCategory in [.attribution, .analytics, .advertising, .crashReporting, .push, .social] {
            #expect(categories.contains(needed), "no \(needed.rawValue) entry")
        }
    }

    @Test("the SDKs mobile apps embed are attributed to their companies", arguments: [
        ("app-measurement.com", "Google", TrackerCategory.analytics),
        ("firebase-settings.crashlytics.com", "Google", .crashReporting),
        ("googleads.g.doubleclick.net", "Google", .advertising),
        ("graph.facebook.com", "Meta", .advertising),
        ("launches.appsflyersdk.com", "AppsFlyer", .attribution),
        ("app.adjust.com", "Adjust", .attribution),
        ("platform.ssacdn.com", "ironSource", .advertising),
        ("s0.2mdn.net", "Google", .advertising),
        ("cdn.impression.link", "Branch", .attribution),
        ("tlx.3lift.com", "TripleLift", .advertising),
        ("idsync.rlcdn.com", "LiveRamp", .advertising),
        ("api2.branch.io", "Branch", .attribution),
        ("api.mixpanel.com", "Mixpanel", .analytics),
        ("api2.amplitude.com", "Amplitude", .analytics),
        ("o123456.ingest.sentry.io", "Sentry", .crashReporting),
        ("api.onesignal.com", "OneSignal", .push),
        ("sdk.iad-01.braze.com", "Braze", .customerEngagement),
        ("auction.unityads.unity3d.com", "Unity", .advertising),
        ("ms.applovin.com", "AppLovin", .advertising),
        ("api.revenuecat.com", "RevenueCat", .subscriptions),
        ("tr.snapchat.com", "Snap", .advertising),
    ])
    func knownHosts(host: String, company: String, category: TrackerCategory) throws {
        let directory = try loadBundledTrackerDirectory()
        let entry = try #require(directory.lookup(host: host), "\(host) not attributed")
        #expect(entry.brand == company)
        #expect(entry.category == category)
    }

    @Test("hosts of the platform and unrelated sites are not trackers")
    func unrelatedHostsAreNotTrackers() throws {
        let directory = try loadBundledTrackerDirectory()
        for host in ["api.lumotorch.example", "www.wikipedia.org", "notappsflyer.com", "appsflyer.com.evil.example",
                     "10.0.0.1", "[2001:db8::1]:443", ""] {
            #expect(directory.lookup(host: host) == nil, "\(host)")
        }
        for host in ["storage.googleapis.com", "d111111abcdef8.cloudfront.net", "accounts.google.com"] {
            #expect(directory.lookup(host: host)?.isTracker == false, "\(host)")
        }
    }
}

@Suite("Tracker directory: lookup")
struct TrackersLookupTests {
    let directory: TrackerDirectory

    init() throws {
        directory = try TrackerDirectory(entries: [
            TrackerEntry(domain: "appsflyer.com", company: "AppsFlyer", category: .attribution, source: "s"),
            TrackerEntry(domain: "tiktok.com", company: "ByteDance", category: .social, source: "s"),
            TrackerEntry(domain: "ads.tiktok.com", company: "ByteDance", product: "TikTok Ads", category: .advertising,
                         source: "s"),
            TrackerEntry(domain: "co.tracker.example", company: "Deep", category: .analytics, source: "s"),
        ])
    }

    @Test("a domain matches itself and all its subdomains")
    func subdomains() {
        #expect(directory.lookup(host: "appsflyer.com")?.domain == "appsflyer.com")
        #expect(directory.lookup(host: "t.appsflyer.com")?.domain == "appsflyer.com")
        #expect(directory.lookup(host: "a.b.c.appsflyer.com")?.domain == "appsflyer.com")
    }

    @Test("matching is on label boundaries: notappsflyer.com and appsflyer.com.evil are not AppsFlyer")
    func partialLabels() {
        #expect(directory.lookup(host: "notappsflyer.com") == nil)
        #expect(directory.lookup(host: "xappsflyer.com") == nil)
        #expect(directory.lookup(host: "appsflyer.com.evil.example") == nil)
        #expect(directory.lookup(host: "appsflyer.co") == nil)
        #expect(directory.lookup(host: "com") == nil)
        #expect(directory.lookup(host: "tracker.example") == nil)
    }

    @Test("case, ports, trailing dots and brackets are ignored")
    func normalization() {
        #expect(directory.lookup(host: "T.AppsFlyer.COM")?.company == "AppsFlyer")
        #expect(directory.lookup(host: "t.appsflyer.com:443")?.company == "AppsFlyer")
        #expect(directory.lookup(host: "t.appsflyer.com.")?.company == "AppsFlyer")
        #expect(directory.lookup(host: "T.APPSFLYER.COM.:8080")?.company == "AppsFlyer")
        #expect(directory.lookup(host: "  t.appsflyer.com ")?.company == "AppsFlyer")
        #expect(directory.lookup(host: "[::1]:443") == nil)
    }

    @Test("the longest matching suffix wins")
    func longestSuffix() {
        #expect(directory.lookup(host: "www.tiktok.com")?.category == .social)
        #expect(directory.lookup(host: "ads.tiktok.com")?.category == .advertising)
        #expect(directory.lookup(host: "v1.ads.tiktok.com")?.product == "TikTok Ads")
        #expect(directory.lookup(host: "notads.tiktok.com")?.category == .social)
        #expect(directory.lookup(host: "x.co.tracker.example")?.company == "Deep")
    }

    @Test("duplicate or malformed domains built in code are refused")
    func invalidEntriesInCode() {
        let entry = TrackerEntry(domain: "a.example", company: "A", category: .push, source: "s")
        #expect(throws: TrackerDirectoryError.self) { try TrackerDirectory(entries: [entry, entry]) }
        for bad in ["example", "A.example", "a..example", ".a.example", "-a.example", "a b.example", ""] {
            var broken = entry
            broken.domain = bad
            #expect(throws: TrackerDirectoryError.self, "\(bad)") { try TrackerDirectory(entries: [broken]) }
        }
    }
}

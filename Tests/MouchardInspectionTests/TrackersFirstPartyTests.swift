import Foundation
import MouchardFindings
import Testing
@testable import MouchardInspection

@Suite("First-party policy and registrable domains")
struct TrackersFirstPartyTests {
    let trackers: TrackerDirectory

    init() throws {
        trackers = try TrackerDirectory(entries: [
            TrackerEntry(domain: "appsflyersdk.com", company: "AppsFlyer", category: .attribution, source: "s"),
            TrackerEntry(domain: "doubleclick.net", company: "Google", category: .advertising, source: "s"),
            TrackerEntry(domain: "torchads.example", company: "TorchAds", category: .advertising, source: "s"),
        ])
    }

    @Test("registrable domains with the built-in public suffixes", arguments: [
        ("api.lumotorch.example", "lumotorch.example"),
        ("lumotorch.example", "lumotorch.example"),
        ("a.b.shop.co.uk", "shop.co.uk"),
        ("cdn.shop.com.au", "shop.com.au"),
        ("x.y.co.jp", "y.co.jp"),
        ("www.loja.com.br", "loja.com.br"),
        ("d1234.cloudfront.net", "d1234.cloudfront.net"),
        ("bucket.s3.amazonaws.com", "bucket.s3.amazonaws.com"),
        ("api.test", "api.test"),
        ("10.1.2.3", "10.1.2.3"),
        ("2001:db8::1", "2001:db8::1"),
    ])
    func registrable(host: String, expected: String) {
        #expect(RegistrableDomain.of(host) == expected)
    }

    @Test("a public suffix alone has no registrable domain")
    func bareSuffix() {
        #expect(RegistrableDomain.of("co.uk") == nil)
        #expect(RegistrableDomain.of("example") == nil)
        #expect(RegistrableDomain.of("cloudfront.net") == nil)
        #expect(RegistrableDomain.nameLabel(of: "api.lumo-torch.co.uk") == "lumo-torch")
    }

    @Test("explicit domains: the domain and its subdomains, on label boundaries, nothing guessed")
    func explicitDomains() {
        let policy = FirstPartyPolicy(explicitDomains: ["LumoTorch.example.", "cdn-lumo.example"], trackers: trackers)
        #expect(policy.decide(host: "lumotorch.example").isFirstParty)
        #expect(policy.decide(host: "api.lumotorch.example:8443").isFirstParty)
        #expect(policy.decide(host: "img.cdn-lumo.example").reason == .explicitDomain("cdn-lumo.example"))
        #expect(policy.isThirdParty(host: "notlumotorch.example"))
        #expect(policy.isThirdParty(host: "lumotorch.example.evil.example"))
        #expect(policy.decide(host: "launches.appsflyersdk.com").reason == .notExplicit)
    }

    @Test("explicit domains can make a tracker's domain first party (the app of the tracker's own company)")
    func explicitBeatsTracker() {
        let policy = FirstPartyPolicy(explicitDomains: ["doubleclick.net"], requestsPerHost: ["a.example": 9],
                                      appHints: [], trackers: trackers)
        #expect(policy.decide(host: "ad.doubleclick.net").isFirstParty)
        #expect(!policy.decide(host: "a.example").isFirstParty)
        #expect(policy.inferredDomains.isEmpty)
    }

    @Test("inferred: the most requested non-tracker registrable domain is first party")
    func mostRequested() {
        let policy = FirstPartyPolicy(explicitDomains: [], requestsPerHost: [
            "api.lumotorch.example": 5, "cdn.lumotorch.example": 2,
            "launches.appsflyersdk.com": 20, "ad.doubleclick.net": 12,
            "weather.example": 4, "captive.apple.com": 30,
        ], appHints: [], trackers: trackers)
        #expect(policy.decide(host: "api.lumotorch.example").reason == .mostRequested(domain: "lumotorch.example", requests: 7))
        #expect(policy.decide(host: "static.lumotorch.example").isFirstParty) // same registrable domain, not seen
        #expect(policy.decide(host: "weather.example").reason == .unrelated)
        #expect(policy.decide(host: "launches.appsflyersdk.com").reason == .tracker(company: "AppsFlyer", domain: "appsflyersdk.com"))
        #expect(policy.decide(host: "captive.apple.com").reason == .platform(domain: "apple.com"))
        #expect(policy.inferredDomains.keys.sorted() == ["lumotorch.example"])
    }

    @Test("inferred: a tie in request counts makes no domain first party by count")
    func tieProvesNothing() {
        let policy = FirstPartyPolicy(explicitDomains: [], requestsPerHost: ["a.one.example": 3, "two.example": 3],
                                      appHints: [], trackers: trackers)
        #expect(policy.inferredDomains.isEmpty)
        #expect(policy.isThirdParty(host: "a.one.example"))
        #expect(policy.isThirdParty(host: "two.example"))
    }

    @Test("inferred: app hints from the bundle id and the User-Agent match the app's other domains")
    func appHints() {
        let policy = FirstPartyPolicy(explicitDomains: [], requestsPerHost: [
            "api.weather-feed.example": 9, "img.lumo-cdn.example": 1, "sync.lumotorch.co.uk": 1, "torchads.example": 3,
        ], appHints: ["com.lumo.torch", "LumoTorch/2.1.0 (iPhone; iOS 17.4; Scale/3.00) CFNetwork/1494 Darwin/23.4.0"],
           trackers: trackers)
        #expect(policy.decide(host: "api.weather-feed.example").reason
            == .mostRequested(domain: "weather-feed.example", requests: 9))
        #expect(policy.decide(host: "sync.lumotorch.co.uk").reason == .appHint(domain: "lumotorch.co.uk", hint: "lumotorch"))
        // "lumo" is only 4 letters: a hyphen part must be >= 5 letters to count, so lumo-cdn stays third party.
        #expect(policy.isThirdParty(host: "img.lumo-cdn.example"))
        // A hyphenated spelling of the whole name counts.
        #expect(policy.decide(host: "lumo-torch.example").reason == .appHint(domain: "lumo-torch.example", hint: "lumotorch"))
        // "torch" (5 letters) as a hyphen part counts; a tracker never becomes first party by a hint.
        #expect(policy.decide(host: "torch-sync.example").isFirstParty)
        #expect(policy.decide(host: "torchads.example").reason == .tracker(company: "TorchAds", domain: "torchads.example"))
        #expect(policy.isThirdParty(host: "flashlight.example"))
    }

    @Test("hint words drop generic parts and short words")
    func hintWords() {
        #expect(FirstPartyPolicy.hintWords(from: "com.lumo.torch") == ["lumo", "torch", "lumotorch"])
        #expect(FirstPartyPolicy.hintWords(from: "LumoTorch/2.1.0 (iPhone; iOS 17.4) CFNetwork/1494 Darwin/23.4.0")
            == ["lumotorch", "lumo", "torch"])
        #expect(FirstPartyPolicy.hintWords(from: "Torchy/3 (com.lumo.torch; build:210; iOS 17.4.1) Alamofire/5.8.1")
            == ["torchy", "lumo", "torch", "lumotorch"])
        #expect(FirstPartyPolicy.hintWords(from: "okhttp/4.12.0").isEmpty)
        #expect(FirstPartyPolicy.hintWords(from: "Dalvik/2.1.0 (Linux; U; Android 14; Pixel 7 Build/UQ1A)").isEmpty)
    }

    @Test("hosts that are empty or bare suffixes are third party")
    func degenerate() {
        let policy = FirstPartyPolicy(explicitDomains: [], requestsPerHost: ["": 4, "example": 2],
                                      appHints: [], trackers: nil)
        #expect(policy.decide(host: "").reason == .unrelated)
        #expect(policy.isThirdParty(host: "example"))
        #expect(policy.inferredDomains.isEmpty)
    }
}

@Suite("Finding destinations attributed by the tracker directory")
struct TrackersFindingDestinationTests {
    @Test("company, category and party are filled in; unknown hosts stay unattributed")
    func attributed() throws {
        let trackers = try TrackerDirectory(entries: [
            TrackerEntry(domain: "appsflyersdk.com", company: "AppsFlyer", category: .attribution, source: "s"),
        ])
        let policy = FirstPartyPolicy(explicitDomains: ["lumotorch.example"], trackers: trackers)
        let sdk = FindingDestination(host: "launches.appsflyersdk.com", trackers: trackers, policy: policy)
        #expect(sdk == FindingDestination(host: "launches.appsflyersdk.com", tracker: "AppsFlyer",
                                          trackerCategory: "attribution", thirdParty: true, owner: "AppsFlyer"))
        let own = FindingDestination(host: "api.lumotorch.example", trackers: trackers, policy: policy)
        #expect(own == FindingDestination(host: "api.lumotorch.example", thirdParty: false))
        let stranger = FindingDestination(host: "cdn.other.example", trackers: nil, policy: policy)
        #expect(stranger.tracker == nil && stranger.thirdParty)
    }
}

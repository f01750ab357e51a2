import Foundation
import MouchardFindings
import MouchardFlow
import Testing
@testable import MouchardInspection

/// Every entry of `Rules/trackers.json` can be defended: who (brand, company family, legal owner and
/// country), what (kind), where from (source URL) and when (checked date). Infrastructure never
/// poses as a tracker.
@Suite("Tracker directory: provenance and ownership of every entry")
struct TrackersProvenanceTests {
    @Test("every entry names brand, company, owner, country, kind and an https source, and is verified or plainly marked unverified")
    func everyEntryIsDefensible() throws {
        let directory = try loadBundledTrackerDirectory()
        let today = ISO8601DateFormatter.string(from: Date(), timeZone: TimeZone(identifier: "UTC")!,
                                                formatOptions: [.withFullDate, .withDashSeparatorInDate])
        for entry in directory.entries {
            for (name, value) in [("company", entry.company), ("brand", entry.brand), ("owner", entry.owner)] {
                #expect(!value.trimmingCharacters(in: .whitespaces).isEmpty, "\(entry.domain): empty \(name)")
            }
            #expect(entry.country.count == 2 && entry.country.allSatisfy { $0.isASCII && $0.isUppercase },
                    "\(entry.domain): country \(entry.country)")
            #expect(entry.source.hasPrefix("https://"), "\(entry.domain): source \(entry.source)")
            switch entry.basis {
            case .verified:
                // Verified: the date it was checked (not in the future) and what the source showed.
                let checked = try #require(entry.checked, "\(entry.domain): verified without a date")
                #expect(TrackerDirectory.isCalendarDate(checked) && checked <= today, "\(entry.domain): checked \(checked)")
                #expect((entry.evidence?.count ?? 0) >= 20, "\(entry.domain): evidence too short to say what was found")
                if let ownerSource = entry.ownerSource { #expect(ownerSource.hasPrefix("http"), "\(entry.domain): owner_source") }
            case .unverified:
                // Unverified: no date and no evidence, so nothing claims a check that was not made.
                #expect(entry.checked == nil && entry.evidence == nil && entry.ownerSource == nil, "\(entry.domain)")
            }
        }
    }

    @Test("the entries a mobile audit meets most are verified against a source", arguments: [
        "app-measurement.com", "graph.facebook.com", "adjust.com", "doubleclick.net", "firebaselogging-pa.googleapis.com",
    ])
    func mostCommonSDKHostsAreVerified(domain: String) throws {
        let entry = try #require(try loadBundledTrackerDirectory().entry(forDomain: domain), "\(domain)")
        #expect(entry.isVerified, "\(domain) is \(entry.basis.rawValue)")
    }

    @Test("an attribution carries its basis to the report: verified with its date, or unverified")
    func attributionBasisReachesTheDestination() throws {
        let directory = try loadBundledTrackerDirectory()
        let attribution = TrackerAttribution(trackers: directory, policy: FirstPartyPolicy(
            explicitDomains: ["lumotorch.example"], requestsPerHost: [:], appHints: [], trackers: directory))
        let verified = attribution.attribute(host: "app.adjust.com")
        #expect(verified.attributionBasis == "verified" && verified.attributionChecked != nil)
        let unverifiedEntry = try #require(directory.entries.first { !$0.isVerified && $0.isTracker })
        let unverified = attribution.attribute(host: unverifiedEntry.domain)
        #expect(unverified.attributionBasis == "unverified" && unverified.attributionChecked == nil, "\(unverifiedEntry.domain)")
        let unknown = attribution.attribute(host: "api.lumotorch.example")
        #expect(unknown.attributionBasis == nil)
    }

    @Test("a company family has one owner and one country across the file")
    func oneOwnerPerCompany() throws {
        let directory = try loadBundledTrackerDirectory()
        var owners: [String: Set<String>] = [:]
        var families: [String: Set<String>] = [:]
        for entry in directory.entries {
            owners[entry.company, default: []].insert("\(entry.owner) (\(entry.country))")
            families[entry.brand, default: []].insert(entry.company)
        }
        for (company, names) in owners { #expect(names.count == 1, "\(company): \(names.sorted())") }
        for (brand, names) in families { #expect(names.count == 1, "\(brand): \(names.sorted())") }
    }

    @Test("acquired brands are shown under their brand and grouped under their parent", arguments: [
        ("app.adjust.com", "Adjust", "AppLovin"),
        ("init.supersonicads.com", "ironSource", "Unity"),
        ("ws.tapjoyads.com", "Tapjoy", "Unity"),
        ("script.hotjar.com", "Hotjar", "Contentsquare"),
        ("api.segment.io", "Segment", "Twilio"),
        ("wa.me", "WhatsApp", "Meta"),
        ("ad.mail.ru", "myTarget", "VK"),
        ("x.bidswitch.net", "IPONWEB", "Criteo"),
        ("pixel.mathtag.com", "MediaMath", "Infillion"),
    ])
    func brandAndParent(host: String, brand: String, company: String) throws {
        let entry = try #require(try loadBundledTrackerDirectory().lookup(host: host), "\(host)")
        #expect(entry.brand == brand)
        #expect(entry.company == company)
        #expect(entry.brandAndCompany == "\(brand) (\(company))")
    }

    /// Hosts of CDNs, cloud providers and platform services that carry apps' own traffic. Listing them
    /// is fine (the directory says who runs them), labelling them a tracker is not.
    static let infrastructureHosts = [
        "d1a2b3c4d5e6f7.cloudfront.net", "my-bucket.s3.amazonaws.com", "api.eu-west-1.elb.amazonaws.com",
        "abc123.execute-api.us-east-1.amazonaws.com", "media.akamaized.net", "a248.e.akamai.net", "e1234.dscb.akamaiedge.net",
        "global.ssl.fastly.net", "example.map.fastly.net", "storage.googleapis.com", "firebasestorage.googleapis.com",
        "lumotorch.firebaseio.com", "lh3.googleusercontent.com", "fonts.gstatic.com", "fonts.googleapis.com",
        "ajax.googleapis.com", "lumotorch.blob.core.windows.net", "lumotorch.azureedge.net", "lumotorch.azurefd.net",
        "cdnjs.cloudflare.com", "lumotorch.pages.dev", "cdn.jsdelivr.net", "unpkg.com", "lumotorch.b-cdn.net",
        "stackpath.bootstrapcdn.com", "lumotorch.herokuapp.com", "lumotorch.vercel.app", "lumotorch.netlify.app",
        "res.cloudinary.com", "images.ctfassets.net", "lumotorch.edgekey.net", "lumotorch.edgesuite.net",
        "ocsp.digicert.com", "ocsp.pki.goog", "lumotorch.digitaloceanspaces.com", "cdn.shopify.com",
    ]

    @Test("no common CDN, cloud or certificate host is labelled a tracker", arguments: infrastructureHosts)
    func infrastructureIsNotATracker(host: String) throws {
        let directory = try loadBundledTrackerDirectory()
        if let entry = directory.lookup(host: host) {
            #expect(!entry.isTracker, "\(host) matched \(entry.domain) as \(entry.category.rawValue) (\(entry.brandAndCompany))")
        }
    }

    @Test("an infrastructure host attributes no tracker to a finding and can be the app's own")
    func infrastructureAttribution() throws {
        let directory = try loadBundledTrackerDirectory()
        let policy = FirstPartyPolicy(explicitDomains: [], requestsPerHost: ["d1a2b3.cloudfront.net": 9, "t.appsflyer.com": 2],
                                      appHints: [], trackers: directory)
        let attribution = TrackerAttribution(trackers: directory, policy: policy)
        let cdn = attribution.attribute(host: "d1a2b3.cloudfront.net")
        #expect(cdn.company == nil && cdn.category == nil && cdn.owner == nil)
        #expect(cdn.service?.contains("CloudFront") == true)
        #expect(!cdn.thirdParty, "the capture's most requested domain is the app's own, CDN or not")
        #expect(cdn.partyReason?.contains("most requested") == true)
        let sdk = attribution.attribute(host: "t.appsflyer.com")
        #expect(sdk.company == "AppsFlyer" && sdk.category == "attribution" && sdk.thirdParty)
        #expect(sdk.partyReason?.contains("tracker domain appsflyer.com") == true)
        let finding = FindingDestination(host: "d1a2b3.cloudfront.net", trackers: directory, policy: policy)
        #expect(finding.tracker == nil && finding.trackerCategory == nil)
    }

    @Test("matches lists the entry that wins first, then the shorter entries it overrides")
    func matchesExplain() throws {
        let directory = try loadBundledTrackerDirectory()
        let chain = directory.matches(host: "sdk.ads.tiktok.com").map(\.domain)
        #expect(chain == ["ads.tiktok.com", "tiktok.com"])
        #expect(directory.matches(host: "unknown.lumotorch.example").isEmpty)
        #expect(directory.matches(host: "API2.Branch.IO:443").first?.domain == "branch.io")
    }

    @Test("TLS server names of unread connections weigh in the first-party inference, with the reason shown")
    func sniCountsForTheFirstParty() throws {
        let directory = try loadBundledTrackerDirectory()
        var flows = [Flow(id: 1, source: .pcap, transport: .https,
                          request: TestSupport.request("GET", "https://api.lumotorch.example/v1/config"))]
        for id in 2...4 {   // pinned connections to the app's CDN: only the ClientHello was seen
            flows.append(Flow(id: id, source: .pcap, transport: .tlsMetadata, tls: TLSFacts(serverName: "img.lumocdn.example")))
        }
        flows.append(Flow(id: 5, source: .pcap, transport: .https, request: TestSupport.request("GET", "https://t.appsflyer.com/e")))
        let attribution = TrackerAttribution(trackers: directory, firstParty: [], flows: flows)
        let cdn = attribution.attribute(host: "img.lumocdn.example")
        #expect(!cdn.thirdParty)
        #expect(cdn.partyReason == "lumocdn.example is the app's most requested domain (3 requests)")
        #expect(attribution.attribute(host: "api.lumotorch.example").thirdParty, "one request is behind the CDN's three")
        #expect(attribution.attribute(host: "accounts.google.com").partyReason == "google.com is a platform service")
    }
}

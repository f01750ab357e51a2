import Foundation
import MouchardTestSupport
import Testing
@testable import MouchardInspection

/// The bundled demo (`captures/example/`) seen through the tracker directory and the first-party policy.
@Suite("Trackers on the bundled example")
struct TrackersExampleTests {
    struct ExampleRequests {
        var requestsPerHost: [String: Int] = [:]
        var userAgents: Set<String> = []
    }

    func exampleRequests() throws -> ExampleRequests {
        let data = try Data(contentsOf: TestFiles.repositoryRoot.appendingPathComponent("captures/example/traffic.har"))
        let object = try JSONSerialization.jsonObject(with: data)
        let har = try #require(object as? [String: Any])
        let log = try #require(har["log"] as? [String: Any])
        let entries = try #require(log["entries"] as? [[String: Any]])
        var result = ExampleRequests()
        for entry in entries {
            let request = try #require(entry["request"] as? [String: Any])
            let text = try #require(request["url"] as? String)
            let host = try #require(URL(string: text)?.host)
            result.requestsPerHost[host, default: 0] += 1
            for header in request["headers"] as? [[String: String]] ?? [] where header["name"] == "User-Agent" {
                result.userAgents.insert(header["value"] ?? "")
            }
        }
        return result
    }

    @Test("every SDK host of the example is attributed; the app's own hosts are not")
    func attribution() throws {
        let directory = try loadBundledTrackerDirectory()
        let example = try exampleRequests()
        #expect(example.requestsPerHost.count == 9)
        for host in example.requestsPerHost.keys {
            let entry = directory.lookup(host: host)
            if host.hasSuffix(".lumotorch.example") {
                #expect(entry == nil, "\(host)")
            } else {
                #expect(entry != nil, "\(host) is not in Rules/trackers.json")
            }
        }
        // The TLS-only destination of the pcap.
        #expect(directory.lookup(host: "h.online-metrix.net")?.category == .fraud)
    }

    @Test("inferred policy: the app's hosts are first party, every SDK third party")
    func firstParty() throws {
        let directory = try loadBundledTrackerDirectory()
        let example = try exampleRequests()
        let policy = FirstPartyPolicy(explicitDomains: [], requestsPerHost: example.requestsPerHost,
                                      appHints: example.userAgents.sorted(), trackers: directory)
        #expect(policy.inferredDomains.keys.sorted() == ["lumotorch.example"])
        for host in example.requestsPerHost.keys {
            #expect(policy.decide(host: host).isFirstParty == host.hasSuffix(".lumotorch.example"), "\(host)")
        }
        // Even without counts, the User-Agent names the app.
        let hintsOnly = FirstPartyPolicy(explicitDomains: [], requestsPerHost: [:],
                                         appHints: example.userAgents.sorted(), trackers: directory)
        #expect(hintsOnly.decide(host: "ads.lumotorch.example").reason
            == .appHint(domain: "lumotorch.example", hint: "lumotorch"))
    }
}

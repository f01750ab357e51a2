import Foundation
import MouchardFindings
import MouchardFlow
import MouchardInspection
import MouchardWire
@testable import MouchardReport

/// Hand-built flows, findings and DNS answers for the report tests.
enum ReportFixtures {
    static let t0 = Date(timeIntervalSince1970: 1_790_000_000)

    static func request(_ method: String = "GET", _ url: String, headers: [(String, String)] = [], body: String = "") -> HTTPRequest {
        let parts = URLParts(absolute: url)
        var h = HTTPHeaders()
        h.add(name: "Host", value: parts?.authority ?? "")
        for (n, v) in headers { h.add(name: n, value: v) }
        return HTTPRequest(head: HTTPRequestHead(method: method, target: parts?.pathAndQuery ?? url, headers: h),
                           scheme: parts?.scheme ?? "http", body: Array(body.utf8))
    }

    static func flow(_ id: Int, _ url: String, at seconds: Double, transport: FlowTransport? = nil,
                     headers: [(String, String)] = [], body: String = "", responseBytes: Int = 100) -> Flow {
        let r = request(body.isEmpty ? "GET" : "POST", url, headers: headers, body: body)
        return Flow(id: id, source: .har, transport: transport ?? (r.scheme == "https" ? .https : .http), request: r,
                    response: HTTPResponse(head: HTTPResponseHead(status: 200, reason: "OK"),
                                           body: [UInt8](repeating: 0x61, count: responseBytes)),
                    timings: FlowTimings(started: t0.addingTimeInterval(seconds), send: 1, wait: 20, receive: 2))
    }

    static func tlsOnly(_ id: Int, sni: String, at seconds: Double, alpn: [String] = ["h2"]) -> Flow {
        Flow(id: id, source: .pcap, transport: .tlsMetadata, timings: FlowTimings(started: t0.addingTimeInterval(seconds)),
             server: Endpoint(address: "203.0.113.\(id % 250)", port: 443), tls: TLSFacts(serverName: sni, alpn: alpn))
    }

    static func finding(_ flow: Flow, _ category: FindingCategory, _ type: String, where w: String, encoding: String = "plain",
                        evidence: String = "6D92…E7DC", tracker: String? = nil, trackerCategory: String? = nil,
                        thirdParty: Bool = true, severity: Severity? = .high) -> Finding {
        let r = flow.request ?? request("GET", "https://\(flow.host)/")
        return Finding(category: category, type: type, request: FindingRequest(method: r.method, url: r.url),
                       destination: FindingDestination(host: r.host, tracker: tracker, trackerCategory: trackerCategory,
                                                       thirdParty: thirdParty),
                       where: w, encoding: encoding, evidence: evidence, rule: "\(category).\(type)",
                       transport: flow.transport.rawValue, flow: flow.id, confidence: 1, severity: severity,
                       description: "The app sent \(type).", time: ReportTime.iso(flow.timings.started))
    }

    static let context = AuditContext(
        toolVersion: "0.1.0", inputs: ["captures/example.har"], source: "HAR file example.har", app: "Flashly",
        firstPartyDomains: ["flashly.example"], deviceName: "test iPhone",
        deviceProfile: [MaskedValue(field: "identifiers.idfa", value: "6D92078A-8246-4BA4-AE5B-76104861E7DC"),
                        MaskedValue(field: "owner.email", value: "camille.martin@example.org")],
        rulesVersion: "rules 2026-11 (test)")

    /// A small audit: an app talking to its API, two trackers (one in clear), one pinned host, DNS.
    static func smallAudit() -> (flows: [Flow], findings: [Finding], dns: [DNSObservation]) {
        let f1 = flow(1, "http://t.tracker-one.example/v1/open?idfa=6D92078A-8246-4BA4-AE5B-76104861E7DC&t=1", at: 0)
        let f2 = flow(2, "https://api.flashly.example/v2/config", at: 5)
        let f3 = flow(3, "https://sdk.tracker-two.example/track", at: 12, body: "{\"lat\":47.0812,\"lon\":2.3991}")
        let f4 = flow(4, "http://t.tracker-one.example/v1/open?idfa=6D92078A-8246-4BA4-AE5B-76104861E7DC&t=2", at: 30)
        let f5 = tlsOnly(5, sni: "pinned.bank.example", at: 40)
        let f6 = tlsOnly(6, sni: "quic.video.example", at: 41, alpn: ["h3"])
        let findings = [
            finding(f1, .deviceID, "idfa", where: "query:idfa", tracker: "Tracker One", trackerCategory: "advertising"),
            finding(f3, .location, "coordinates", where: "body:$.lat,$.lon", evidence: "47.08…,2.39…",
                    tracker: "Tracker Two", trackerCategory: "analytics"),
            finding(f3, .deviceID, "idfa", where: "header:X-Ad-Id", encoding: "base64", tracker: "Tracker Two",
                    trackerCategory: "analytics"),
            finding(f4, .deviceID, "idfa", where: "query:idfa", tracker: "Tracker One", trackerCategory: "advertising"),
        ]
        let dns = [
            DNSObservation(time: t0, name: "t.tracker-one.example", addresses: ["198.51.100.7"]),
            DNSObservation(time: t0.addingTimeInterval(39), name: "pinned.bank.example", addresses: ["198.51.100.9"]),
            DNSObservation(time: t0.addingTimeInterval(50), name: "unused.cdn.example", addresses: ["198.51.100.10"]),
        ]
        return ([f1, f2, f3, f4, f5, f6], findings, dns)
    }

    static func smallSummary(limits: AuditSummaryLimits = .standard) -> (AuditSummary, [Finding]) {
        let a = smallAudit()
        return (AuditSummary.build(flows: a.flows, findings: a.findings, dns: a.dns, context: context, limits: limits), a.findings)
    }
}

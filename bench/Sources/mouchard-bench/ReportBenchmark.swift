import Foundation
import MouchardFindings
import MouchardFlow
import MouchardInspection
import MouchardReport
import MouchardWire

/// `report [FLOWS] [OUTDIR] [--inspect]`: builds the shared summary and every report format for a synthetic
/// session of FLOWS flows (default 100,000: 2,000 hosts, 60 companies, one finding per two flows,
/// DNS for every host, TLS-only connections), prints the time of each step and each output size,
/// and writes the outputs to OUTDIR when given (`-` for none). With `--inspect`, the findings come
/// from the real `Inspector` (device profile holding the synthetic IDFA) instead of being made up,
/// so the figure covers a whole `mouchard report` after loading.
var reportBenchmark: Benchmark {
    Benchmark(name: "report", summary: "[FLOWS] [OUTDIR]: synthetic session → summary + HTML/MD/JSON/SARIF, prints s and bytes",
              run: runReportBenchmark)
}

func runReportBenchmark(_ args: [String]) throws {
    let count = args.first.flatMap { Int($0) } ?? 100_000
    let outDir = args.count > 1 && args[1] != "-" ? args[1] : nil
    let synth = Date()
    var (flows, findings, dns) = syntheticSession(flows: count)
    print("synthetic: \(flows.count) flows, \(findings.count) findings, \(dns.count) DNS answers (\(seconds(since: synth)))")

    let context = AuditContext(toolVersion: "bench", inputs: ["synthetic"], source: "synthetic session of \(count) flows",
                               app: "Bench", firstPartyDomains: ["bench-app.example"], rulesVersion: "bench")
    let attribute = ClosureAttribution { host in
        let company = host.split(separator: ".").dropFirst().first.map { "Company \($0)" }
        return DestinationInfo(company: host.hasPrefix("api.") ? nil : company, category: "analytics",
                               thirdParty: !host.hasSuffix("bench-app.example"))
    }
    let total = Date()
    var t = Date()
    if args.contains("--inspect") {
        let profile = DeviceProfile(identifiers: [(type: "idfa", value: "6D92078A-8246-4BA4-AE5B-76104861E7DC")],
                                    location: Coordinate(latitude: 47.0810, longitude: 2.3988))
        findings = Inspector(rules: RuleSet(), profile: profile, attribution: FirstPartyDomains(["bench-app.example"])).inspect(flows)
        print("inspect: \(seconds(since: t)), \(findings.count) findings")
        t = Date()
    }
    let summary = AuditSummary.build(flows: flows, findings: findings, dns: dns, context: context, attribute: attribute)
    print("summary: \(seconds(since: t))")
    for format in ReportFormat.allCases {
        t = Date()
        let bytes = try ReportRenderer.render(format, summary: summary, findings: findings)
        print("\(format.rawValue): \(seconds(since: t)), \(bytes.count) bytes (\(String(format: "%.2f", Double(bytes.count) / 1_048_576)) MB)")
        if let dir = outDir {
            try Data(bytes).write(to: URL(fileURLWithPath: "\(dir)/bench-report.\(format.rawValue)"))
        }
    }
    print("total (\(args.contains("--inspect") ? "inspect + " : "")summary + 4 formats): \(seconds(since: total))")
}

private func seconds(since d: Date) -> String { String(format: "%.3f s", Date().timeIntervalSince(d)) }

/// A deterministic synthetic session: most flows to trackers, some to the app's API, some TLS-only.
func syntheticSession(flows count: Int) -> ([Flow], [Finding], [DNSObservation]) {
    let t0 = Date(timeIntervalSince1970: 1_790_000_000)
    let categories: [FindingCategory] = [.deviceID, .location, .email, .phoneNumber, .contacts, .name]
    let types = ["idfa", "coordinates", "email", "phone", "contact-name", "name", "idfv", "android_id"]
    let wheres = ["query:idfa", "body:$.lat", "header:x-email", "cookie:uid", "form:phone", "body:$.user.name"]
    var flows: [Flow] = []
    var findings: [Finding] = []
    flows.reserveCapacity(count)
    for i in 0..<count {
        let hostIndex = (i * 7919) % 2000
        let host = hostIndex < 100 ? "api.bench-app.example" : "h\(hostIndex).co\(hostIndex % 60).example"
        let started = t0.addingTimeInterval(Double(i) * 0.036)
        if i % 10 == 9 {
            flows.append(Flow(id: i + 1, source: .proxy, transport: .tlsMetadata, timings: FlowTimings(started: started),
                              tls: TLSFacts(serverName: "pinned\(hostIndex % 300).example", alpn: i % 20 == 19 ? ["h3"] : ["h2"])))
            continue
        }
        let https = i % 3 != 0
        let target = "/v1/e?idfa=6D92078A-8246-4BA4-AE5B-76104861E7DC&seq=\(i)&payload=" + String(repeating: "x", count: i % 200)
        let req = HTTPRequest(head: HTTPRequestHead(method: "POST", target: target, headers: [
            ("Host", host), ("User-Agent", "Bench/1.0"), ("Content-Type", "application/json"), ("Cookie", "uid=\(i)"),
        ]), scheme: https ? "https" : "http", body: Array("{\"lat\":47.0812,\"lon\":2.3991,\"seq\":\(i)}".utf8))
        let flow = Flow(id: i + 1, source: .proxy, transport: https ? .https : .http, request: req,
                        response: HTTPResponse(head: HTTPResponseHead(status: 200, reason: "OK"), body: Array(repeating: 0x7B, count: 300)),
                        timings: FlowTimings(started: started, send: 1, wait: 30, receive: 2))
        flows.append(flow)
        if i % 2 == 0 {
            let k = (i / 2) % categories.count
            findings.append(Finding(
                category: categories[k], type: types[(i / 2) % types.count],
                request: FindingRequest(method: "POST", url: req.url),
                destination: FindingDestination(host: host, tracker: nil, trackerCategory: nil, thirdParty: hostIndex >= 100),
                where: wheres[(i / 4) % wheres.count], encoding: i % 8 == 0 ? "gzip+base64" : "plain", evidence: "6D92…E7DC",
                rule: "bench.\(types[(i / 2) % types.count])", transport: flow.transport.rawValue, flow: flow.id, confidence: 1,
                severity: k == 0 ? .high : .medium, description: "synthetic", time: nil))
        }
    }
    var dns: [DNSObservation] = []
    for h in 0..<2300 {
        dns.append(DNSObservation(time: t0.addingTimeInterval(Double(h)), name: h < 2000 ? "h\(h).co\(h % 60).example" : "dns-only\(h).example",
                                  addresses: ["198.51.100.\(h % 250)"]))
    }
    return (flows, findings, dns)
}

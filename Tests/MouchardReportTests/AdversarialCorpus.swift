import Foundation
import MouchardFindings
import MouchardFlow
import MouchardInspection
import MouchardWire
@testable import MouchardReport

/// Traffic from a hostile app: markup, script, attribute breakers, `javascript:` URLs, SVG handlers,
/// CSS breakers, comment/CDATA breakers, bidi controls, NULs and 1 MB values in every captured field
/// a report shows (hosts, paths, queries, headers, cookies, bodies, DNS names, SNI, finding fields).
///
/// Every script payload, if it ever ran, would put the marker `XSS-RAN` into the document (title,
/// attribute or element); the payload text itself spells it `'XSS-'+'RAN'`, so the marker can only
/// appear in a dumped DOM if injected code executed.
enum AdversarialCorpus {
    static let js = "document.title='XSS-'+'RAN';document.documentElement.setAttribute('data-x','XSS-'+'RAN')"
    static let marker = "XSS-RAN"
    static let megabyte = String(repeating: "M", count: 1_048_576)

    static let payloads: [String] = [
        "<script>\(js)</script>",
        "\"><img src=x onerror=\"\(js)\" id=injected>",
        "'><img src=x onerror='\(js)' id=injected>",
        "<svg onload=\"\(js)\" id=injected><circle r=9></svg>",
        "<svg><script>\(js)</script></svg>",
        "</style><script>\(js)</script><style>",
        "</title><script>\(js)</script>",
        "</textarea></noscript></code></td></tr></table><script>\(js)</script>",
        "javascript:\(js)",
        "<a href=\"javascript:\(js)\" id=injected>click</a>",
        "<iframe srcdoc=\"<script>parent.\(js)</script>\" id=injected></iframe>",
        "<math><mtext><table><mglyph><style><img src=x onerror=\"\(js)\" id=injected>",
        "<noscript><p title=\"</noscript><img src=x onerror=\(js) id=injected>\">",
        "<meta http-equiv=\"refresh\" content=\"0;url=javascript:\(js)\">",
        "<base href=\"javascript:/\"><link rel=stylesheet href=\"http://evil.example/x.css\">",
        "<!-- --><!--<script>\(js)</script>--> ]]><![CDATA[<script>\(js)</script>]]>",
        "<plaintext><xmp><textarea>",
        "<details open ontoggle=\"\(js)\" id=injected>",
        "<div id=injected style=\"position:fixed;inset:0;background:url(javascript:alert(1))\">x</div>",
        "<style>body{display:none}</style>",
        "<object data=\"javascript:\(js)\" id=injected></object><embed src=\"javascript:\(js)\">",
        "<form action=\"javascript:\(js)\"><button id=injected>go</button></form>",
        "&lt;script&gt;\(js)&lt;/script&gt; &amp;&#x3C;img&#62;",
        "\u{202E}gnp.exe\u{202C} \u{2066}\u{2067}\u{2068}\u{2069}\u{200E}\u{200F}\u{202A}\u{202B}\u{202D} NUL\u{0}ESC\u{1B}[31m CR\r LF\n",
        "\u{FEFF}\u{200B}zero\u{2028}width",
    ]

    /// A flow per payload placed in the host, the path, the query, a header, a cookie and the body,
    /// plus a 1 MB header value; a finding per flow carrying the payload in every text field.
    static func audit() -> (flows: [Flow], findings: [Finding], dns: [DNSObservation], context: AuditContext) {
        var flows: [Flow] = []
        var findings: [Finding] = []
        var dns: [DNSObservation] = []
        for (i, p) in payloads.enumerated() {
            let base = ReportFixtures.t0.addingTimeInterval(Double(i))
            let req = HTTPRequest(
                head: HTTPRequestHead(method: "POST", target: "/\(p)/path?q=\(p)&x=1", headers: [
                    ("Host", "\(p).evil.example"), ("X-Payload", p), ("Cookie", "session=\(p); ad=\(p)"),
                    ("X-Big", megabyte), ("User-Agent", p),
                ]),
                scheme: i % 2 == 0 ? "http" : "https", body: Array("{\"name\":\"\(p)\",\"x\":\"\(p)\"}".utf8))
            let flow = Flow(id: i + 1, source: .har, transport: i % 2 == 0 ? .http : .https, request: req,
                            response: HTTPResponse(head: HTTPResponseHead(status: 200, reason: p, headers: [("Set-Cookie", p)]),
                                                   body: Array(p.utf8)),
                            timings: FlowTimings(started: base, send: 1, wait: 5, receive: 1))
            flows.append(flow)
            flows.append(Flow(id: 1000 + i, source: .pcap, transport: .tlsMetadata, timings: FlowTimings(started: base),
                              tls: TLSFacts(serverName: "sni-\(p)", alpn: [p])))
            dns.append(DNSObservation(time: base, name: "dns-\(p)", addresses: [p]))
            let wheres = ["header:\(p)", "cookie:\(p)", "query:\(p)", "body:$.\(p)", "url", "form:\(p)"]
            let categories: [FindingCategory] = [.deviceID, .location, .email, FindingCategory(rawValue: p)]
            findings.append(Finding(
                category: categories[i % categories.count], type: p,
                request: FindingRequest(method: p, url: req.url),
                destination: FindingDestination(host: req.host, tracker: p, trackerCategory: p, thirdParty: true),
                where: wheres[i % wheres.count], encoding: "gzip+\(p)", evidence: i == 3 ? megabyte : p,
                rule: "rule.\(p)", transport: flow.transport.rawValue, flow: flow.id, confidence: 1, severity: Severity.allCases[i % Severity.allCases.count],
                description: p, time: ReportTime.iso(base), inner: p))
        }
        // A finding whose URL is a megabyte long.
        if let first = flows.first, var f = findings.first {
            f.request.url = "http://big.evil.example/?v=" + megabyte
            f.destination.host = "big.evil.example"
            f.flow = first.id
            findings.append(f)
        }
        let all = payloads.joined(separator: " ")
        let context = AuditContext(
            toolVersion: "0.1.0", inputs: payloads, source: "HAR file \(all)", app: payloads[0] + payloads[6],
            firstPartyDomains: payloads, deviceName: all,
            deviceProfile: payloads.map { MaskedValue(field: $0, masked: $0) }, rulesVersion: all)
        return (flows, findings, dns, context)
    }

    static func summary() -> (AuditSummary, [Finding]) {
        let a = audit()
        return (AuditSummary.build(flows: a.flows, findings: a.findings, dns: a.dns, context: a.context), a.findings)
    }
}

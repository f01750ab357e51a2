import Foundation
import MouchardFindings
import Testing
import MouchardFlow
import MouchardInspection
import MouchardTestSupport
@testable import MouchardReport

@Suite(.serialized) struct AdversarialTests {
    /// Tags and attributes the HTML report itself writes; anything else in a rendered DOM was injected.
    static let allowedTags: Set<String> = [
        "html", "head", "meta", "title", "style", "body", "main", "section", "nav", "footer", "div", "span", "a", "b", "i",
        "h1", "h2", "h3", "p", "code", "br", "table", "thead", "tbody", "tr", "th", "td", "dl", "dt", "dd",
        "svg", "g", "text", "line", "rect",
    ]
    static let allowedAttributes: Set<String> = [
        "lang", "charset", "http-equiv", "content", "name", "class", "id", "style", "href", "colspan",
        "xmlns", "viewbox", "role", "aria-label", "x", "y", "x1", "y1", "x2", "y2", "width", "height", "fill", "stroke",
        "stroke-width", "font-family", "font-size", "text-anchor", "transform", "dominant-baseline",
    ]
    static let allowedIDs: Set<String> = ["verdict", "findings", "data-flows", "owners", "destinations", "timeline", "metadata-only", "methodology"]

    /// Problems in a DOM: unknown tags/attributes, handlers, non-fragment links, unknown ids, the marker.
    static func injections(in dom: String) -> [String] {
        var problems: [String] = []
        for tag in DOMTags.parse(dom) {
            if !allowedTags.contains(tag.name) { problems.append("tag <\(tag.name)>") }
            for (name, value) in tag.attributes {
                if !allowedAttributes.contains(name) { problems.append("attribute \(name) on <\(tag.name)>") }
                if name == "href" && !value.hasPrefix("#") { problems.append("href \(value.prefix(60))") }
                if name == "id" && !allowedIDs.contains(value) && !value.hasPrefix("category-") { problems.append("id \(value.prefix(60))") }
                if name == "http-equiv" && value != "Content-Security-Policy" { problems.append("http-equiv \(value.prefix(60))") }
            }
        }
        if dom.contains(AdversarialCorpus.marker) { problems.append("injected script ran (\(AdversarialCorpus.marker) found)") }
        return problems
    }

    static func write(_ html: String, _ name: String) throws -> URL {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("mouchard-report-tests-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        let url = dir.appendingPathComponent(name)
        try Data(html.utf8).write(to: url)
        return url
    }

    @Test(.requires(.chromium)) func harnessSeesInjectedScriptsAndElements() throws {
        // Control: the same payloads written WITHOUT escaping must be caught, proving that the browser
        // runs scripts during --dump-dom and that the DOM check sees injected elements.
        let raw = "<!DOCTYPE html><html><head><title>control</title></head><body><p>"
            + AdversarialCorpus.payloads[0] + AdversarialCorpus.payloads[1] + "</p></body></html>"
        let url = try Self.write(raw, "control.html")
        defer { try? FileManager.default.removeItem(at: url.deletingLastPathComponent()) }
        let dom = try HeadlessChromium.dumpDOM(of: url)
        let problems = Self.injections(in: dom)
        #expect(problems.contains { $0.contains("injected script ran") })
        #expect(problems.contains { $0 == "tag <img>" })
        #expect(problems.contains { $0 == "attribute onerror on <img>" })
    }

    @Test(.requires(.chromium)) func hostileTrafficRendersInertInChromium() throws {
        let (summary, _) = AdversarialCorpus.summary()
        let html = HTMLReport.render(summary)
        #expect(html.utf8.count < 1_500_000)
        #expect(html.contains("(1048576 chars)"))
        #expect(html.contains("⟨U+202E⟩") && html.contains("⟨U+0000⟩") && html.contains("⟨U+2066⟩") && html.contains("⟨U+200F⟩"))
        #expect(!html.contains("\u{202E}") && !html.contains("\u{0}") && !html.contains("\u{2066}"))
        // The page as shipped (with its CSP) and the page without its CSP: escaping alone must hold.
        let meta = "<meta http-equiv=\"Content-Security-Policy\" content=\"\(HTMLReport.contentSecurityPolicy)\">"
        #expect(html.contains(meta))
        let withoutCSP = html.replacingOccurrences(of: meta, with: "")
        for (name, page) in [("report.html", html), ("report-no-csp.html", withoutCSP)] {
            let url = try Self.write(page, name)
            defer { try? FileManager.default.removeItem(at: url.deletingLastPathComponent()) }
            let dom = try HeadlessChromium.dumpDOM(of: url)
            #expect(Self.injections(in: dom) == [], "\(name)")
            // Our own structure survived: every section is there, the title is ours.
            for id in Self.allowedIDs { #expect(dom.contains("id=\"\(id)\""), "\(name) lost #\(id)") }
            #expect(dom.contains("<title>Privacy report — &lt;script&gt;"))
            #expect(DOMTags.parse(dom).filter { $0.name == "svg" }.count == 1)
            #expect(DOMTags.parse(dom).filter { $0.name == "title" }.count > 1) // head title + SVG tooltips, all ours
        }
    }

    @Test func worstCaseEscapingStaysUnderFiveMegabytes() throws {
        // Every shown value at its length limit and made only of characters that escape to the most
        // bytes (bidi controls → ⟨U+202E⟩, markup → entities), in as many rows as the caps allow.
        let hostile = String(repeating: "\u{202E}<\"", count: 100)
        var flows: [Flow] = []
        var findings: [Finding] = []
        var dns: [DNSObservation] = []
        for i in 0..<1500 {
            let f = ReportFixtures.flow(i + 1, "http://h\(i % 400).example/\(hostile)?q=\(hostile)", at: Double(i))
            flows.append(f)
            var finding = ReportFixtures.finding(f, .deviceID, "t\(hostile)", where: "query:\(i)\(hostile)",
                                                 encoding: hostile, evidence: hostile, tracker: "Co\(i % 50)\(hostile)")
            finding.inner = hostile
            findings.append(finding)
            dns.append(DNSObservation(time: ReportFixtures.t0, name: "d\(i)\(hostile)", addresses: [hostile]))
        }
        let summary = AuditSummary.build(flows: flows, findings: findings, dns: dns, context: ReportFixtures.context)
        let html = HTMLReport.render(summary)
        #expect(html.utf8.count < 5_000_000)
        #expect(html.contains("patterns are not listed to keep this report readable"))
        #expect(html.hasSuffix("</html>\n"))
    }

    @Test func hostileTrafficInMarkdownJSONAndSARIF() throws {
        let (summary, findings) = AdversarialCorpus.summary()
        let md = MarkdownReport.render(summary)
        #expect(!md.replacingOccurrences(of: "\\<", with: "").contains("<"), "an unescaped < could open HTML")
        #expect(!md.contains("]("))
        #expect(!md.contains("\u{202E}") && !md.contains("\u{0}"))
        #expect(md.utf8.count < 200_000)
        // Every table row keeps its table's column count: no `|` came through unescaped.
        var columns: Int?
        for line in md.split(separator: "\n", omittingEmptySubsequences: false) {
            guard line.hasPrefix("|") else { columns = nil; continue }
            let pipes = line.replacingOccurrences(of: "\\|", with: "").filter { $0 == "|" }.count
            if let c = columns { #expect(pipes == c, "\(line.prefix(100))") } else { columns = pipes }
        }
        let json = try FindingsJSON.render(summary, findings: findings)
        #expect(try FindingsJSON.load(Data(json)).findings == findings)
        let sarif = try SARIFReport.render(summary, findings: findings)
        #expect(try sarifSchemaErrors(sarif) == [])
        let results = try #require(try JSONValue.parse(sarif)["runs"]?.array?.first?["results"]?.array)
        #expect(results.count == findings.count)
    }
}

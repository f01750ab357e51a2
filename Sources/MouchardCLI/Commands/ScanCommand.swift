import Foundation
import MouchardFlow
import MouchardInspection

/// `mouchard scan INPUT...`: inspects captured traffic and lists what leaked, to whom, how hidden.
struct ScanCommand: MouchardCommand {
    static let spec = CommandSpec(
        name: "scan",
        abstract: "find device identifiers, contacts, location, phone numbers and e-mails in captured traffic",
        usage: "INPUT... [--device FILE] [--rules DIR] [--first-party DOMAIN]... [--format text|json|jsonl] [--fail-on CATEGORY[,...]]",
        discussion: """
        INPUT is a HAR file or a session (its folder, or NAME for captures/NAME). With --device,
        the device's own values are searched in every encoding (exact matches); without it,
        pattern rules (shapes, validators, key names) are used.
        Exit status: 0, or 3 when a finding's category is listed in --fail-on (CI gates); 1 on an
        invalid device profile or rule file (one line: file:line:column: what).

        examples:
          mouchard scan traffic.har --device device.json --format json > findings.json
          mouchard scan traffic.har --first-party example.com --fail-on device-id,location
        """,
        options: [
            OptionSpec("--device", value: "FILE", help: "device profile (JSON) whose values to look for"),
            OptionSpec("--rules", value: "DIR", help: "rule directory (default: $MOUCHARD_RULES, ./Rules, the installed Rules/)"),
            OptionSpec("--first-party", value: "DOMAIN", help: "a domain of the app's own company", repeatable: true),
            OptionSpec("--format", value: "FORMAT", help: "text (default), json or jsonl"),
            OptionSpec("--fail-on", value: "CATEGORIES", help: "exit 3 when a finding has one of these categories (comma-separated, or 'any')"),
        ],
        minPositionals: 1, maxPositionals: nil)

    static let categories = ["device-id", "contacts", "location", "phone-number", "email", "name", "credentials"]

    static func run(_ args: ParsedArguments, _ io: CommandIO) throws -> Int32 {
        let format = args.value("--format") ?? "text"
        guard ["text", "json", "jsonl"].contains(format) else { throw UsageError("--format must be text, json or jsonl") }
        var failOn = Set<String>()
        for item in (args.value("--fail-on") ?? "").split(separator: ",") {
            let c = item.trimmingCharacters(in: .whitespaces)
            guard c == "any" || categories.contains(c) else {
                throw UsageError("unknown category '\(c)' in --fail-on (expected any or \(categories.joined(separator: ", ")))")
            }
            failOn.insert(c)
        }
        let rulesDirectory = try ScanInputs.rulesDirectory(args.value("--rules"), io: io)
        let rules = try ScanInputs.loadRules(rulesDirectory)
        let trackers = try ScanInputs.loadTrackers(rulesDirectory)
        let profile = try args.value("--device").map { try ScanInputs.loadProfile($0, io: io) }

        var requests = 0
        var flows: [Flow] = []
        for input in args.positionals {
            let loaded = try ScanInputs.loadFlows(input, io: io)
            requests += loaded.filter { $0.request != nil }.count
            flows += loaded
        }
        let attribution = TrackerAttribution(trackers: trackers, firstParty: args.all("--first-party"), flows: flows)
        let inspector = Inspector(rules: rules, profile: profile, attribution: attribution)
        let findings = inspector.inspect(flows)
        if format == "jsonl" { for f in findings { io.out(try jsonLine(f)) } }
        switch format {
        case "json":
            let doc = FindingsDocument(tool: .init(version: Mouchard.version), inputs: args.positionals, requests: requests, findings: findings)
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.prettyPrinted, .withoutEscapingSlashes]
            io.out(String(decoding: try encoder.encode(doc), as: UTF8.self) + "\n")
        case "text":
            io.out(TextSummary.render(findings: findings, requests: requests, mode: profile == nil ? "pattern rules" : "device profile"))
        default:
            break
        }
        let hit = findings.contains { failOn.contains("any") || failOn.contains($0.category) }
        return hit ? 3 : 0
    }

    static func jsonLine(_ f: Finding) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.withoutEscapingSlashes]
        return String(decoding: try encoder.encode(f), as: UTF8.self) + "\n"
    }
}

/// The human summary of `scan`: per category, then per destination, with masked evidence.
enum TextSummary {
    static func render(findings: [Finding], requests: Int, mode: String) -> String {
        let summary = InspectionSummary(findings: findings, requests: requests)
        var s = "mouchard scan: \(requests) requests inspected (\(mode)), \(summary.leakingRequests) leaking, \(findings.count) findings\n"
        if findings.isEmpty { return s + "nothing found\n" }
        s += "\nper category (requests / findings):\n"
        for (cat, n) in summary.findingsPerCategory.sorted(by: { $0.value > $1.value }) {
            s += "  \(pad(cat, 14)) \(summary.requestsPerCategory[cat] ?? 0) / \(n)\n"
        }
        s += "\nper destination:\n"
        for d in summary.destinations {
            let who = d.company.map { " (\($0))" } ?? ""
            let party = d.thirdParty ? "third party" : "first party"
            s += "\n  \(d.host)\(who), \(party): \(d.requests) requests\n"
            let mine = findings.filter { $0.destination.host == d.host }
            var shown = Set<String>()
            for f in mine {
                let key = "\(f.category)|\(f.type)|\(f.where)|\(f.encoding)"
                guard shown.insert(key).inserted else { continue }
                let inner = f.inner.map { " → \($0)" } ?? ""
                s += "    \(pad(f.category, 13)) \(pad(f.type, 15)) \(f.where)\(inner)  [\(f.encoding)]  \(f.evidence)\n"
                if shown.count >= 40 { s += "    …\n"; break }
            }
        }
        return s
    }

    static func pad(_ s: String, _ n: Int) -> String { s.count >= n ? s : s + String(repeating: " ", count: n - s.count) }
}

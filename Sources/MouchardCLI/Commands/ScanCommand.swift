import Foundation
import MouchardFlow
import MouchardInspection
import MouchardReport
import MouchardSniffer

/// `mouchard scan INPUT...`: inspects captured traffic and lists what leaked, to whom, how hidden.
struct ScanCommand: MouchardCommand {
    static let spec = CommandSpec(
        name: "scan",
        abstract: "find device identifiers, contacts, location, phone numbers and e-mails in captured traffic",
        usage: "INPUT... [--device FILE] [--rules DIR] [--first-party DOMAIN]... [--format text|json|jsonl] [--fail-on CATEGORY[,...]]",
        discussion: """
        INPUT is a HAR file, a pcap/pcapng capture (told apart by content) or a session (its folder, or
        NAME for captures/NAME). With --device, the device's own values are searched in every encoding
        (exact matches); without it, pattern rules (shapes, validators, key names) are used.
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

        var flows: [Flow] = []
        var dns: [DNSObservation] = []
        var sources: [String] = []
        var destinations: [CaptureDestination] = []
        var captureErrors: [String] = []
        for input in args.positionals {
            let name = (input as NSString).lastPathComponent
            if CaptureScanInput.isCapture(input, io: io) {
                let extraction = try CaptureScanInput.scan(input, io: io) { flow in flows.append(flow) }
                destinations += extraction.destinations
                dns += extraction.dns
                sources.append("\(extraction.format ?? "capture") file \(name)")
                if let e = extraction.readError { captureErrors.append("\(input): \(e) (everything before it was scanned)") }
                continue
            }
            flows += try ScanInputs.loadFlows(input, io: io)
            var isFolder: ObjCBool = false
            let path = URL(fileURLWithPath: input, relativeTo: URL(fileURLWithPath: io.currentDirectory, isDirectory: true)).path
            let exists = FileManager.default.fileExists(atPath: path, isDirectory: &isFolder)
            sources.append("\(exists && !isFolder.boolValue ? "HAR file" : "session") \(name)")
        }
        let attribution = TrackerAttribution(trackers: trackers, firstParty: args.all("--first-party"), flows: flows)
        let inspector = Inspector(rules: rules, profile: profile, attribution: attribution)
        let findings = inspector.inspect(flows)
        // The summary shared with `report` (verdict, destinations, data flows...).
        var rulesDescription = "\(rules.rules.count) pattern rules in \(rules.files.count) files"
        if trackers != nil { rulesDescription += " + trackers.json" }
        let context = AuditContext(toolVersion: Mouchard.version, inputs: args.positionals,
                                   source: sources.joined(separator: "; "),
                                   firstPartyDomains: args.all("--first-party"), deviceName: profile?.name,
                                   deviceProfile: profile.map(AuditSetup.masked) ?? [], rulesVersion: rulesDescription)
        let summary = AuditSummary.build(flows: flows, findings: findings, dns: dns, context: context,
                                         attribute: attribution)
        if format == "jsonl" { for f in findings { io.out(try jsonLine(f)) } }
        switch format {
        case "json":
            // spec/findings.md's fields (tool, inputs, requests, findings) plus the summary sections
            // (its `destinations` cover the capture's hosts: transports, flows, bytes).
            io.out(String(decoding: try FindingsJSON.render(summary, findings: findings), as: UTF8.self))
        case "text":
            io.out(TextSummary.render(summary, findings: findings, mode: profile == nil ? "pattern rules" : "device profile"))
            io.out(CaptureScanInput.renderDestinations(destinations))
        default:
            break
        }
        for e in captureErrors { io.err("mouchard: error: \(e)\n") }
        if !captureErrors.isEmpty { return 1 }
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
    static func render(_ summary: AuditSummary, findings: [Finding], mode: String) -> String {
        let v = summary.verdict
        var s = "mouchard scan: \(v.requests) requests inspected (\(mode)), \(v.leakingRequests) leaking, \(v.findings) findings\n"
        if findings.isEmpty { return s + "nothing found\n" }
        s += "\n" + SummaryText.render(summary, hostLimit: 0)
        s += "\nper destination:\n"
        for d in summary.destinations where d.findings > 0 {
            let who = d.company.map { " (\(VisibleText.shown($0, limit: 60)))" } ?? ""
            let party = d.thirdParty ? "third party" : "first party"
            s += "\n  \(VisibleText.shown(d.host, limit: 120))\(who), \(party): \(d.requests) requests\n"
            for g in summary.findingGroups where g.host == d.host {
                for p in g.patterns {
                    let inner = p.inner.map { " → \(VisibleText.shown($0, limit: 80))" } ?? ""
                    s += "    \(pad(g.category, 13)) \(pad(VisibleText.shown(p.type, limit: 40), 15)) \(VisibleText.shown(p.where, limit: 80))\(inner)"
                    s += "  [\(VisibleText.shown(p.encoding, limit: 40))]  \(VisibleText.shown(p.evidence, limit: 60))"
                    s += p.occurrences > 1 ? "  ×\(p.occurrences)\n" : "\n"
                }
                if g.omittedPatterns > 0 { s += "    … \(g.omittedPatterns) more\n" }
            }
        }
        return s
    }

    static func pad(_ s: String, _ n: Int) -> String { s.count >= n ? s : s + String(repeating: " ", count: n - s.count) }
}

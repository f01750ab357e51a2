import Foundation
import MouchardAudit
import MouchardInspection
import MouchardReport

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
            KeyLogOption.spec,
            OptionSpec("--format", value: "FORMAT", help: "text (default), json or jsonl"),
            OptionSpec("--fail-on", value: "CATEGORIES", help: "exit 3 when a finding has one of these categories (comma-separated, or 'any')"),
            OptionSpec("--strict", help: "fail on a HAR entry that cannot be read (default: skip it with a warning)"),
            TerminalProgress.quietOption,
            StoreOption.readerSpec,
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
        let progress = TerminalProgress.make(io, verb: "scan", quiet: args.flag("--quiet"))
        defer { progress?.finish() }
        let io = progress?.wrapping(io) ?? io
        let setup = try AuditSetup.load(args, io: io)
        var inputs = AuditInputs(args.positionals)
        inputs.keys = try KeyLogOption.load(args, io: io)
        inputs.strict = args.flag("--strict")
        inputs.progress = progress?.inputProgress
        inputs.sessionOpener = try StoreOption.fleet(args).map(StoreOption.opener)
        // Findings are written as they are found (json: the array first, the summary after them).
        let out = OutputBuffer(io)
        var count = 0
        var hit = false
        if format == "json" { out.text += FindingsJSON.streamHead }
        let summary = try setup.audit(&inputs, currentDirectory: io.currentDirectory) { f in
            switch format {
            case "json": FindingsJSON.streamElement(f, index: count, into: &out.text)
            case "jsonl": FindingsJSON.line(f, into: &out.text)
            default: break
            }
            count += 1
            if !hit { hit = failOn.contains("any") || failOn.contains(f.category.rawValue) }
            out.flushIfFull()
        }
        switch format {
        case "json":
            // docs/findings.md's contract fields (tool, inputs, requests, findings) plus the summary sections
            // (its `destinations` cover the capture's hosts: transports, flows, bytes).
            out.text += try FindingsJSON.streamTail(summary, count: count)
        case "text":
            out.text += TextSummary.render(summary, mode: setup.profile == nil ? "pattern rules" : "device profile")
            out.text += CaptureDestinationsText.render(inputs.captureDestinations)
            out.text += InputWarningsText.render(inputs.warnings)
        default:
            break
        }
        out.flush()
        for n in inputs.decryptionNotes { io.err("mouchard: \(n)\n") }
        // The text output lists the warnings itself; a JSON document holds them too, but whoever
        // redirects it to a file should still see on the terminal that something was not read.
        if format != "text" { for w in inputs.warnings { io.err("mouchard: warning: \(w)\n") } }
        if let status = inputs.reportReadErrors(io.err) { return status }
        return hit ? 3 : 0
    }
}

/// The human summary of `scan`: per category, then per destination, with masked evidence.
enum TextSummary {
    static func render(_ summary: AuditSummary, mode: String) -> String {
        let v = summary.verdict
        var s = "mouchard scan: \(counted(v.requests, "request")) inspected (\(mode)), \(v.leakingRequests) leaking, \(counted(v.findings, "finding"))\n"
        if v.findings == 0 { return s + "nothing found\n" }
        s += "\n" + SummaryText.render(summary, hostLimit: 0)
        s += "\nper destination:\n"
        for d in summary.destinations where d.findings > 0 {
            let who = d.company.map { " (\(VisibleText.shown($0, limit: 60)))" } ?? ""
            let party = d.thirdParty ? "third party" : "first party"
            s += "\n  \(VisibleText.shown(d.host, limit: 120))\(who), \(party): \(counted(d.requests, "request"))\n"
            for g in summary.findingGroups where g.host == d.host {
                for p in g.patterns {
                    let inner = p.inner.map { " → \(VisibleText.shown($0, limit: 80))" } ?? ""
                    s += "    \(pad(g.category.rawValue, 13)) \(pad(VisibleText.shown(p.type, limit: 40), 15)) \(VisibleText.shown(p.where, limit: 80))\(inner)"
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

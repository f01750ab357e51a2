import Foundation
import MouchardAudit
import MouchardFindings
import MouchardInspection
import MouchardPostgres
import MouchardReport
import MouchardStore

/// `mouchard report`: inspects sessions or capture files and writes a privacy report
/// (HTML, Markdown, findings JSON or SARIF), exit 3 when `--fail-on` categories were found.
struct ReportCommand: MouchardCommand {
    static let spec = CommandSpec(
        name: "report",
        abstract: "write a privacy report (HTML, Markdown, JSON or SARIF) of sessions or capture files",
        usage: "SESSION|FILE... --out FILE [--format html|md|json|sarif] [--device FILE] [--app NAME] [--first-party DOMAIN]... [--rules DIR] [--fail-on CATEGORY[,...]] [--store URL [--app NAME] [--versions V1,V2] [--since DATE]]",
        discussion: """
        Inputs: session names or folders (captures/NAME), HAR files, pcap/pcapng captures, or findings JSON
        documents (from scan --format json). The format comes from --format or the extension of --out
        (.html, .md, .json, .sarif). The HTML report is one self-contained file (no script, no external
        resource) that prints well. Exit status 3 when a finding's category is listed in --fail-on
        (e.g. --fail-on device-id,location; 'any' matches every category).

        With --store, sessions are read from the fleet store (by name or id); with no input, every
        session of --app (and --versions, --since) is, and the HTML and Markdown reports add which
        companies received each category, per app version.

        examples:
          mouchard report captures/app-test --device device.json --out report.html
          mouchard report --store postgresql://audit@db.lab/mouchard --app Lumo --versions 1.2,1.3 --out lumo.html
        """,
        options: [
            OptionSpec("--out", short: "-o", value: "FILE", help: "where to write the report"),
            TerminalProgress.quietOption,
            OptionSpec("--format", value: "FORMAT", help: "html, md, json or sarif (default: from --out's extension)"),
            OptionSpec("--device", value: "FILE", help: "device profile (known values to look for, docs/device-profile.md)"),
            OptionSpec("--app", value: "NAME", help: "the app under audit (report title, first-party hint)"),
            OptionSpec("--first-party", value: "DOMAIN", help: "a domain of the app's own company", repeatable: true),
            KeyLogOption.spec,
            OptionSpec("--rules", value: "DIR", help: "rule directory (default: $MOUCHARD_RULES, ./Rules, the installed Rules/)"),
            OptionSpec("--fail-on", value: "CATEGORIES", help: "exit 3 when findings of these categories exist", repeatable: true),
            OptionSpec("--diff-against", value: "OLD", help: "add a section of what changed since OLD (a session or file; html and md)"),
            OptionSpec("--strict", help: "fail on a HAR entry that cannot be read (default: skip it with a warning)"),
            StoreOption.readerSpec,
            OptionSpec("--versions", value: "LIST", help: "with --store and no input: the sessions of these versions of --app"),
            OptionSpec("--since", value: "DATE", help: "with --store and no input: the sessions started at or after DATE"),
        ],
        minPositionals: 0, maxPositionals: nil)

    /// Warning lines repeated on stderr (the report holds all of them).
    static let warningsOnStderr = 10

    static func run(_ args: ParsedArguments, _ io: CommandIO) throws -> Int32 {
        guard let out = args.value("--out") else { throw UsageError("'report' needs --out FILE") }
        let format: ReportFormat
        if let name = args.value("--format") {
            guard let f = ReportFormat(name: name) else { throw UsageError("unknown format '\(name)' (html, md, json, sarif)") }
            format = f
        } else {
            guard let f = ReportFormat(path: out) else {
                throw UsageError("cannot tell the format of '\(out)': use .html, .md, .json or .sarif, or --format")
            }
            format = f
        }
        let failOn = AuditSetup.failOnCategories(args)
        if args.value("--diff-against") != nil, format != .html, format != .markdown {
            throw UsageError("--diff-against adds a section to html and md reports only")
        }
        let progress = TerminalProgress.make(io, verb: "report", quiet: args.flag("--quiet"))
        defer { progress?.finish() }
        let io = progress?.wrapping(io) ?? io
        try FleetSelection.checkUsage(args, command: "report")
        let fleet = try StoreOption.fleet(args)
        let selection = try FleetSelection.inputs(args, fleet: fleet, command: "report")
        let setup = try AuditSetup.load(args, io: io)
        var inputs = AuditInputs(selection.inputs)
        inputs.keys = try KeyLogOption.load(args, io: io)
        inputs.strict = args.flag("--strict")
        inputs.progress = progress?.inputProgress
        inputs.sessionOpener = fleet.map(StoreOption.opener)
        // The renderers list every finding, so they are kept (the flows are not).
        var findings: [Finding] = []
        let summary = try setup.audit(&inputs, currentDirectory: io.currentDirectory) { findings.append($0) }
        for n in inputs.decryptionNotes { io.err("mouchard: \(n)\n") }
        for w in inputs.warnings.prefix(Self.warningsOnStderr) { io.err("mouchard: warning: \(w)\n") }
        if inputs.warnings.count > Self.warningsOnStderr {
            io.err("mouchard: warning: \(inputs.warnings.count - Self.warningsOnStderr) more warnings (all of them are in the report's methodology)\n")
        }
        var bytes = try ReportRenderer.render(format, summary: summary, findings: findings, rules: setup.ruleMetadata)
        if let old = args.value("--diff-against") {
            bytes = try withDiffSection(bytes, format: format, old: old, inputs: selection.inputs, setup: setup,
                                        opener: inputs.sessionOpener, io: io)
        }
        if let sessions = selection.sessions, format == .html || format == .markdown {
            // Each finding's flow id says which input (session) it came from.
            let ranges = inputs.flowIDs
            let receipts = FleetReceiptsText.aggregate(findings) { f in
                guard let id = f.flow, let k = ranges.firstIndex(where: { $0?.contains(id) == true }), k < sessions.count else { return nil }
                return (sessions[k].id, sessions[k].app ?? "", sessions[k].appVersion ?? "")
            }
            let note = "From this report's findings, per session, grouped by the app and version each session was recorded for."
            bytes = insertSection(bytes, format: format, html: FleetReceiptsText.html(receipts, note: note),
                                  markdown: FleetReceiptsText.markdown(receipts, note: note))
        }
        let path = out.hasPrefix("/") ? out : io.currentDirectory + "/" + out
        do {
            try Data(bytes).write(to: URL(fileURLWithPath: path), options: .atomic)
        } catch {
            throw CLIError("\(out): cannot write (\(error.localizedDescription))")
        }
        io.out(SummaryText.render(summary))
        io.out("wrote \(out) (\(format.rawValue), \(bytes.count) bytes)\n")
        if let status = inputs.reportReadErrors(io.err) { return status }
        if AuditSetup.failOnMatches(failOn, findings) {
            io.err("mouchard: --fail-on matched: \(failOn.sorted().joined(separator: ","))\n")
            return 3
        }
        return 0
    }
}

extension ReportCommand {
    /// The report with a "Changes since OLD" section: after the verdict in Markdown, before the end of the body in HTML.
    static func withDiffSection(_ report: [UInt8], format: ReportFormat, old: String, inputs: [String], setup: AuditSetup,
                                opener: (@Sendable (String) throws -> any SessionStoring)?, io: CommandIO) throws -> [UInt8] {
        let new = inputs.joined(separator: " + ")
        let diff = try DiffCommand.compute(setup: setup, old: [old], new: inputs, opener: opener, io: io)
        return insertSection(report, format: format, html: AuditDiffText.html(diff, old: old, new: new),
                             markdown: AuditDiffText.markdown(diff, old: old, new: new))
    }

    /// The report with a section added: after the verdict in Markdown, before the end of the body in HTML.
    static func insertSection(_ report: [UInt8], format: ReportFormat, html: String, markdown: String) -> [UInt8] {
        var text = String(decoding: report, as: UTF8.self)
        if format == .html {
            if let end = text.range(of: "</body>", options: .backwards) { text.insert(contentsOf: html, at: end.lowerBound) } else { text += html }
        } else {
            if let categories = text.range(of: "\n## ") { text.insert(contentsOf: markdown, at: text.index(after: categories.lowerBound)) } else { text += "\n" + markdown }
        }
        return Array(text.utf8)
    }
}

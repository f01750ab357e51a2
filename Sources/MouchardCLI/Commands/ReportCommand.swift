import Foundation
import MouchardAudit
import MouchardFindings
import MouchardInspection
import MouchardReport

/// `mouchard report`: inspects sessions or capture files and writes a privacy report
/// (HTML, Markdown, findings JSON or SARIF), exit 3 when `--fail-on` categories were found.
struct ReportCommand: MouchardCommand {
    static let spec = CommandSpec(
        name: "report",
        abstract: "write a privacy report (HTML, Markdown, JSON or SARIF) of sessions or capture files",
        usage: "SESSION|FILE... --out FILE [--format html|md|json|sarif] [--device FILE] [--app NAME] [--first-party DOMAIN]... [--rules DIR] [--fail-on CATEGORY[,...]]",
        discussion: """
        Inputs: session names or folders (captures/NAME), HAR files, pcap/pcapng captures, or findings JSON
        documents (from scan --format json). The format comes from --format or the extension of --out
        (.html, .md, .json, .sarif). The HTML report is one self-contained file (no script, no external
        resource) that prints well. Exit status 3 when a finding's category is listed in --fail-on
        (e.g. --fail-on device-id,location; 'any' matches every category).

        example: mouchard report captures/app-test --device device.json --out report.html
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
        ],
        minPositionals: 1, maxPositionals: nil)

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
        let setup = try AuditSetup.load(args, io: io)
        var inputs = AuditInputs(args.positionals)
        inputs.keys = try KeyLogOption.load(args, io: io)
        inputs.strict = args.flag("--strict")
        inputs.progress = progress?.inputProgress
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
            bytes = try withDiffSection(bytes, format: format, old: old, inputs: args.positionals, setup: setup, io: io)
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
                                io: CommandIO) throws -> [UInt8] {
        let new = inputs.joined(separator: " + ")
        var oldInputs = AuditInputs([old])
        var oldFindings: [Finding] = []
        let oldSummary = try setup.audit(&oldInputs, currentDirectory: io.currentDirectory) { oldFindings.append($0) }
        var newInputs = AuditInputs(inputs)
        var newFindings: [Finding] = []
        let newSummary = try setup.audit(&newInputs, currentDirectory: io.currentDirectory) { newFindings.append($0) }
        let diff = AuditDiff(old: oldSummary, oldFindings: oldFindings, new: newSummary, newFindings: newFindings)
        var text = String(decoding: report, as: UTF8.self)
        if format == .html {
            let section = AuditDiffText.html(diff, old: old, new: new)
            if let end = text.range(of: "</body>", options: .backwards) { text.insert(contentsOf: section, at: end.lowerBound) } else { text += section }
        } else {
            let section = AuditDiffText.markdown(diff, old: old, new: new)
            if let categories = text.range(of: "\n## ") { text.insert(contentsOf: section, at: text.index(after: categories.lowerBound)) } else { text += "\n" + section }
        }
        return Array(text.utf8)
    }
}

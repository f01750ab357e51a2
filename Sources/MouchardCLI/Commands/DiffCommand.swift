import Foundation
import MouchardAudit
import MouchardFindings
import MouchardInspection
import MouchardPostgres
import MouchardReport
import MouchardStore

/// `mouchard diff OLD NEW`: what leaks, destinations and companies changed between two audits.
struct DiffCommand: MouchardCommand {
    static let spec = CommandSpec(
        name: "diff",
        abstract: "compare two audits (app 1.2 vs 1.3): new, gone and changed leaks, new destinations and companies",
        usage: "OLD NEW [--format text|json|md] [--fail-on new|changed|gone|destinations|any] [--device FILE] [--first-party DOMAIN]... [--store URL [--app NAME --versions OLD,NEW]]",
        discussion: """
        OLD and NEW are sessions, HAR files or captures, each audited with the same rules, device profile
        and first-party domains. A leak is a category of data going to a host (and the company behind
        it); it changed when other data types, places in the request or encodings carry it. Exit 3
        when a --fail-on condition holds: new (a new leak), changed, gone, destinations (a new
        destination or company), any.
        With --store, OLD and NEW are sessions of the fleet store (name or id); instead of them,
        --app A --versions 1.2,1.3 compares every session of version 1.2 of A with every one of 1.3.
        examples:
          mouchard diff captures/app-1.2 captures/app-1.3 --device phone.json --fail-on new
          mouchard diff --store postgresql://audit@db.lab/mouchard --app Lumo --versions 1.2,1.3
        """,
        options: [
            OptionSpec("--format", value: "FORMAT", help: "text (default), json or md"),
            OptionSpec("--fail-on", value: "CONDITIONS", help: "exit 3 when: new, changed, gone, destinations, any", repeatable: true),
            OptionSpec("--device", value: "FILE", help: "device profile (known values to look for)"),
            OptionSpec("--app", value: "NAME", help: "the app under audit (first-party hint)"),
            OptionSpec("--first-party", value: "DOMAIN", help: "a domain of the app's own company", repeatable: true),
            OptionSpec("--rules", value: "DIR", help: "rule directory (default: $MOUCHARD_RULES, ./Rules, the installed Rules/)"),
            StoreOption.readerSpec,
            OptionSpec("--versions", value: "OLD,NEW", help: "with --store and --app: compare the sessions of these two versions"),
            OptionSpec("--since", value: "DATE", help: "with --versions: only sessions started at or after DATE"),
        ],
        minPositionals: 0, maxPositionals: 2)

    static func run(_ args: ParsedArguments, _ io: CommandIO) throws -> Int32 {
        let format = args.value("--format") ?? "text"
        guard ["text", "json", "md", "markdown"].contains(format) else { throw UsageError("unknown format '\(format)' (text, json, md)") }
        let failOn = try conditions(args)
        let setup = try AuditSetup.load(args, io: io)
        var fleet: PostgresFleet?
        let (oldInputs, newInputs, old, new) = try sides(args) {
            fleet = try StoreOption.fleet(args)
            return fleet
        }
        if fleet == nil { fleet = try StoreOption.fleet(args) }
        let diff = try compute(setup: setup, old: oldInputs, new: newInputs, opener: fleet.map(StoreOption.opener), io: io)
        switch format {
        case "json": io.out(String(decoding: AuditDiffText.json(diff, old: old, new: new), as: UTF8.self))
        case "md", "markdown": io.out(AuditDiffText.markdown(diff, old: old, new: new))
        default: io.out(AuditDiffText.text(diff, old: old, new: new))
        }
        return diff.matches(failOn: failOn) ? 3 : 0
    }

    static func conditions(_ args: ParsedArguments) throws -> Set<String> {
        let given = Set(args.all("--fail-on").flatMap { $0.split(separator: ",") }.map { $0.trimmingCharacters(in: .whitespaces).lowercased() })
        for c in given where !AuditDiff.failConditions.contains(c) {
            throw UsageError("--fail-on wants \(AuditDiff.failConditions.joined(separator: ", ")), not '\(c)'")
        }
        return given
    }

    /// What is compared: OLD and NEW, or with `--store --app A --versions V1,V2` the sessions of each
    /// version; and their names.
    /// The arguments are checked before `openFleet` connects.
    static func sides(_ args: ParsedArguments, openFleet: () throws -> PostgresFleet?) throws -> ([String], [String], String, String) {
        if args.positionals.count == 2 {
            guard args.value("--versions") == nil else { throw UsageError("--versions replaces OLD and NEW: give one or the other") }
            return ([args.positionals[0]], [args.positionals[1]], args.positionals[0], args.positionals[1])
        }
        guard args.value("--store") != nil, args.positionals.isEmpty, let app = args.value("--app") else {
            throw UsageError("'diff' needs OLD and NEW, or --store URL --app NAME --versions OLD,NEW")
        }
        let filter = try FleetSelection.filter(args)
        guard filter.versions.count == 2 else { throw UsageError("--versions wants two versions, OLD,NEW (e.g. 1.2,1.3)") }
        guard let fleet = try openFleet() else { throw UsageError("'diff' needs --store URL with --versions") }
        func ids(_ version: String) throws -> [String] {
            var one = filter
            one.versions = [version]
            let found = try StoreOption.clarified { () throws(StoreError) in try fleet.sessions(one) }.map(\.id)
            guard !found.isEmpty else { throw CLIError("no session of \(app) \(version) in the fleet store \(fleet.display)") }
            return found
        }
        let (a, b) = (filter.versions[0], filter.versions[1])
        return (try ids(a), try ids(b), "\(app) \(a)", "\(app) \(b)")
    }

    /// Audits both sides with `setup` and compares them.
    static func compute(setup: AuditSetup, old: [String], new: [String], opener: (@Sendable (String) throws -> any SessionStoring)?,
                        io: CommandIO) throws -> AuditDiff {
        func audit(_ paths: [String]) throws -> (AuditSummary, [Finding]) {
            var inputs = AuditInputs(paths)
            inputs.sessionOpener = opener
            var findings: [Finding] = []
            let summary = try setup.audit(&inputs, currentDirectory: io.currentDirectory) { findings.append($0) }
            for w in (inputs.warnings + inputs.readErrors).prefix(5) { io.err("mouchard: warning: \(w)\n") }
            return (summary, findings)
        }
        let (a, af) = try audit(old)
        let (b, bf) = try audit(new)
        return AuditDiff(old: a, oldFindings: af, new: b, newFindings: bf)
    }
}

import Foundation
import MouchardAudit
import MouchardFlow
import MouchardPostgres
import MouchardReport
import MouchardStore

/// `mouchard sessions --store URL`: the sessions of the fleet store, filtered by app, versions and start.
struct SessionsCommand: MouchardCommand {
    static let spec = CommandSpec(
        name: "sessions",
        abstract: "list the sessions of the fleet store (PostgreSQL), by app, version and start",
        usage: "--store URL [--app NAME] [--versions V1,V2...] [--since DATE] [--companies] [--format text|json]",
        discussion: """
        One line per session, oldest first: start (UTC), name, app and version, device, the machine
        that recorded it, flows and findings uploaded, and the first characters of its id (name or id
        select it in scan, report, flows, diff, replay and mock with --store). DATE is ISO 8601
        (2026-10-01 or 2026-10-01T08:00:00Z). --companies lists instead, per app version and category
        of data, the companies (or hosts) that received it, from the findings the live audits (proxy,
        gateway, sniff) stored: "which apps sent an advertising ID to which company this month".
        examples:
          mouchard sessions --store postgresql://audit@db.lab/mouchard --app Lumo --since 2026-10-01
          mouchard sessions --store postgresql://audit@db.lab/mouchard --since 2026-10-01 --companies
        """,
        options: [
            OptionSpec("--store", value: "URL", help: "the fleet store (postgresql://user@host/db)"),
            OptionSpec("--app", value: "NAME", help: "only sessions of this app"),
            OptionSpec("--versions", value: "LIST", help: "only these versions of it (comma-separated)"),
            OptionSpec("--since", value: "DATE", help: "only sessions started at or after DATE"),
            OptionSpec("--companies", help: "per app version and category, who received it (stored findings)"),
            OptionSpec("--format", value: "FORMAT", help: "text (default) or json"),
        ],
        minPositionals: 0, maxPositionals: 0)

    static func run(_ args: ParsedArguments, _ io: CommandIO) throws -> Int32 {
        let format = args.value("--format") ?? "text"
        guard ["text", "json"].contains(format) else { throw UsageError("--format must be text or json") }
        guard args.value("--store") != nil else { throw UsageError("'sessions' needs --store URL (the fleet store)") }
        let filter = try FleetSelection.filter(args)
        guard let fleet = try StoreOption.fleet(args) else { return 64 }
        if args.flag("--companies") {
            let receipts = try StoreOption.clarified { () throws(StoreError) in try fleet.receipts(filter) }
            if format == "json" {
                let encoder = JSONEncoder()
                encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
                io.out(String(decoding: try encoder.encode(receipts), as: UTF8.self) + "\n")
            } else {
                io.out(receipts.isEmpty ? "no findings stored for \(FleetSelection.describe(filter).isEmpty ? "any session" : FleetSelection.describe(filter))\n"
                       : FleetReceiptsText.text(receipts))
            }
            return 0
        }
        let sessions = try StoreOption.clarified { () throws(StoreError) in try fleet.sessions(filter) }
        if format == "json" {
            io.out(String(decoding: try FleetSelection.json(sessions), as: UTF8.self) + "\n")
            return 0
        }
        var text = ""
        for s in sessions { text += line(s) + "\n" }
        text += "\(sessions.count) session\(sessions.count == 1 ? "" : "s") in \(fleet.display)\n"
        io.out(text)
        return 0
    }

    /// `2026-10-05T07:41:40.215Z  app-1.3  Lumo 1.3  Pixel 7  gw-lab-2  1200 flows  34 findings  1f3a9c2e`
    static func line(_ s: FleetSessionInfo) -> String {
        func shown(_ v: String?) -> String { TerminalText.printable(v ?? "-") }
        var parts = [ISO8601Time.format(s.started), shown(s.name), "\(shown(s.app)) \(shown(s.appVersion))", shown(s.device),
                     shown(s.gateway), "\(s.flows) flows", "\(s.findings) findings", String(s.id.prefix(8))]
        if s.ended == nil { parts.append("(recording or interrupted)") }
        return parts.joined(separator: "  ")
    }
}

/// `--app`, `--versions` and `--since`: the sessions a fleet command covers.
enum FleetSelection {
    static func filter(_ args: ParsedArguments) throws -> FleetFilter {
        var filter = FleetFilter(app: args.value("--app"))
        filter.versions = (args.value("--versions") ?? "").split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
            .filter { !$0.isEmpty }
        if let text = args.value("--since") {
            guard let date = ISO8601Time.parse(text) ?? ISO8601Time.parse(text + "T00:00:00Z") else {
                throw UsageError("--since wants an ISO 8601 date such as 2026-10-01 or 2026-10-01T08:00:00Z, not '\(text)'")
            }
            filter.since = date
        }
        return filter
    }

    /// The inputs of a reader that takes sessions: the positionals, or with `--store` and none of
    /// them, the sessions `--app`, `--versions` and `--since` select (then also that filter).
    static func inputs(_ args: ParsedArguments, fleet: PostgresFleet?, command: String) throws -> (inputs: [String], sessions: [FleetSessionInfo]?) {
        try checkUsage(args, command: command)
        if !args.positionals.isEmpty { return (args.positionals, nil) }
        guard let fleet else { throw UsageError("'\(command)' needs inputs, or --store URL with --app, --versions or --since") }
        let filter = try filter(args)
        let sessions = try StoreOption.clarified { () throws(StoreError) in try fleet.sessions(filter) }
        guard !sessions.isEmpty else { throw CLIError("no session in the fleet store \(fleet.display) matches \(describe(filter))") }
        return (sessions.map(\.id), sessions)
    }

    /// Inputs, or a selection of fleet sessions: one or the other (checked before connecting).
    static func checkUsage(_ args: ParsedArguments, command: String) throws {
        let selecting = args.value("--versions") != nil || args.value("--since") != nil
        if !args.positionals.isEmpty, selecting {
            throw UsageError("--versions and --since select fleet sessions in place of inputs: give one or the other")
        }
        if args.positionals.isEmpty, args.value("--store") == nil || !(selecting || args.value("--app") != nil) {
            throw UsageError("'\(command)' needs inputs, or --store URL with --app, --versions or --since")
        }
    }

    /// `app Lumo, versions 1.2, 1.3, since 2026-10-01T00:00:00.000Z`.
    static func describe(_ f: FleetFilter) -> String {
        var parts: [String] = []
        if let app = f.app { parts.append("app \(app)") }
        if !f.versions.isEmpty { parts.append("versions \(f.versions.joined(separator: ", "))") }
        if let since = f.since { parts.append("since \(ISO8601Time.format(since))") }
        return parts.joined(separator: ", ")
    }

    static func json(_ sessions: [FleetSessionInfo]) throws -> Data {
        struct Line: Encodable {
            var id, name, started: String
            var app, app_version, device, gateway, ended: String?
            var flows, findings: Int
        }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        return try encoder.encode(sessions.map {
            Line(id: $0.id, name: $0.name, started: ISO8601Time.format($0.started), app: $0.app, app_version: $0.appVersion,
                 device: $0.device, gateway: $0.gateway, ended: $0.ended.map(ISO8601Time.format), flows: $0.flows, findings: $0.findings)
        })
    }
}

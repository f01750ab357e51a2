import Foundation
import MouchardAudit
import MouchardInspection

/// `mouchard trackers lookup HOST... | check [FILE]`: what the tracker directory says about a host and
/// why (the entry that matched, its brand, owner, country, kind, source and date), and validation of a
/// directory file.
struct TrackersCommand: MouchardCommand {
    static let spec = CommandSpec(
        name: "trackers",
        abstract: "look a host up in the tracker directory, or check a directory file",
        usage: "lookup HOST... | check [FILE]",
        discussion: """
        subcommands:
          lookup HOST...  the entry each host matches (longest matching domain), with brand, owner,
                          country, kind, basis (verified with date and evidence, or unverified),
                          source, and the shorter entries it overrides
          check [FILE]    load FILE (default: trackers.json of the rule directory) and print its size,
                          or the first problem as FILE:LINE:COLUMN

        The directory is Rules/trackers.json (see docs/trackers.md). Exit status of lookup: 0 when every
        host matched an entry, 1 when some did not.

        examples:
          mouchard trackers lookup t.appsflyer.com
          mouchard trackers check Rules/trackers.json
        """,
        options: [
            OptionSpec("--rules", value: "DIR", help: "rule directory holding trackers.json (default ./Rules)"),
            OptionSpec("--format", value: "FORMAT", help: "lookup output: text (default) or json"),
        ],
        minPositionals: 1, maxPositionals: 10_000)

    static func run(_ args: ParsedArguments, _ io: CommandIO) throws -> Int32 {
        let subcommand = args.positionals[0]
        let rest = Array(args.positionals.dropFirst())
        switch subcommand {
        case "lookup":
            guard !rest.isEmpty else { throw UsageError("'trackers lookup' needs at least one HOST") }
            let format = args.value("--format") ?? "text"
            guard format == "text" || format == "json" else { throw UsageError("unknown format '\(format)' (text or json)") }
            let (directory, file) = try load(nil, args, io)
            var allMatched = true
            var json: [String] = []
            for host in rest {
                let matches = directory.matches(host: host)
                if matches.isEmpty { allMatched = false }
                if format == "json" {
                    json.append(jsonAnswer(host: host, matches: matches))
                } else {
                    io.out(textAnswer(host: host, matches: matches, file: file))
                }
            }
            if format == "json" { io.out("[" + json.joined(separator: ",\n") + "]\n") }
            return allMatched ? 0 : 1
        case "check":
            guard rest.count <= 1 else { throw UsageError("'trackers check' takes at most one FILE") }
            let start = DispatchTime.now().uptimeNanoseconds
            let (directory, file) = try load(rest.first, args, io)
            let milliseconds = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e6
            let entries = directory.entries
            let trackers = entries.filter(\.isTracker).count
            let companies = Set(entries.map(\.company)).count
            let brands = Set(entries.map(\.brand)).count
            let verified = entries.filter(\.isVerified).count
            io.out("\(file): \(entries.count) domains (\(trackers) trackers, \(entries.count - trackers) infrastructure or platform), "
                   + "\(brands) brands of \(companies) companies; \(verified) verified, \(entries.count - verified) unverified; "
                   + "loaded in \(String(format: "%.1f", milliseconds)) ms\n")
            return 0
        default:
            throw UsageError("unknown 'trackers' subcommand '\(subcommand)' (lookup or check)")
        }
    }

    /// The directory from FILE, else from the rule directory (`--rules`, `$MOUCHARD_RULES`, `./Rules`...).
    static func load(_ path: String?, _ args: ParsedArguments, _ io: CommandIO) throws -> (TrackerDirectory, String) {
        let url: URL
        if let path {
            url = URL(fileURLWithPath: path, relativeTo: URL(fileURLWithPath: io.currentDirectory, isDirectory: true))
        } else {
            url = try ScanInputs.rulesDirectory(args.value("--rules"), currentDirectory: io.currentDirectory).appendingPathComponent("trackers.json")
        }
        let shown = ScanInputs.displayPath(url)
        guard let data = FileManager.default.contents(atPath: url.path) else { throw CLIError("\(shown): cannot read the file") }
        do {
            return (try TrackerDirectory(jsonData: data, file: shown), shown)
        } catch {
            throw CLIError("\(error)")
        }
    }

    static func textAnswer(host: String, matches: [TrackerEntry], file: String) -> String {
        guard let entry = matches.first else {
            return "\(host): not in the directory (\(file)): no entry for it or any parent domain\n"
        }
        var t = "\(host): \(entry.isTracker ? "tracker" : "not a tracker (\(entry.category.rawValue))")\n"
        t += "  matched   \(entry.domain)\(entry.domain == HostName.normalized(host) ? " (the host itself)" : " (longest matching parent domain)")\n"
        t += "  brand     \(entry.brand)\n"
        t += "  company   \(entry.company)\n"
        t += "  owner     \(entry.owner) (\(entry.country))\n"
        if let product = entry.product { t += "  product   \(product)\n" }
        t += "  kind      \(entry.category.rawValue)\n"
        t += "  basis     \(entry.basis.label(checked: entry.checked))\n"
        t += "  source    \(entry.source)\(entry.isVerified ? "" : " (not checked)")\n"
        if let evidence = entry.evidence { t += "  evidence  \(evidence)\n" }
        if let ownerSource = entry.ownerSource { t += "  ownership \(ownerSource)\n" }
        if let note = entry.note { t += "  note      \(note)\n" }
        for shorter in matches.dropFirst() {
            t += "  overrides \(shorter.domain) (\(shorter.brandAndCompany), \(shorter.category.rawValue))\n"
        }
        return t
    }

    static func jsonAnswer(host: String, matches: [TrackerEntry]) -> String {
        func quoted(_ s: String) -> String {
            var out = "\""
            for scalar in s.unicodeScalars {
                switch scalar {
                case "\"": out += "\\\""
                case "\\": out += "\\\\"
                case _ where scalar.value < 0x20: out += String(format: "\\u%04x", scalar.value)
                default: out.unicodeScalars.append(scalar)
                }
            }
            return out + "\""
        }
        guard let e = matches.first else { return "{\"host\":\(quoted(host)),\"matched\":null}" }
        var fields = ["\"host\":\(quoted(host))", "\"matched\":\(quoted(e.domain))", "\"tracker\":\(e.isTracker)",
                      "\"brand\":\(quoted(e.brand))", "\"company\":\(quoted(e.company))", "\"owner\":\(quoted(e.owner))",
                      "\"country\":\(quoted(e.country))", "\"kind\":\(quoted(e.category.rawValue))",
                      "\"basis\":\(quoted(e.basis.rawValue))", "\"source\":\(quoted(e.source))"]
        if let c = e.checked { fields.append("\"checked\":\(quoted(c))") }
        if let v = e.evidence { fields.append("\"evidence\":\(quoted(v))") }
        if let o = e.ownerSource { fields.append("\"owner_source\":\(quoted(o))") }
        if let p = e.product { fields.append("\"product\":\(quoted(p))") }
        if let n = e.note { fields.append("\"note\":\(quoted(n))") }
        fields.append("\"overrides\":[" + matches.dropFirst().map { quoted($0.domain) }.joined(separator: ",") + "]")
        return "{" + fields.joined(separator: ",") + "}"
    }
}

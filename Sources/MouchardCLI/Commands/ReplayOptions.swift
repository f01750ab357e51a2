import Foundation
import MouchardFlow
import MouchardProxy
import MouchardReplay
import MouchardStore

/// The options `mock`, `proxy --replay` and `replay` share: which flows of which source, body limit,
/// and (for serving) how requests are matched and what a miss does.
enum ReplayOptions {
    static let defaultBodyLimit = 64 << 20

    static let sourceOptions: [OptionSpec] = [
        OptionSpec("--flows", value: "IDS", help: "only these flows of the source, e.g. 3,5-9 (ids as 'mouchard flows' lists them)"),
        OptionSpec("--max-body", value: "BYTES", help: "largest body replayed or served (default 64 MB)"),
    ]

    static let matchingOptions: [OptionSpec] = [
        OptionSpec("--replay-miss", value: "404|forward|close", help: "an unmatched request: answered 404 (default), forwarded upstream, or its connection closed"),
        OptionSpec("--replay-keep", help: "keep serving the last recorded response once all were served"),
        OptionSpec("--ignore-param", value: "NAME", help: "a query parameter left out of matching", repeatable: true),
        OptionSpec("--ignore-body", help: "do not compare request bodies when matching"),
    ]

    /// The selected flows of SOURCE, or one clear error line.
    static func load(_ source: String, _ args: ParsedArguments, io: CommandIO) throws -> (flows: [Flow], description: String) {
        var selection = FlowSelection.all
        if let text = args.value("--flows") {
            guard let s = FlowSelection(parsing: text) else {
                throw UsageError("--flows wants flow ids and ranges such as 3,5-9, not '\(text)'")
            }
            selection = s
        }
        // With --store, a source that is not a file is a session of the fleet store.
        var fleetSession: (any SessionStoring)?
        if let fleet = try StoreOption.fleet(args), !FileManager.default.fileExists(atPath: SessionFiles.absolute(source, currentDirectory: io.currentDirectory)) {
            fleetSession = try StoreOption.opener(fleet)(source)
        }
        do {
            let loaded: FlowFile.Loaded
            if let fleetSession {
                loaded = try FlowFile.load(session: fleetSession, shown: source)
            } else {
                loaded = try FlowFile.load(source, currentDirectory: io.currentDirectory)
            }
            for w in loaded.warnings.prefix(5) { io.err("mouchard: warning: \(w)\n") }
            return (try FlowFile.select(selection, from: loaded, shown: source), loaded.source)
        } catch {
            throw CLIError(error.description)
        }
    }

    static func bodyLimit(_ args: ParsedArguments) throws -> Int {
        guard let text = args.value("--max-body") else { return defaultBodyLimit }
        guard let n = Int(text), n >= 0 else { throw UsageError("--max-body wants a number of bytes, not '\(text)'") }
        return n
    }

    static func matching(_ args: ParsedArguments) throws -> (MatchOptions, MissPolicy) {
        var miss = MissPolicy.notFound
        if let text = args.value("--replay-miss") {
            guard let m = MissPolicy(rawValue: text) else { throw UsageError("--replay-miss wants 404, forward or close, not '\(text)'") }
            miss = m
        }
        let options = MatchOptions(ignoredParameters: Set(args.all("--ignore-param")), ignoresBody: args.flag("--ignore-body"),
                                   keepsLast: args.flag("--replay-keep"))
        return (options, miss)
    }

    /// The response source of `mock` / `proxy --replay`, with the line that tells what it serves.
    static func serving(_ source: String, _ args: ParsedArguments, io: CommandIO, acceptsOrigin: Bool,
                        listenIP: String) throws -> (ReplayServing, RecordedResponses, String) {
        let (flows, description) = try load(source, args, io: io)
        let (matching, miss) = try matching(args)
        let limit = try bodyLimit(args)
        do {
            let made = try ReplayServing.recordings(flows, matching: matching, miss: miss, bodyLimit: limit,
                                                    acceptsOriginRequests: acceptsOrigin, listenIP: listenIP)
            let count = flows.count - made.skipped
            let line = "serving \(count) recorded exchange\(count == 1 ? "" : "s") from \(description) (unmatched: \(miss.rawValue))"
            return (made.serving, made.responses, line)
        } catch {
            throw CLIError(error.description)
        }
    }
}

/// What a command accepts: its options and how many positional arguments.
/// The help text and usage lines are derived from it, so they cannot drift from the parser.
public struct CommandSpec: Sendable {
    public var name: String
    public var abstract: String
    /// Shown after `usage: mouchard NAME `, e.g. `INPUT... [--device FILE]`.
    public var usage: String
    /// Free text after the option list (examples, notes).
    public var discussion: String
    public var options: [OptionSpec]
    public var minPositionals: Int
    public var maxPositionals: Int?

    public init(name: String, abstract: String, usage: String, discussion: String = "", options: [OptionSpec] = [],
                minPositionals: Int = 0, maxPositionals: Int? = 0) {
        self.name = name
        self.abstract = abstract
        self.usage = usage
        self.discussion = discussion
        self.options = options
        self.minPositionals = minPositionals
        self.maxPositionals = maxPositionals
    }

    public var usageLine: String { "usage: mouchard \(name) \(usage)" }

    /// The `--help` text of this command.
    public var helpText: String {
        var s = "\(usageLine)\n\n\(abstract)\n"
        if !options.isEmpty {
            s += "\noptions:\n"
            let rendered = options.map { o -> (String, String) in
                var left = o.short.map { "\($0), " } ?? ""
                left += o.name
                if let v = o.valueName { left += " \(v)" }
                return (left, o.help + (o.repeatable ? " (repeatable)" : ""))
            } + [("-h, --help", "show this help")]
            let width = min(28, rendered.map(\.0.count).max() ?? 0)
            for (left, help) in rendered {
                let pad = left.count < width ? String(repeating: " ", count: width - left.count) : ""
                s += "  \(left)\(pad)  \(help)\n"
            }
        } else {
            s += "\noptions:\n  -h, --help  show this help\n"
        }
        if !discussion.isEmpty { s += "\n\(discussion)\n" }
        return s
    }
}

/// One option: `--name VALUE` (valueName set) or a flag `--name`.
public struct OptionSpec: Sendable {
    public var name: String
    public var short: String?
    public var valueName: String?
    public var help: String
    public var repeatable: Bool

    public init(_ name: String, short: String? = nil, value: String? = nil, help: String, repeatable: Bool = false) {
        self.name = name
        self.short = short
        self.valueName = value
        self.help = help
        self.repeatable = repeatable
    }
}

/// The arguments of one command after parsing: option values by long name, flags, positionals.
public struct ParsedArguments: Sendable, Equatable {
    public var values: [String: [String]] = [:]
    public var flags: Set<String> = []
    public var positionals: [String] = []

    /// The last value given for `--name` (or nil).
    public func value(_ name: String) -> String? { values[name]?.last }
    /// Every value given for a repeatable `--name`, in order.
    public func all(_ name: String) -> [String] { values[name] ?? [] }
    public func flag(_ name: String) -> Bool { flags.contains(name) }
}

/// A mistake in how the command was called: printed with the usage, exit 64 (EX_USAGE).
public struct UsageError: Error, Sendable, Equatable, CustomStringConvertible {
    public var message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}

/// The result of parsing: either arguments to run with, or a request for help.
public enum ParseOutcome: Sendable, Equatable {
    case run(ParsedArguments)
    case help
}

/// Parses `args` (without the command name) against `spec`: `--opt value`, `--opt=value`,
/// short `-i value`, flags, `--` ends options. Throws `UsageError` naming what is wrong.
public func parseArguments(_ args: [String], spec: CommandSpec) throws(UsageError) -> ParseOutcome {
    var parsed = ParsedArguments()
    var i = 0
    var optionsEnded = false
    while i < args.count {
        let arg = args[i]
        i += 1
        if optionsEnded || arg == "-" || !arg.hasPrefix("-") {
            parsed.positionals.append(arg)
            continue
        }
        if arg == "--" { optionsEnded = true; continue }
        if arg == "--help" || arg == "-h" { return .help }
        var name = arg
        var inlineValue: String?
        if arg.hasPrefix("--"), let eq = arg.firstIndex(of: "=") {
            name = String(arg[..<eq])
            inlineValue = String(arg[arg.index(after: eq)...])
        }
        guard let opt = spec.options.first(where: { $0.name == name || ($0.short != nil && $0.short == name) }) else {
            throw UsageError("unknown option '\(name)' for '\(spec.name)'")
        }
        if opt.valueName == nil {
            if inlineValue != nil { throw UsageError("option '\(opt.name)' takes no value") }
            parsed.flags.insert(opt.name)
            continue
        }
        let value: String
        if let v = inlineValue {
            value = v
        } else {
            guard i < args.count else { throw UsageError("option '\(opt.name)' needs a value (\(opt.valueName!))") }
            value = args[i]
            i += 1
        }
        if !opt.repeatable, parsed.values[opt.name] != nil {
            throw UsageError("option '\(opt.name)' given twice")
        }
        parsed.values[opt.name, default: []].append(value)
    }
    if parsed.positionals.count < spec.minPositionals {
        throw UsageError("'\(spec.name)' needs \(spec.usage.split(separator: " ").first.map(String.init) ?? "an argument")")
    }
    if let max = spec.maxPositionals, parsed.positionals.count > max {
        throw UsageError("unexpected argument '\(parsed.positionals[max])' for '\(spec.name)'")
    }
    return .run(parsed)
}

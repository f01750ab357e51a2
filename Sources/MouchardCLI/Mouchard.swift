import Foundation
import MouchardAudit

/// The `mouchard` command tree: dispatches to a subcommand, prints help and version,
/// and maps errors to exit codes (64 usage, 1 runtime).
public enum Mouchard {
    public static let version = MouchardRelease.version

    /// Every subcommand, in the order `mouchard --help` lists them.
    /// (Each lives in its own file under Commands/.)
    public static let commands: [any MouchardCommand.Type] = [
        ImportCommand.self,
        ExportCommand.self,
        FlowsCommand.self,
        VersionCommand.self,
        ScanCommand.self,
        ReportCommand.self,
        SniffCommand.self,
        CACommand.self,
        ProxyCommand.self,
        MockCommand.self,
        ReplayCommand.self,
        DiffCommand.self,
        GatewayCommand.self,
        TrackersCommand.self,
        SessionsCommand.self,
        SyncCommand.self,
    ]

    public static let exitUsage: Int32 = 64

    public static var helpText: String {
        var s = """
        usage: mouchard <command> [options]

        Mouchard shows what a mobile app really sends about its user: which device identifiers,
        contacts, location, phone numbers and e-mails left the phone, to whom, and how they were hidden.

        commands:

        """
        let width = commands.map { $0.spec.name.count }.max() ?? 0
        for c in commands {
            s += "  \(c.spec.name)\(String(repeating: " ", count: width - c.spec.name.count))  \(c.spec.abstract)\n"
        }
        s += """

        options:
          -h, --help     show this help (also: mouchard <command> --help)
          --version      print the version

        """
        return s
    }

    /// Runs `mouchard` with `arguments` (without the program name); returns the exit status.
    public static func main(_ arguments: [String], io: CommandIO = .standard) -> Int32 {
        guard let first = arguments.first else {
            io.err("mouchard: missing command\n\(helpText)")
            return exitUsage
        }
        if first == "--help" || first == "-h" || first == "help" {
            if first == "help", arguments.count > 1, let c = command(named: arguments[1]) {
                io.out(c.spec.helpText)
            } else {
                io.out(helpText)
            }
            return 0
        }
        if first == "--version" {
            io.out("mouchard \(version)\n")
            return 0
        }
        guard let command = command(named: first) else {
            let what = first.hasPrefix("-") ? "unknown option '\(first)'" : "unknown command '\(first)'"
            io.err("mouchard: \(what)\n\(helpText)")
            return exitUsage
        }
        let spec = command.spec
        do {
            switch try parseArguments(Array(arguments.dropFirst()), spec: spec) {
            case .help:
                io.out(spec.helpText)
                return 0
            case .run(let parsed):
                return try command.run(parsed, io)
            }
        } catch let e as UsageError {
            io.err("mouchard: \(e.message)\n\(spec.usageLine)\n(see 'mouchard \(spec.name) --help')\n")
            return exitUsage
        } catch {
            io.err("mouchard: error: \(describe(error))\n")
            return 1
        }
    }

    static func command(named name: String) -> (any MouchardCommand.Type)? {
        commands.first { $0.spec.name == name }
    }

    /// One line for an error: its description without Swift's type decoration.
    public static func describe(_ error: any Error) -> String {
        let text = String(describing: error)
        return text.replacingOccurrences(of: "\n", with: " ")
    }
}

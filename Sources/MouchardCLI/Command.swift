import Foundation

/// A `mouchard` subcommand: its spec (options, help) and what it does.
/// A command only turns arguments into library calls and prints; the logic lives in the libraries.
public protocol MouchardCommand: Sendable {
    static var spec: CommandSpec { get }
    /// Runs the command; returns the exit status (0 ok, 3 `--fail-on` matched). Throws `UsageError`
    /// for a bad call (exit 64) and any other error for a runtime failure (exit 1).
    static func run(_ args: ParsedArguments, _ io: CommandIO) throws -> Int32
}

/// Where a command writes. The real CLI writes to stdout/stderr; tests collect the text.
public struct CommandIO: Sendable {
    public var out: @Sendable (String) -> Void
    public var err: @Sendable (String) -> Void
    /// The directory relative paths and `--session NAME` resolve against.
    public var currentDirectory: String
    /// True when `err` writes to a terminal (progress and status lines are shown only then).
    public var errIsTerminal = false

    public init(out: @escaping @Sendable (String) -> Void, err: @escaping @Sendable (String) -> Void,
                currentDirectory: String = FileManager.default.currentDirectoryPath) {
        self.out = out
        self.err = err
        self.currentDirectory = currentDirectory
    }

    /// Writes to the process's standard output and error, unbuffered per call.
    public static let standard: CommandIO = {
        var io = CommandIO(out: { s in FileHandle.standardOutput.write(Data(s.utf8)) },
                           err: { s in FileHandle.standardError.write(Data(s.utf8)) })
        io.errIsTerminal = isatty(STDERR_FILENO) == 1
        return io
    }()
}

/// A runtime failure worth one clear line (`mouchard: error: ...`), exit 1.
public struct CLIError: Error, Sendable, CustomStringConvertible {
    public var message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}

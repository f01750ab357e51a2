import Foundation

/// `mouchard version`: the version of Mouchard and of the C libraries it links.
struct VersionCommand: MouchardCommand {
    static let spec = CommandSpec(name: "version", abstract: "print the version", usage: "")

    static func run(_ args: ParsedArguments, _ io: CommandIO) throws -> Int32 {
        io.out("mouchard \(Mouchard.version)\n")
        return 0
    }
}

import MouchardAudit

/// The options `scan`, `report`, `sniff` and `proxy` share, turned into an `AuditSetup`.
extension AuditSetup {
    /// Reads the files named by `--rules`, `--device`, `--first-party` and `--app`.
    static func load(_ args: ParsedArguments, io: CommandIO) throws -> AuditSetup {
        try load(rules: args.value("--rules"), device: args.value("--device"), firstParty: args.all("--first-party"),
                 app: args.value("--app"), currentDirectory: io.currentDirectory)
    }

    /// The categories of `--fail-on a,b --fail-on c` (`any` matches every category).
    static func failOnCategories(_ args: ParsedArguments) -> Set<String> {
        Set(args.all("--fail-on").flatMap { $0.split(separator: ",") }.map { $0.trimmingCharacters(in: .whitespaces).lowercased() }
            .filter { !$0.isEmpty })
    }

}

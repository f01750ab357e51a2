import Testing

/// Conditions for tests that need something a machine may lack, each with the reason Swift Testing
/// prints when it skips the test: `@Test(.requires(.dev))`, `@Test(.requires(.tshark))`, `@Test(.requiresRoot)`.
extension Trait where Self == ConditionTrait {
    /// Runs only when the outside corpus is beside the repository.
    public static func requires(_ corpus: OutsideCorpus) -> Self {
        .enabled(if: corpus.isPresent, Comment(rawValue: corpus.skipReason))
    }

    /// Runs only when the program is installed.
    public static func requires(_ tool: TestTool) -> Self {
        .enabled(if: tool.isPresent, Comment(rawValue: tool.skipReason))
    }

    /// Runs only as root.
    public static var requiresRoot: Self {
        .enabled(if: TestPrivileges.isRoot, Comment(rawValue: TestPrivileges.rootReason))
    }
}

extension Trait where Self == ConditionTrait {
    /// Runs only when the Python packages import in the repository's environment (`.venv/`).
    public static func requiresPython(_ modules: String...) -> Self {
        .enabled(if: PythonPackages.have(modules), Comment(rawValue: PythonPackages.skipReason(modules)))
    }

    /// Runs only when the PostgreSQL server binaries are installed (the fleet store tests start one).
    public static var requiresPostgres: Self {
        .enabled(if: PostgresTestServer.isAvailable, Comment(rawValue: PostgresTestServer.skipReason))
    }
}

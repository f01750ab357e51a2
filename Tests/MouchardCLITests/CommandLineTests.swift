import Foundation
import Testing
@testable import MouchardCLI

/// Collects what a command prints, for tests.
final class Captured: @unchecked Sendable {
    private let lock = NSLock()
    private var _out = "", _err = ""
    var out: String { lock.withLock { _out } }
    var err: String { lock.withLock { _err } }
    var io: CommandIO {
        CommandIO(out: { s in self.lock.withLock { self._out += s } }, err: { s in self.lock.withLock { self._err += s } })
    }
}

func run(_ args: [String]) -> (status: Int32, out: String, err: String) {
    let c = Captured()
    let status = Mouchard.main(args, io: c.io)
    return (status, c.out, c.err)
}

@Suite struct CommandLineTests {
    @Test func versionFlag() {
        let r = run(["--version"])
        #expect(r.status == 0)
        #expect(r.out == "mouchard \(Mouchard.version)\n")
    }

    @Test func noCommandIsUsageError() {
        let r = run([])
        #expect(r.status == 64)
        #expect(r.err.hasPrefix("mouchard: missing command\nusage: mouchard <command> [options]"))
    }

    @Test func unknownCommandAndOption() {
        let a = run(["frobnicate"])
        #expect(a.status == 64)
        #expect(a.err.hasPrefix("mouchard: unknown command 'frobnicate'\n"))
        let b = run(["version", "--bogus"])
        #expect(b.status == 64)
        #expect(b.err.hasPrefix("mouchard: unknown option '--bogus' for 'version'\nusage: mouchard version"))
    }

    @Test func toolHelpListsEveryCommand() {
        let r = run(["--help"])
        #expect(r.status == 0)
        for c in Mouchard.commands { #expect(r.out.contains("\n  \(c.spec.name) ")) }
    }

    @Test func parserForms() throws {
        let spec = CommandSpec(name: "t", abstract: "test", usage: "[X...]", options: [
            OptionSpec("--device", value: "FILE", help: "profile"),
            OptionSpec("--first-party", value: "DOMAIN", help: "ours", repeatable: true),
            OptionSpec("--quiet", short: "-q", help: "less"),
            OptionSpec("--iface", short: "-i", value: "IFACE", help: "interface"),
        ], maxPositionals: nil)
        let outcome = try parseArguments(["a", "--device=d.json", "--first-party", "x.com", "--first-party=y.com",
                                          "-q", "-i", "lo", "--", "--not-an-option"], spec: spec)
        guard case .run(let p) = outcome else { Issue.record("expected run"); return }
        #expect(p.value("--device") == "d.json")
        #expect(p.all("--first-party") == ["x.com", "y.com"])
        #expect(p.flag("--quiet"))
        #expect(p.value("--iface") == "lo")
        #expect(p.positionals == ["a", "--not-an-option"])
        #expect(throws: UsageError("option '--device' needs a value (FILE)")) {
            try parseArguments(["--device"], spec: spec)
        }
        #expect(throws: UsageError("option '--device' given twice")) {
            try parseArguments(["--device", "a", "--device=b"], spec: spec)
        }
        #expect(throws: UsageError("option '--quiet' takes no value")) {
            try parseArguments(["--quiet=1"], spec: spec)
        }
        #expect(try parseArguments(["x", "--help"], spec: spec) == .help)
    }
}

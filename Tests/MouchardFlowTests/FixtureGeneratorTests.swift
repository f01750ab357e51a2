import Foundation
import MouchardTestSupport
import Testing

/// The committed fixtures (Tests/Fixtures/) are exactly what their generator writes, so a change to
/// the generator that is not followed by `make fixtures` (or a hand edit of an output) fails here.
@Suite struct FixtureGeneratorTests {
    @Test(.requires(.python3)) func committedFixturesAreTheGeneratorsOutput() throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: try #require(TestTool.python3.path))
        process.arguments = [TestFiles.fixtures.appendingPathComponent("make_fixtures.py").path, "--check"]
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        try process.run()
        let output = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        #expect(process.terminationStatus == 0, "\(output)")
    }

    @Test func fixturesAreSmall() throws {
        let files = try #require(FileManager.default.enumerator(at: TestFiles.fixtures, includingPropertiesForKeys: [.fileSizeKey]))
        var total = 0
        for case let url as URL in files { total += try url.resourceValues(forKeys: [.fileSizeKey]).fileSize ?? 0 }
        #expect(total > 100_000 && total < 3_000_000, "\(total) bytes")
    }
}

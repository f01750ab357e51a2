import Foundation

/// Locations the tests read: the repository root (from this file's path) and `../shared` beside it.
enum TestPaths {
    static let repositoryRoot: URL = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()
    static let shared: URL = repositoryRoot.deletingLastPathComponent().appendingPathComponent("shared")
    static let corpus: URL = shared.appendingPathComponent("corpus/dev")
    static let tcpdumpTests: URL = shared.appendingPathComponent("pcaps/tcpdump-tests")

    /// A fresh temporary directory for one test.
    static func temporaryDirectory() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("mouchard-sniffer-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }
}

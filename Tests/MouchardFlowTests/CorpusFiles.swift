import Foundation

/// Paths of the shared corpus, found from this file (the repo root is two levels up, `shared/` beside it).
enum CorpusFiles {
    static let repoRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()
    static func devHAR(_ device: String) -> URL {
        repoRoot.deletingLastPathComponent().appendingPathComponent("shared/corpus/dev/\(device)/traffic.har")
    }
}

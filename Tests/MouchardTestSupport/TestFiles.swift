import Foundation

/// Where the tests find their inputs: the repository (found from this file's path), the project's own
/// fixtures under `Tests/Fixtures/` (made by `Tests/Fixtures/make_fixtures.py`), and the optional
/// outside corpora in the folder beside the repository, which only some machines have (CI does).
public enum TestFiles {
    /// The repository root: this file is `Tests/MouchardTestSupport/TestFiles.swift`.
    public static let repositoryRoot: URL = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()

    /// The repository's rule files (`Rules/`).
    public static let rules: URL = repositoryRoot.appendingPathComponent("Rules")

    /// The committed fixtures (`Tests/Fixtures/`).
    public static let fixtures: URL = repositoryRoot.appendingPathComponent("Tests/Fixtures")

    /// The two fixture test phones, as their folder names under `Tests/Fixtures/`.
    public static let fixtureDevices = ["ios", "android"]

    /// A file of a fixture device: `fixture("ios", "traffic.har")`.
    public static func fixture(_ device: String, _ file: String) -> URL {
        fixtures.appendingPathComponent(device).appendingPathComponent(file)
    }

    /// A fresh temporary directory for one test (the caller removes it).
    public static func temporaryDirectory(_ label: String = "test") throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("mouchard-\(label)-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }
}

/// An outside corpus in the folder beside the repository. Tests that read one are enabled only when
/// it is there (`.enabled(if: OutsideCorpus.dev.isPresent, OutsideCorpus.dev.skipReason)`), so a
/// clone with nothing beside it still passes and says what it skipped.
public struct OutsideCorpus: Sendable {
    /// The path below the shared folder, e.g. `corpus/dev`.
    public let relativePath: String
    /// What it holds, for the skip reason.
    public let contents: String
    /// Files or folders inside it that must all be there for the corpus to count as present (a
    /// half-copied corpus is absent, not a source of odd failures).
    public let markers: [String]

    /// The labelled development corpus: two devices, HAR, pcap (Ethernet and Linux cooked), pcapng,
    /// device profiles and labels.
    public static let dev = OutsideCorpus(
        relativePath: "corpus/dev", contents: "the labelled dev corpus",
        markers: ["labels.json"] + ["ios", "android"].flatMap { d in
            ["device.json", "labels.json", "traffic.har", "traffic.pcap", "traffic-sll.pcap", "traffic.pcapng"].map { "\(d)/\($0)" }
        })
    /// tcpdump's own test captures (hundreds of files, many malformed on purpose).
    public static let tcpdumpTests = OutsideCorpus(relativePath: "pcaps/tcpdump-tests",
                                                   contents: "tcpdump's test captures", markers: ["."])
    /// HAR files and captures written by other tools, collected from public repositories.
    public static let wild = OutsideCorpus(relativePath: "wild", contents: "HAR files and captures from other tools",
                                           markers: ["har", "pcap", "neg"])

    /// The folder of outside corpora: `$MOUCHARD_CORPORA` when set (a checkout elsewhere, a git
    /// worktree), else the folder `shared` beside the repository root.
    public static let sharedFolder: URL = {
        if let dir = ProcessInfo.processInfo.environment["MOUCHARD_CORPORA"], !dir.isEmpty {
            return URL(fileURLWithPath: dir, isDirectory: true)
        }
        return TestFiles.repositoryRoot.deletingLastPathComponent().appendingPathComponent("shared")
    }()

    public var url: URL { Self.sharedFolder.appendingPathComponent(relativePath).standardizedFileURL }

    public var isPresent: Bool {
        markers.allSatisfy { FileManager.default.fileExists(atPath: url.appendingPathComponent($0).path) }
    }

    /// Why a test of this corpus did not run.
    public var skipReason: String {
        "needs \(contents) in \(url.path) (the shared folder beside the repository, or $MOUCHARD_CORPORA), which is not there"
    }

    /// A file of the corpus: `OutsideCorpus.dev.file("ios/traffic.har")`.
    public func file(_ path: String) -> URL { url.appendingPathComponent(path) }
}

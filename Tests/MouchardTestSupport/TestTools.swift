import Foundation
import Synchronization

/// An outside program a test runs (tshark, curl, chromium), found on `PATH`. `make deps` installs
/// them all (scripts/debian-packages.txt); a test that needs one is skipped with this reason when it
/// is missing.
public struct TestTool: Sendable {
    /// The executable's names, in order of preference.
    public let names: [String]
    /// What the test uses it for, for the skip reason.
    public let purpose: String

    public static let tshark = TestTool(names: ["tshark"], purpose: "to count packets independently")
    public static let curl = TestTool(names: ["curl"], purpose: "as the HTTP(S) client")
    public static let chromium = TestTool(names: ["chromium", "chromium-browser"],
                                          purpose: "to run the HTML report headless with JavaScript on")
    public static let openssl = TestTool(names: ["openssl"], purpose: "to verify minted certificates")
    public static let nginx = TestTool(names: ["nginx"], purpose: "as an HTTP/2 origin")
    public static let h2load = TestTool(names: ["h2load"], purpose: "as an HTTP/2 client opening many streams")
    public static let python3 = TestTool(names: ["python3"], purpose: "for local servers and the fixture generator")

    /// The executable's path, or nil when none of the names is on `PATH`.
    public var path: String? {
        let dirs = (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin").split(separator: ":").map(String.init)
        for name in names {
            for dir in dirs where FileManager.default.isExecutableFile(atPath: "\(dir)/\(name)") {
                return "\(dir)/\(name)"
            }
        }
        return nil
    }

    public var isPresent: Bool { path != nil }

    public var skipReason: String {
        "needs \(names[0]) \(purpose); it is not on PATH (`make deps` installs it)"
    }
}

/// Privileges a test needs.
public enum TestPrivileges {
    /// Live capture (libpcap on an interface) and network namespaces need root.
    public static var isRoot: Bool { geteuid() == 0 }

    public static let rootReason = "needs root (live capture on the loopback interface); run the tests as root, as CI does"
}

/// The Python packages of `scripts/python-requirements.txt` (websockets, grpcio), installed by
/// `make deps` in a virtual environment at `.venv/` in the repository. A test that needs one is
/// skipped with this reason when the environment or the package is missing.
public enum PythonPackages {
    /// The environment's interpreter.
    public static let python = TestFiles.repositoryRoot.appendingPathComponent(".venv/bin/python3").path

    /// Whether every module of `modules` imports in the environment (asked once per list).
    public static func have(_ modules: [String]) -> Bool {
        let key = modules.joined(separator: ",")
        return answers.withLock { cache in
            if let known = cache[key] { return known }
            let found = importable(modules)
            cache[key] = found
            return found
        }
    }

    public static func skipReason(_ modules: [String]) -> String {
        "needs the Python packages \(modules.joined(separator: ", ")) in \(python) (`make deps` creates it from scripts/python-requirements.txt)"
    }

    private static let answers = Mutex<[String: Bool]>([:])

    private static func importable(_ modules: [String]) -> Bool {
        guard FileManager.default.isExecutableFile(atPath: python) else { return false }
        let p = Process()
        p.executableURL = URL(fileURLWithPath: python)
        p.arguments = ["-c", modules.map { "import \($0)" }.joined(separator: "; ")]
        p.standardOutput = FileHandle.nullDevice
        p.standardError = FileHandle.nullDevice
        do { try p.run() } catch { return false }
        p.waitUntilExit()
        return p.terminationStatus == 0
    }
}

import Foundation

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

import Foundation

/// Where Mouchard keeps its per-user state (the CA): `$MOUCHARD_HOME` if set, else `~/.mouchard`.
public enum MouchardHome {
    /// The directory for `environment` (defaults to the process environment).
    public static func directory(environment: [String: String] = ProcessInfo.processInfo.environment) -> String {
        if let home = environment["MOUCHARD_HOME"], !home.isEmpty { return home }
        let userHome = environment["HOME"].flatMap { $0.isEmpty ? nil : $0 }
            ?? FileManager.default.homeDirectoryForCurrentUser.path
        return (userHome as NSString).appendingPathComponent(".mouchard")
    }
}

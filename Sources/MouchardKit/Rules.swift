import Foundation
import MouchardAudit
import MouchardInspection

/// The detection rules an audit runs: the pattern rules and the tracker directory of a `Rules/`
/// folder (Mouchard's own by default).
public struct Rules: Sendable {
    public let patterns: RuleSet
    public let trackers: TrackerDirectory?
    public let directory: String

    /// The rules of `directory` (`*.json` pattern files and `trackers.json`), read as `scan` reads them.
    public init(directory: String) throws {
        self.directory = directory
        let url = URL(fileURLWithPath: directory, isDirectory: true)
        patterns = try ScanInputs.loadRules(url)
        trackers = try ScanInputs.loadTrackers(url)
    }

    /// `$MOUCHARD_RULES`, else the `Rules/` folder of the Mouchard checkout this kit was built from.
    public static func standard() throws -> Rules {
        if let env = ProcessInfo.processInfo.environment["MOUCHARD_RULES"], !env.isEmpty { return try Rules(directory: env) }
        let here = URL(fileURLWithPath: #filePath)  // Sources/MouchardKit/Rules.swift
        let root = here.deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        return try Rules(directory: root.appendingPathComponent("Rules").path)
    }

    /// Reads a device profile (the phone's identifiers, owner, location, contacts: spec/device-profile.md).
    public static func profile(_ path: String) throws -> DeviceProfile {
        try ScanInputs.loadProfile(path, currentDirectory: FileManager.default.currentDirectoryPath)
    }

    /// A device profile from its JSON text.
    public static func profile(json: String) throws -> DeviceProfile {
        try DeviceProfile.load(Array(json.utf8), file: "profile")
    }
}

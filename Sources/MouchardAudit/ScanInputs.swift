import Foundation
import MouchardFlow
import MouchardInspection

/// Loads the files an audit is configured with (rule directory, pattern rules, tracker directory,
/// device profile) for `scan`, `report`, `sniff` and `proxy`. The traffic itself is read by `AuditInputs`.
public enum ScanInputs {
    /// The rule directory: `--rules DIR`, else `$MOUCHARD_RULES`, else `./Rules`, else a `Rules/`
    /// in the executable's folder or one of the four above it (the checkout's `Rules/` for
    /// `.build/<config>/mouchard`, however the binary was started).
    public static func rulesDirectory(_ option: String?, currentDirectory: String) throws -> URL {
        let cwd = URL(fileURLWithPath: currentDirectory, isDirectory: true)
        if let option { return try checkedRulesOption(URL(fileURLWithPath: option, relativeTo: cwd), shown: option) }
        var candidates: [URL] = []
        if let env = ProcessInfo.processInfo.environment["MOUCHARD_RULES"], !env.isEmpty {
            candidates.append(URL(fileURLWithPath: env, relativeTo: cwd))
        }
        candidates.append(cwd.appendingPathComponent("Rules"))
        var dir = executableURL.deletingLastPathComponent()
        for _ in 0..<5 {
            candidates.append(dir.appendingPathComponent("Rules"))
            dir = dir.deletingLastPathComponent()
        }
        for c in candidates {
            var isDir: ObjCBool = false
            if FileManager.default.fileExists(atPath: c.path, isDirectory: &isDir), isDir.boolValue,
               FileManager.default.fileExists(atPath: c.appendingPathComponent("device-id.json").path) {
                return c
            }
        }
        throw AuditError("cannot find the Rules/ directory (use --rules DIR or set MOUCHARD_RULES)")
    }

    /// The running binary, symlinks resolved: `/proc/self/exe`, not `argv[0]` (which is a bare
    /// `mouchard` when the binary is found through `$PATH`). `argv[0]` is the fallback where there is
    /// no `/proc`.
    public static var executableURL: URL {
        if let target = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe") {
            return URL(fileURLWithPath: target)
        }
        if let url = Bundle.main.executableURL { return url.resolvingSymlinksInPath() }
        return URL(fileURLWithPath: CommandLine.arguments.first ?? "").resolvingSymlinksInPath()
    }

    /// `--rules DIR` as given, once it is known to be a readable folder: one line naming the folder
    /// otherwise (its rule files are checked by `loadRules`).
    private static func checkedRulesOption(_ dir: URL, shown: String) throws -> URL {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: dir.path, isDirectory: &isDirectory) else {
            throw AuditError("--rules \(shown): no such folder (it should hold the rule files, *.json)")
        }
        guard isDirectory.boolValue else {
            throw AuditError("--rules \(shown): not a folder (give the folder that holds the rule files, *.json)")
        }
        guard FileManager.default.isReadableFile(atPath: dir.path) else {
            throw AuditError("--rules \(shown): cannot read the folder")
        }
        return dir
    }

    /// Every `*.json` rule file of `dir` except the tracker directory, merged.
    public static func loadRules(_ dir: URL) throws -> RuleSet {
        guard let entries = try? FileManager.default.contentsOfDirectory(atPath: dir.path) else {
            throw AuditError("\(displayPath(dir)): cannot list the rule folder")
        }
        let names = entries.filter { $0.hasSuffix(".json") && $0 != "trackers.json" }.sorted()
        guard !names.isEmpty else { throw AuditError("\(dir.path): no rule files (*.json)") }
        var sets: [RuleSet] = []
        for name in names {
            let file = dir.appendingPathComponent(name)
            guard let data = FileManager.default.contents(atPath: file.path) else {
                throw AuditError("\(displayPath(file)): cannot read the rule file")
            }
            let bytes = [UInt8](data)
            sets.append(try RuleFileLoader.load(bytes, file: displayPath(file)))
        }
        return try RuleFileLoader.merge(sets)
    }

    /// `trackers.json` of the rule directory, when there is one.
    public static func loadTrackers(_ dir: URL) throws -> TrackerDirectory? {
        let file = dir.appendingPathComponent("trackers.json")
        guard let data = FileManager.default.contents(atPath: file.path) else { return nil }
        do {
            return try TrackerDirectory(jsonData: data, file: displayPath(file))
        } catch {
            throw AuditError("\(error)")
        }
    }

    public static func loadProfile(_ path: String, currentDirectory: String) throws -> DeviceProfile {
        let url = URL(fileURLWithPath: path, relativeTo: URL(fileURLWithPath: currentDirectory, isDirectory: true))
        guard let data = FileManager.default.contents(atPath: url.path) else { throw AuditError("\(path): cannot read the device profile") }
        return try DeviceProfile.load([UInt8](data), file: path)
    }

    public static func displayPath(_ url: URL) -> String {
        let cwd = FileManager.default.currentDirectoryPath + "/"
        let p = url.standardizedFileURL.path
        return p.hasPrefix(cwd) ? String(p.dropFirst(cwd.count)) : p
    }
}

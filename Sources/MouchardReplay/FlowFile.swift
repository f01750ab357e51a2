import Foundation
import MouchardFlow
import MouchardSniffer
import MouchardStore

/// Reads the flows of a source named on the command line or by a test: a HAR file, a pcap/pcapng
/// capture (told apart by its magic bytes) or a session (a folder, or a name under `captures/`).
public enum FlowFile {
    /// What was read: the flows in order and one line saying from what.
    public struct Loaded: Sendable {
        public var flows: [Flow]
        /// `HAR file app.har`, `session ios-1`, `pcapng file a.pcapng`.
        public var source: String
        /// Problems that did not stop the reading (skipped HAR entries, capture warnings).
        public var warnings: [String]
    }

    /// A source that cannot be read: one line naming it and what is wrong.
    public struct LoadError: Error, Sendable, CustomStringConvertible {
        public var description: String
        public init(_ description: String) { self.description = description }
    }

    /// Loads `path` (relative to `currentDirectory`).
    public static func load(_ path: String, currentDirectory: String = FileManager.default.currentDirectoryPath)
        throws(LoadError) -> Loaded {
        let full = path.hasPrefix("/") ? path : currentDirectory + "/" + path
        var isDirectory: ObjCBool = false
        let exists = FileManager.default.fileExists(atPath: full, isDirectory: &isDirectory)
        if isDirectory.boolValue || (!exists && !path.contains("/") && !path.contains(".")) {
            return try loadSession(path, currentDirectory: currentDirectory)
        }
        guard exists else { throw LoadError("\(path): no such file or directory") }
        guard let handle = FileHandle(forReadingAtPath: full) else { throw LoadError("\(path): cannot read") }
        let header = Array(handle.readData(ofLength: 16))
        try? handle.close()
        let name = (path as NSString).lastPathComponent
        if CaptureFileExtractor.isCaptureFile(header: header) {
            let x: CaptureExtraction
            do {
                x = try CaptureFileExtractor.extract(path: full)
            } catch {
                throw LoadError("\(path): \(error)")
            }
            var warnings = x.warnings.prefix(20).map { "\(path): \($0)" }
            if let e = x.readError { warnings.append("\(path): \(e) (the flows before it were read)") }
            return Loaded(flows: x.flows, source: "\(x.format ?? "capture") file \(name)", warnings: warnings)
        }
        guard let data = FileManager.default.contents(atPath: full) else { throw LoadError("\(path): cannot read") }
        do {
            let (flows, skipped) = try HARReader.readSkippingBadEntries(data)
            return Loaded(flows: flows, source: "HAR file \(name)", warnings: skipped.prefix(20).map { "\(path): skipped \($0)" })
        } catch {
            throw LoadError("\(path): not a HAR file, a capture or a session (\(error))")
        }
    }

    /// Loads every flow of an open session (of the fleet store, for `--store`), shown as `shown`.
    public static func load(session store: any SessionStoring, shown: String) throws(LoadError) -> Loaded {
        do {
            return Loaded(flows: try store.flows(), source: "session \(shown)", warnings: [])
        } catch {
            throw LoadError("\(error)")
        }
    }

    static func loadSession(_ name: String, currentDirectory: String) throws(LoadError) -> Loaded {
        do {
            let directory = try SessionStore.resolve(session: name, currentDirectory: currentDirectory)
            guard FileManager.default.fileExists(atPath: directory + "/" + SessionStore.databaseFileName) else {
                throw LoadError("\(name): no such session (no \(SessionStore.databaseFileName) in \(directory))")
            }
            let store = try SessionStore(directory: directory, create: false)
            return Loaded(flows: try store.flows(), source: "session \((name as NSString).lastPathComponent)", warnings: [])
        } catch let e as LoadError {
            throw e
        } catch {
            throw LoadError("\(error)")
        }
    }

    /// The flows of `loaded` that `selection` names; throws naming the ids that do not exist.
    public static func select(_ selection: FlowSelection, from loaded: Loaded, shown: String) throws(LoadError) -> [Flow] {
        guard !selection.isAll else { return loaded.flows }
        let missing = selection.missing(from: Set(loaded.flows.map(\.id)))
        if !missing.isEmpty {
            let highest = loaded.flows.map(\.id).max() ?? 0
            throw LoadError("\(shown): no flow \(missing.map(String.init).joined(separator: ", ")) " +
                            "(it has \(loaded.flows.count) flow\(loaded.flows.count == 1 ? "" : "s"), ids 1-\(highest))")
        }
        return loaded.flows.filter { selection.contains($0.id) }
    }
}

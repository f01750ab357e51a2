import Foundation
import MouchardAudit
import MouchardStore

/// File helpers shared by the session commands: reading inputs and showing paths.
enum SessionFiles {
    static func absolute(_ path: String, currentDirectory: String) -> String {
        path.hasPrefix("/") ? path : (currentDirectory.hasSuffix("/") ? currentDirectory : currentDirectory + "/") + path
    }

    /// The bytes of `file`, or a `CLIError` naming it.
    static func read(_ file: String, currentDirectory: String) throws -> Data {
        let path = absolute(file, currentDirectory: currentDirectory)
        var isDir: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDir) else {
            throw CLIError("\(file): no such file")
        }
        guard !isDir.boolValue, let data = FileManager.default.contents(atPath: path) else {
            throw CLIError("\(file): cannot read")
        }
        return data
    }

    /// `path` relative to `currentDirectory` when it lies under it (`captures/x`), else as is.
    static func display(_ path: String, currentDirectory: String) -> String {
        SessionOpening.display(path, currentDirectory: currentDirectory)
    }

    /// Opens the session named on the command line; store errors name the file relative to the
    /// current directory (`captures/x/session.sqlite: ...`).
    static func openSession(_ session: String, io: CommandIO, create: Bool) throws -> SessionStore {
        try SessionOpening.open(session, currentDirectory: io.currentDirectory, create: create)
    }

    /// Runs `body`, turning a `StoreError` into an error that names the file relative to the current directory.
    static func clarifying<T>(_ io: CommandIO, _ body: () throws -> T) throws -> T {
        try SessionOpening.clarifying(currentDirectory: io.currentDirectory, body)
    }
}

import Foundation
import MouchardStore

/// Opening a session named by the user (a folder or a name under `captures/`), with store errors
/// naming the file relative to the current directory (`captures/x/session.sqlite: ...`).
public enum SessionOpening {
    public static func open(_ session: String, currentDirectory: String, create: Bool) throws -> SessionStore {
        let directory = try clarifying(currentDirectory: currentDirectory) { () throws(StoreError) in
            try SessionStore.resolve(session: session, currentDirectory: currentDirectory)
        }
        return try clarifying(currentDirectory: currentDirectory) { () throws(StoreError) in
            try SessionStore(directory: directory, create: create)
        }
    }

    /// Runs `body`, turning a `StoreError` into an `AuditError` that names the file relative to
    /// `currentDirectory`.
    public static func clarifying<T>(currentDirectory: String, _ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch let error as StoreError {
            throw AuditError("\(display(error.file, currentDirectory: currentDirectory)): \(error.message)")
        }
    }

    /// `path` relative to `currentDirectory` when it lies under it (`captures/x`), else as is.
    public static func display(_ path: String, currentDirectory: String) -> String {
        let base = currentDirectory.hasSuffix("/") ? currentDirectory : currentDirectory + "/"
        return path.hasPrefix(base) ? String(path.dropFirst(base.count)) : path
    }
}

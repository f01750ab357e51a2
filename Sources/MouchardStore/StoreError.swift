/// Why a session could not be opened, read or written: the file at fault and one clear sentence.
public struct StoreError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The session database (or folder) concerned.
    public var file: String
    public var message: String
    /// The SQLite result code, when SQLite reported the failure.
    public var sqliteCode: Int32?

    public init(file: String, message: String, sqliteCode: Int32? = nil) {
        self.file = file
        self.message = message
        self.sqliteCode = sqliteCode
    }

    /// `captures/x/session.sqlite: not a Mouchard session database (file is not a database)`.
    public var description: String { "\(file): \(message)" }
}

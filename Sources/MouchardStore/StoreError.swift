/// Why a session could not be opened, read or written: the file (or database) at fault and one clear sentence.
public struct StoreError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The session database (or folder) concerned; for the fleet store, its URL without the password.
    public var file: String
    public var message: String
    /// The SQLite result code, when SQLite reported the failure.
    public var sqliteCode: Int32?
    /// The SQLSTATE, when PostgreSQL (or libpq, for a lost connection) reported the failure.
    public var sqlState: String?

    public init(file: String, message: String, sqliteCode: Int32? = nil, sqlState: String? = nil) {
        self.file = file
        self.message = message
        self.sqliteCode = sqliteCode
        self.sqlState = sqlState
    }

    /// `captures/x/session.sqlite: not a Mouchard session database (file is not a database)`.
    public var description: String { "\(file): \(message)" }

    /// The fleet database could not be reached, or the connection broke: worth trying again later
    /// (SQLSTATE classes 08, connection exception, and 57P, operator intervention: shutdown, crash, starting up).
    public var isConnectionFailure: Bool {
        guard let s = sqlState else { return false }
        return s.hasPrefix("08") || s.hasPrefix("57P")
    }
}

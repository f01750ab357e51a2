import CSQLite

/// A value bound to or read from an SQL statement (of SQLite or, through the fleet store, PostgreSQL).
public enum SQLValue: Sendable, Hashable {
    case null
    case integer(Int64)
    case real(Double)
    case text(String)
    case blob([UInt8])
}

/// One SQLite connection (the only place that calls the SQLite C API). Not thread-safe by itself:
/// `SessionStore` owns one behind a mutex. Prepared statements are cached by their SQL text.
final class SQLiteConnection {
    let path: String
    private var handle: OpaquePointer?
    private var statements: [String: SQLiteStatement] = [:]

    /// Opens (or creates, when `create`) the database file. Waits up to `busyTimeoutMs` for locks.
    init(path: String, create: Bool, busyTimeoutMs: Int32 = 10_000) throws(StoreError) {
        self.path = path
        var db: OpaquePointer?
        let flags = SQLITE_OPEN_READWRITE | (create ? SQLITE_OPEN_CREATE : 0) | SQLITE_OPEN_NOMUTEX
        let rc = sqlite3_open_v2(path, &db, flags, nil)
        handle = db
        guard rc == SQLITE_OK else {
            let message = db.map { String(cString: sqlite3_errmsg($0)) } ?? String(cString: sqlite3_errstr(rc))
            sqlite3_close_v2(db)
            handle = nil
            throw StoreError(file: path, message: "cannot open (\(message))", sqliteCode: rc)
        }
        sqlite3_busy_timeout(db, busyTimeoutMs)
        sqlite3_extended_result_codes(db, 1)
    }

    deinit {
        statements.removeAll()
        sqlite3_close_v2(handle)
    }

    func error(_ what: String, code: Int32) -> StoreError {
        let detail = handle.map { String(cString: sqlite3_errmsg($0)) } ?? String(cString: sqlite3_errstr(code))
        return StoreError(file: path, message: "\(what) (\(detail))", sqliteCode: code)
    }

    /// Runs one or more statements that return no rows we need.
    func execute(_ sql: String) throws(StoreError) {
        let rc = sqlite3_exec(handle, sql, nil, nil, nil)
        guard rc == SQLITE_OK else { throw error("cannot run \(sql.prefix(60))", code: rc) }
    }

    /// A prepared statement for `sql`, reset and ready to bind (cached).
    func statement(_ sql: String) throws(StoreError) -> SQLiteStatement {
        if let s = statements[sql] {
            s.reset()
            return s
        }
        var stmt: OpaquePointer?
        let rc = sqlite3_prepare_v3(handle, sql, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &stmt, nil)
        guard rc == SQLITE_OK, let stmt else { throw error("cannot prepare \(sql.prefix(60))", code: rc) }
        let s = SQLiteStatement(stmt, connection: self)
        statements[sql] = s
        return s
    }

    /// Runs `sql` with `values` bound and returns the rows, each read by `row`.
    func query<T>(_ sql: String, _ values: [SQLValue] = [],
                  row: (SQLiteStatement) throws(StoreError) -> T) throws(StoreError) -> [T] {
        let s = try statement(sql)
        defer { s.reset() }
        try s.bind(values)
        var out: [T] = []
        while try s.step() { out.append(try row(s)) }
        return out
    }

    /// Runs `sql` with `values` bound and hands each row to `row` until it returns false (rows are
    /// not collected: for reading a bounded amount of large rows).
    func each(_ sql: String, _ values: [SQLValue] = [], row: (SQLiteStatement) throws(StoreError) -> Bool) throws(StoreError) {
        let s = try statement(sql)
        defer { s.reset() }
        try s.bind(values)
        while try s.step() {
            if try !row(s) { return }
        }
    }

    /// Runs a statement that returns no rows.
    func run(_ sql: String, _ values: [SQLValue] = []) throws(StoreError) {
        let s = try statement(sql)
        defer { s.reset() }
        try s.bind(values)
        while try s.step() {}
    }

    /// The first column of the first row as an integer (0 when there is no row).
    func scalar(_ sql: String, _ values: [SQLValue] = []) throws(StoreError) -> Int64 {
        try query(sql, values) { s throws(StoreError) in s.int64(0) }.first ?? 0
    }

    var lastInsertRowID: Int64 { sqlite3_last_insert_rowid(handle) }

    /// Runs `body` in an immediate (write-locking) transaction: committed when it returns, rolled back when it throws.
    func transaction<T>(_ body: () throws(StoreError) -> T) throws(StoreError) -> T {
        try execute("BEGIN IMMEDIATE")
        do {
            let result = try body()
            try execute("COMMIT")
            return result
        } catch {
            _ = sqlite3_exec(handle, "ROLLBACK", nil, nil, nil)
            throw error
        }
    }
}

/// A prepared statement: bind, step, read columns (0-based), reset.
final class SQLiteStatement: StoreRow {
    private let stmt: OpaquePointer
    private unowned let connection: SQLiteConnection

    init(_ stmt: OpaquePointer, connection: SQLiteConnection) {
        self.stmt = stmt
        self.connection = connection
    }

    deinit { sqlite3_finalize(stmt) }

    func reset() {
        sqlite3_reset(stmt)
        sqlite3_clear_bindings(stmt)
    }

    /// SQLite's "copy the bytes now" destructor (SQLITE_TRANSIENT, a macro Swift cannot import).
    private static var transient: sqlite3_destructor_type { unsafeBitCast(-1, to: sqlite3_destructor_type.self) }

    func bind(_ values: [SQLValue]) throws(StoreError) {
        for (k, v) in values.enumerated() {
            let i = Int32(k + 1)
            let rc: Int32
            switch v {
            case .null: rc = sqlite3_bind_null(stmt, i)
            case .integer(let n): rc = sqlite3_bind_int64(stmt, i, n)
            case .real(let d): rc = sqlite3_bind_double(stmt, i, d)
            case .text(let s):
                let bytes = Array(s.utf8)
                if bytes.isEmpty {
                    rc = sqlite3_bind_text(stmt, i, "", 0, Self.transient)
                } else {
                    rc = bytes.withUnsafeBytes { buf in
                        sqlite3_bind_text64(stmt, i, buf.baseAddress?.assumingMemoryBound(to: CChar.self),
                                            sqlite3_uint64(buf.count), Self.transient, UInt8(SQLITE_UTF8))
                    }
                }
            case .blob(let b):
                rc = b.isEmpty ? sqlite3_bind_zeroblob(stmt, i, 0)
                    : b.withUnsafeBytes { sqlite3_bind_blob64(stmt, i, $0.baseAddress, sqlite3_uint64($0.count), Self.transient) }
            }
            guard rc == SQLITE_OK else { throw connection.error("cannot bind parameter \(i)", code: rc) }
        }
    }

    /// Steps once: true when a row is available.
    func step() throws(StoreError) -> Bool {
        let rc = sqlite3_step(stmt)
        if rc == SQLITE_ROW { return true }
        if rc == SQLITE_DONE { return false }
        throw connection.error("query failed", code: rc)
    }

    func isNull(_ c: Int32) -> Bool { sqlite3_column_type(stmt, c) == SQLITE_NULL }
    func int64(_ c: Int32) -> Int64 { sqlite3_column_int64(stmt, c) }
    func double(_ c: Int32) -> Double { sqlite3_column_double(stmt, c) }

    /// The column as it is stored (for copying rows to another database without decoding them).
    func value(_ c: Int32) -> SQLValue {
        switch sqlite3_column_type(stmt, c) {
        case SQLITE_NULL: return .null
        case SQLITE_INTEGER: return .integer(int64(c))
        case SQLITE_FLOAT: return .real(double(c))
        case SQLITE_BLOB: return .blob(blob(c))
        default: return .text(text(c))
        }
    }

    func text(_ c: Int32) -> String {
        guard let p = sqlite3_column_text(stmt, c) else { return "" }
        let n = Int(sqlite3_column_bytes(stmt, c))
        return String(decoding: UnsafeBufferPointer(start: p, count: n), as: UTF8.self)
    }

    func blob(_ c: Int32) -> [UInt8] {
        guard let p = sqlite3_column_blob(stmt, c) else { return [] }
        let n = Int(sqlite3_column_bytes(stmt, c))
        return [UInt8](UnsafeRawBufferPointer(start: p, count: n))
    }
}

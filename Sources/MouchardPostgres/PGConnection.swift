import Foundation
import CLibpq
import MouchardStore

/// One PostgreSQL connection: the only place that calls libpq. Not thread-safe by itself: the fleet
/// store owns one behind a mutex, the uploader its own. Query parameters go as text (nil is NULL; the
/// SQL casts them: `$1::uuid`); results come back in binary and are read by `PGRow`.
final class PGConnection {
    /// The database as messages name it: the URL without its password.
    let display: String
    private var handle: OpaquePointer?

    /// Seconds libpq waits for a connection when the URL does not say (`connect_timeout`).
    static let defaultConnectTimeoutSeconds = 10
    /// The largest piece of COPY data handed to libpq at once (its length is a C int).
    static let copyChunkBytes = 1 << 20

    /// Connects to `url` (`postgresql://user@host:port/db?...`, or any libpq connection string;
    /// the password may also come from PGPASSWORD or ~/.pgpass).
    init(url: String) throws(StoreError) {
        display = PostgresURL.masked(url)
        // Later keywords win, and the URL's own settings are expanded from `dbname`: the URL may
        // override the defaults given first. TCP keepalives and a send timeout notice a server that
        // went away without closing the connection (about 30 s; not used on Unix sockets).
        let settings = [("connect_timeout", String(Self.defaultConnectTimeoutSeconds)), ("application_name", "mouchard"),
                        ("keepalives", "1"), ("keepalives_idle", "10"), ("keepalives_interval", "5"), ("keepalives_count", "3"),
                        ("tcp_user_timeout", "30000"), ("dbname", url)]
        handle = CStrings.with(settings.map(\.0)) { keywords in
            CStrings.with(settings.map(\.1)) { values in PQconnectdbParams(keywords, values, 1) }
        }
        guard let handle, PQstatus(handle) == CONNECTION_OK else {
            let reason = Self.firstLine(handle.flatMap { PQerrorMessage($0) }.map { String(cString: $0) } ?? "out of memory")
            PQfinish(handle)
            self.handle = nil
            throw StoreError(file: display, message: "cannot connect (\(reason))", sqlState: "08001")
        }
        // NOTICEs (CREATE ... IF NOT EXISTS of what exists) are not errors: they are not printed.
        PQsetNoticeProcessor(handle, { _, _ in }, nil)
    }

    deinit { PQfinish(handle) }

    /// False once the server went away or the connection broke.
    var isOpen: Bool { handle.map { PQstatus($0) == CONNECTION_OK } ?? false }

    /// Runs one or more statements without parameters (their rows, if any, are dropped).
    func execute(_ sql: String) throws(StoreError) {
        _ = try check(PQexec(handle, sql), sql)
    }

    /// Runs one statement with text parameters; the rows come back in binary.
    @discardableResult
    func query(_ sql: String, _ parameters: [String?] = []) throws(StoreError) -> PGResult {
        let raw = CStrings.withOptional(parameters) { values in
            PQexecParams(handle, sql, Int32(parameters.count), nil, values, nil, nil, 1)
        }
        return try check(raw, sql)
    }

    /// Runs `COPY ... FROM STDIN` (`sql`) and sends `data` (in the format the statement names).
    func copyIn(_ sql: String, data: [UInt8]) throws(StoreError) {
        let start = PQexec(handle, sql)
        guard PQresultStatus(start) == PGRES_COPY_IN else {
            _ = try check(start, sql)
            throw StoreError(file: display, message: "\(Self.what(sql)) did not start a COPY")
        }
        PQclear(start)
        var sent = true
        data.withUnsafeBufferPointer { buffer in
            var offset = 0
            while offset < buffer.count, sent {
                let n = min(Self.copyChunkBytes, buffer.count - offset)
                let base = UnsafeRawPointer(buffer.baseAddress! + offset).assumingMemoryBound(to: CChar.self)
                sent = PQputCopyData(handle, base, Int32(n)) == 1
                offset += n
            }
        }
        if sent { sent = PQputCopyEnd(handle, nil) == 1 }
        // The COPY's outcome, then the end of its results.
        var failure: StoreError?
        while let r = PQgetResult(handle) {
            if failure == nil, PQresultStatus(r) != PGRES_COMMAND_OK { failure = error(r, sql) }
            PQclear(r)
        }
        if let failure { throw failure }
        if !sent { throw error(nil, sql) }
    }

    /// Runs `body` in a transaction: committed when it returns, rolled back when it throws.
    func transaction<T>(_ body: () throws(StoreError) -> T) throws(StoreError) -> T {
        try execute("BEGIN")
        do {
            let result = try body()
            try execute("COMMIT")
            return result
        } catch {
            if isOpen { PQclear(PQexec(handle, "ROLLBACK")) }
            throw error
        }
    }

    /// The result when it succeeded; else the error, the result freed.
    private func check(_ raw: OpaquePointer?, _ sql: String) throws(StoreError) -> PGResult {
        if let raw {
            let status = PQresultStatus(raw)
            if status == PGRES_COMMAND_OK || status == PGRES_TUPLES_OK { return PGResult(raw) }
        }
        let failure = error(raw, sql)
        PQclear(raw)
        throw failure
    }

    /// The server's primary message and SQLSTATE, or libpq's message for a broken connection
    /// (SQLSTATE 08006, so that callers know to reconnect).
    private func error(_ raw: OpaquePointer?, _ sql: String) -> StoreError {
        func field(_ code: UInt8) -> String? {
            raw.flatMap { PQresultErrorField($0, Int32(code)) }.map { String(cString: $0) }
        }
        var state = field(UInt8(ascii: "C"))
        var message = field(UInt8(ascii: "M"))
        if !isOpen {
            state = state ?? "08006"
            message = message ?? handle.flatMap { PQerrorMessage($0) }.map { Self.firstLine(String(cString: $0)) }
        }
        return StoreError(file: display, message: "\(Self.what(sql)) failed (\(message ?? "unknown error"))", sqlState: state)
    }

    /// The statement, shortened for a message.
    private static func what(_ sql: String) -> String {
        let flat = sql.split(whereSeparator: \.isWhitespace).joined(separator: " ")
        return flat.count > 60 ? String(flat.prefix(57)) + "..." : flat
    }

    private static func firstLine(_ s: String) -> String {
        let line = s.split(whereSeparator: \.isNewline).first.map(String.init) ?? s
        return line.trimmingCharacters(in: .whitespaces)
    }
}

/// C string arrays for libpq calls, valid while the body runs.
enum CStrings {
    static func with<R>(_ strings: [String], _ body: (UnsafePointer<UnsafePointer<CChar>?>) -> R) -> R {
        withOptional(strings.map { Optional($0) }) { body($0!) }
    }

    /// NULL entries stay NULL; an empty array gives a NULL pointer.
    static func withOptional<R>(_ strings: [String?], _ body: (UnsafePointer<UnsafePointer<CChar>?>?) -> R) -> R {
        let copies: [UnsafeMutablePointer<CChar>?] = strings.map { $0.flatMap { strdup($0) } }
        defer { for c in copies { free(c) } }
        var pointers = copies.map { UnsafePointer($0) }
        pointers.append(nil)
        return pointers.withUnsafeBufferPointer { body(strings.isEmpty ? nil : $0.baseAddress) }
    }
}

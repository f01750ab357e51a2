/// The session database schema, versioned with `PRAGMA user_version` and migrated on open.
///
/// `migrations[k]` brings a database from version k to k+1; a new version appends one entry
/// (never edits an old one). A database newer than this build is refused rather than damaged.
enum StoreSchema {
    /// `PRAGMA application_id` of a Mouchard session ("MOUC"), so other SQLite files are recognized.
    static let applicationID: Int64 = 0x4D4F_5543

    static let migrations: [String] = [v1, v2]

    static var latestVersion: Int { migrations.count }

    /// Version 1: session metadata, flows (heads, bodies as BLOBs), findings (JSON), DNS observations.
    static let v1 = """
    CREATE TABLE session (
        key TEXT PRIMARY KEY NOT NULL,
        value TEXT NOT NULL
    ) WITHOUT ROWID;
    CREATE TABLE flows (
        id INTEGER PRIMARY KEY,
        source TEXT NOT NULL,
        transport TEXT NOT NULL,
        started REAL NOT NULL,
        t_blocked REAL, t_dns REAL, t_connect REAL, t_ssl REAL, t_send REAL, t_wait REAL, t_receive REAL,
        client_address TEXT, client_port INTEGER,
        server_address TEXT, server_port INTEGER,
        has_tls INTEGER NOT NULL, tls_server_name TEXT, tls_alpn TEXT, tls_version TEXT,
        error TEXT,
        extras TEXT,
        host TEXT NOT NULL,
        url TEXT,
        req_method TEXT, req_target TEXT, req_version TEXT, req_scheme TEXT, req_fallback_authority TEXT,
        req_headers BLOB, req_body BLOB, req_body_truncated INTEGER,
        resp_status INTEGER, resp_reason TEXT, resp_version TEXT,
        resp_headers BLOB, resp_body BLOB, resp_body_truncated INTEGER
    );
    CREATE INDEX flows_host ON flows(host);
    CREATE TABLE findings (
        id INTEGER PRIMARY KEY,
        flow INTEGER,
        category TEXT NOT NULL,
        type TEXT NOT NULL,
        rule TEXT NOT NULL,
        host TEXT NOT NULL,
        json TEXT NOT NULL
    );
    CREATE INDEX findings_flow ON findings(flow);
    CREATE TABLE dns (
        id INTEGER PRIMARY KEY,
        time REAL NOT NULL,
        name TEXT NOT NULL,
        query_type TEXT NOT NULL,
        addresses TEXT NOT NULL,
        cnames TEXT NOT NULL,
        client_address TEXT, client_port INTEGER,
        server_address TEXT, server_port INTEGER
    );
    CREATE INDEX dns_name ON dns(name);
    """

    /// Version 2: WebSocket messages (one row each, bytes as sent after unmasking and inflating) and,
    /// per flow, the protocol its messages speak (`websocket`, `grpc`, `grpc-web`, `sse`) with the
    /// message counts of each direction, for listings that read no bodies.
    static let v2 = """
    CREATE TABLE messages (
        flow INTEGER NOT NULL,
        seq INTEGER NOT NULL,
        direction TEXT NOT NULL,
        time REAL NOT NULL,
        opcode INTEGER NOT NULL,
        data BLOB NOT NULL,
        compressed INTEGER NOT NULL,
        truncated INTEGER NOT NULL,
        PRIMARY KEY (flow, seq)
    ) WITHOUT ROWID;
    ALTER TABLE flows ADD COLUMN protocol TEXT;
    ALTER TABLE flows ADD COLUMN client_messages INTEGER;
    ALTER TABLE flows ADD COLUMN server_messages INTEGER;
    """

    /// Brings `db` to the last version of `migrations`, in one write transaction
    /// (a concurrent opener waits, then finds the work done).
    static func migrate(_ db: SQLiteConnection, migrations: [String] = migrations) throws(StoreError) {
        let latest = migrations.count
        let seen = try db.scalar("PRAGMA user_version")
        if seen == latest, try db.scalar("PRAGMA application_id") == applicationID { return }
        try db.transaction { () throws(StoreError) in
            let version = Int(try db.scalar("PRAGMA user_version"))
            let appID = try db.scalar("PRAGMA application_id")
            if appID != 0, appID != applicationID {
                throw StoreError(file: db.path, message: "not a Mouchard session database (application id \(appID))")
            }
            // user_version is a signed 32-bit header field: a damaged file can hold a negative one.
            if version < 0 {
                throw StoreError(file: db.path, message:
                    "the session database is damaged (schema version \(version) is negative)")
            }
            if version > latest {
                throw StoreError(file: db.path, message:
                    "made by a newer Mouchard (schema version \(version); this build knows up to \(latest))")
            }
            if version == 0 {
                let tables = try db.scalar("SELECT count(*) FROM sqlite_master")
                if tables > 0, appID != applicationID {
                    throw StoreError(file: db.path, message: "not a Mouchard session database (it holds other tables)")
                }
            }
            if appID != applicationID { try db.execute("PRAGMA application_id = \(applicationID)") }
            for v in version..<latest {
                try db.execute(migrations[v])
                try db.execute("PRAGMA user_version = \(v + 1)")
            }
        }
    }
}

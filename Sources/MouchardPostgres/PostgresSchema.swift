import MouchardStore

/// The fleet store's schema, in the PostgreSQL schema `mouchard`, versioned in
/// `mouchard.schema_version` and migrated on first use: `migrations[k]` brings version k to k+1; a new
/// version appends one entry (an old one is never edited). A database whose version is newer than
/// this build is refused before anything is written.
///
/// Tables: `sessions` (one row per recorded session: app, version, device, gateway, start and end,
/// counters and upload positions), `metadata` (its key/value pairs), and, partitioned by month of
/// the session's start (`session_start`, so that a session lies in one partition and old months are
/// dropped whole), `flows` (the columns of the local `flows` table), `messages` (the WebSocket,
/// gRPC and SSE messages of flows, as the local `messages` table), `findings`, `dns` and
/// `destinations` (per session and host: flows, bytes, findings, company). Partitions are created
/// on demand by `mouchard.ensure_month`.
enum PostgresSchema {
    static let schema = "mouchard"

    static let migrations: [String] = [v1, v2, v3]

    static var latestVersion: Int { migrations.count }

    /// Version 1.
    static let v1 = """
    CREATE TABLE mouchard.sessions (
        id uuid PRIMARY KEY,
        name text NOT NULL,
        app text, app_version text, device text, gateway text, source text, tool_version text,
        started timestamptz NOT NULL,
        ended timestamptz,
        flows bigint NOT NULL DEFAULT 0,
        findings bigint NOT NULL DEFAULT 0,
        dns bigint NOT NULL DEFAULT 0,
        last_flow bigint NOT NULL DEFAULT 0,
        last_finding bigint NOT NULL DEFAULT 0,
        last_dns bigint NOT NULL DEFAULT 0,
        uploaded timestamptz
    );
    CREATE INDEX sessions_app ON mouchard.sessions (app, app_version, started);
    CREATE INDEX sessions_started ON mouchard.sessions (started);
    CREATE INDEX sessions_name ON mouchard.sessions (name);
    CREATE TABLE mouchard.metadata (
        session_id uuid NOT NULL REFERENCES mouchard.sessions (id) ON DELETE CASCADE,
        key text NOT NULL,
        value text NOT NULL,
        PRIMARY KEY (session_id, key)
    );
    CREATE TABLE mouchard.flows (
        session_id uuid NOT NULL,
        session_start timestamptz NOT NULL,
        id bigint NOT NULL,
        source text NOT NULL,
        transport text NOT NULL,
        started double precision NOT NULL,
        t_blocked double precision, t_dns double precision, t_connect double precision, t_ssl double precision,
        t_send double precision, t_wait double precision, t_receive double precision,
        client_address text, client_port integer,
        server_address text, server_port integer,
        has_tls boolean NOT NULL, tls_server_name text, tls_alpn text, tls_version text,
        error text,
        extras text,
        host text NOT NULL,
        url text,
        req_method text, req_target text, req_version text, req_scheme text, req_fallback_authority text,
        req_headers bytea, req_body bytea, req_body_truncated boolean,
        resp_status integer, resp_reason text, resp_version text,
        resp_headers bytea, resp_body bytea, resp_body_truncated boolean,
        protocol text, client_messages integer, server_messages integer,
        PRIMARY KEY (session_id, id, session_start)
    ) PARTITION BY RANGE (session_start);
    CREATE TABLE mouchard.findings (
        session_id uuid NOT NULL,
        session_start timestamptz NOT NULL,
        id bigint NOT NULL,
        flow bigint,
        category text NOT NULL,
        type text NOT NULL,
        rule text NOT NULL,
        host text NOT NULL,
        json json NOT NULL,
        company text,
        owner text,
        tracker_category text,
        third_party boolean,
        PRIMARY KEY (session_id, id, session_start)
    ) PARTITION BY RANGE (session_start);
    CREATE INDEX findings_category ON mouchard.findings (category, company);
    CREATE TABLE mouchard.dns (
        session_id uuid NOT NULL,
        session_start timestamptz NOT NULL,
        id bigint NOT NULL,
        time double precision NOT NULL,
        name text NOT NULL,
        query_type text NOT NULL,
        addresses text NOT NULL,
        cnames text NOT NULL,
        client_address text, client_port integer,
        server_address text, server_port integer,
        PRIMARY KEY (session_id, id, session_start)
    ) PARTITION BY RANGE (session_start);
    CREATE INDEX dns_name ON mouchard.dns (name);
    CREATE TABLE mouchard.destinations (
        session_id uuid NOT NULL,
        session_start timestamptz NOT NULL,
        host text NOT NULL,
        flows bigint NOT NULL DEFAULT 0,
        first_seen double precision,
        last_seen double precision,
        request_bytes bigint NOT NULL DEFAULT 0,
        response_bytes bigint NOT NULL DEFAULT 0,
        findings bigint NOT NULL DEFAULT 0,
        company text,
        PRIMARY KEY (session_id, host, session_start)
    ) PARTITION BY RANGE (session_start);
    CREATE INDEX destinations_host ON mouchard.destinations (host);
    CREATE FUNCTION \(ensureMonth(tables: ["flows", "findings", "dns", "destinations"]))
    """

    /// Version 2: the messages of flows (`messages`, partitioned like `flows`, with partitions for
    /// the months that already have flows), and `ensure_month` making its partitions too.
    static let v2 = """
    CREATE TABLE mouchard.messages (
        session_id uuid NOT NULL,
        session_start timestamptz NOT NULL,
        flow bigint NOT NULL,
        seq integer NOT NULL,
        direction text NOT NULL,
        time double precision NOT NULL,
        opcode integer NOT NULL,
        data bytea NOT NULL,
        compressed boolean NOT NULL,
        truncated boolean NOT NULL,
        PRIMARY KEY (session_id, flow, seq, session_start)
    ) PARTITION BY RANGE (session_start);
    DO $do$
    DECLARE
        part record;
    BEGIN
        FOR part IN SELECT c.relname, pg_get_expr(c.relpartbound, c.oid) AS bound
                    FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
                    WHERE i.inhparent = 'mouchard.flows'::regclass LOOP
            EXECUTE format('CREATE TABLE mouchard.%I PARTITION OF mouchard.messages %s',
                           'messages' || substr(part.relname, length('flows') + 1), part.bound);
        END LOOP;
    END
    $do$;
    CREATE OR REPLACE FUNCTION \(ensureMonth(tables: ["flows", "findings", "dns", "destinations", "messages"]))
    """

    /// Version 3: no index on `findings (category, company)`. No fleet query reads findings
    /// through it (they join the sessions selected on the primary key's `session_id`), and every
    /// uploaded finding paid for its entry.
    static let v3 = """
    DROP INDEX IF EXISTS mouchard.findings_category;
    """

    /// Columns no query filters on, per table: their partitions keep no statistics for them
    /// (ANALYZE would sort bodies and JSON for nothing).
    static let unfilteredColumns: KeyValuePairs<String, [String]> = [
        "flows": ["req_headers", "req_body", "resp_headers", "resp_body", "extras", "url", "req_target", "error", "tls_alpn"],
        "findings": ["json"],
        "dns": ["addresses", "cnames"],
        "messages": ["data"],
    ]

    /// `mouchard.ensure_month(start)` (after `CREATE FUNCTION`): creates the month's partition of
    /// each of `tables`, the last one last, so that when the last exists the function returns at once
    /// without taking the lock.
    static func ensureMonth(tables: [String]) -> String {
        let statistics = unfilteredColumns.filter { tables.contains($0.key) }.map { table, columns in
            "            WHEN '\(table)' THEN ARRAY[\(columns.map { "'\($0)'" }.joined(separator: ", "))]\n"
        }.joined()
        return """
        mouchard.ensure_month(start timestamptz) RETURNS void LANGUAGE plpgsql AS $fn$
        DECLARE
            first timestamp := date_trunc('month', start AT TIME ZONE 'UTC');
            suffix text := to_char(first, 'YYYY_MM');
            t text;
            c text;
        BEGIN
            IF to_regclass(format('mouchard.%I', '\(tables.last!)_' || suffix)) IS NOT NULL THEN
                RETURN;
            END IF;
            PERFORM pg_advisory_xact_lock(hashtext('mouchard.ensure_month'));
            FOREACH t IN ARRAY ARRAY[\(tables.map { "'\($0)'" }.joined(separator: ", "))] LOOP
                IF to_regclass(format('mouchard.%I', t || '_' || suffix)) IS NULL THEN
                    EXECUTE format('CREATE TABLE mouchard.%I PARTITION OF mouchard.%I FOR VALUES FROM (%L) TO (%L)',
                                   t || '_' || suffix, t, first AT TIME ZONE 'UTC', (first + interval '1 month') AT TIME ZONE 'UTC');
                    FOREACH c IN ARRAY CASE t
        \(statistics)                ELSE ARRAY[]::text[] END LOOP
                        EXECUTE format('ALTER TABLE mouchard.%I ALTER COLUMN %I SET STATISTICS 0', t || '_' || suffix, c);
                    END LOOP;
                END IF;
            END LOOP;
        END
        $fn$;
        """
    }

    /// The PostgreSQL type of each column of `FlowRow.columns` in `mouchard.flows` (binary COPY
    /// needs the exact type); a column not listed is text.
    static let flowColumnTypes: [String: PGType] = [
        "id": .int8, "started": .float8,
        "t_blocked": .float8, "t_dns": .float8, "t_connect": .float8, "t_ssl": .float8, "t_send": .float8,
        "t_wait": .float8, "t_receive": .float8,
        "client_port": .int4, "server_port": .int4, "has_tls": .bool,
        "req_headers": .bytea, "req_body": .bytea, "req_body_truncated": .bool,
        "resp_status": .int4, "resp_headers": .bytea, "resp_body": .bytea, "resp_body_truncated": .bool,
        "client_messages": .int4, "server_messages": .int4,
    ]
    /// Likewise for `mouchard.findings` (the id, `FindingRow.columns`, then `FindingColumns.names`).
    static let findingColumnTypes: [String: PGType] = ["id": .int8, "flow": .int8, "json": .json, "third_party": .bool]
    /// Likewise for `mouchard.messages` (`FlowRow.messageColumns`).
    static let messageColumnTypes: [String: PGType] = [
        "flow": .int8, "seq": .int4, "time": .float8, "opcode": .int4, "data": .bytea, "compressed": .bool, "truncated": .bool,
    ]
    /// Likewise for `mouchard.dns` (the id, then `DNSRow.columns`).
    static let dnsColumnTypes: [String: PGType] = ["id": .int8, "time": .float8, "client_port": .int4, "server_port": .int4]

    /// The key PostgreSQL advisory locks of migrations are taken on (any constant unlikely to clash).
    static let migrationLock: Int64 = 0x4D4F_5543_0001

    /// Brings the database to the latest version in one transaction, under an advisory lock so that
    /// gateways starting together migrate once. Refuses a newer database.
    static func migrate(_ c: PGConnection, migrations: [String] = migrations) throws(StoreError) {
        let latest = migrations.count
        if let seen = try version(c), seen == latest { return }
        try c.transaction { () throws(StoreError) in
            try c.query("SELECT pg_advisory_xact_lock($1::bigint)", [String(migrationLock)])
            try c.execute("CREATE SCHEMA IF NOT EXISTS \(schema); CREATE TABLE IF NOT EXISTS \(schema).schema_version (version integer NOT NULL)")
            let result = try c.query("SELECT version FROM \(schema).schema_version")
            let current = result.first.map { $0.int(0) }
            if current == nil { try c.execute("INSERT INTO \(schema).schema_version VALUES (0)") }
            let version = current ?? 0
            if version > latest {
                throw StoreError(file: c.display, message:
                    "made by a newer Mouchard (fleet schema version \(version); this build knows up to \(latest))")
            }
            for v in version..<latest {
                try c.execute(migrations[v])
                try c.query("UPDATE \(schema).schema_version SET version = $1::integer", [String(v + 1)])
            }
        }
    }

    /// The database's schema version, nil when it has no Mouchard schema yet.
    static func version(_ c: PGConnection) throws(StoreError) -> Int? {
        let exists = try c.query("SELECT to_regclass('\(schema).schema_version') IS NOT NULL")
        guard exists.first?.int(0) == 1 else { return nil }
        return try c.query("SELECT version FROM \(schema).schema_version").first.map { $0.int(0) }
    }
}

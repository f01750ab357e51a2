import Foundation

/// A throw-away PostgreSQL server for the fleet store tests: a cluster made by `initdb` in a
/// temporary folder and run by `postgres` on a Unix socket only (no TCP port), with the Debian
/// `postgresql` package's binaries. PostgreSQL refuses to run as root, and CI runs the tests as
/// root: then the server runs as the `postgres` user (or `nobody`), through `setpriv`. Tests
/// that need it are skipped with `skipReason` when the binaries are missing.
///
/// `shared` is one server for the whole test process (stopped and removed at exit); a test that
/// kills its server makes its own.
public final class PostgresTestServer: @unchecked Sendable {
    /// The folder holding `initdb`, `postgres` and `psql` (the newest installed version), or nil.
    public static let binDirectory: String? = {
        let root = "/usr/lib/postgresql"
        let versions = ((try? FileManager.default.contentsOfDirectory(atPath: root)) ?? []).compactMap(Int.init).sorted()
        for v in versions.reversed() where FileManager.default.isExecutableFile(atPath: "\(root)/\(v)/bin/postgres") {
            return "\(root)/\(v)/bin"
        }
        return nil
    }()

    public static var isAvailable: Bool { binDirectory != nil }

    public static let skipReason = "needs the PostgreSQL server binaries (initdb, postgres: Debian postgresql, `make deps` installs it)"

    /// The database superuser the cluster is made with (trusted on the socket).
    public static let user = "mouchard"
    /// Only names the socket file (`.s.PGSQL.5432`): nothing listens on TCP.
    public static let port = 5432

    /// One server for the test process, started on first use; nil when it could not start (the
    /// error is in `sharedError`).
    public static let shared: PostgresTestServer? = {
        do {
            let server = try PostgresTestServer()
            atexit { PostgresTestServer.stopShared() }
            return server
        } catch {
            sharedStartError = "\(error)"
            return nil
        }
    }()

    nonisolated(unsafe) public private(set) static var sharedStartError: String?

    private static func stopShared() { shared?.stop(removing: true) }

    public let root: String
    public var dataDirectory: String { root + "/data" }
    public var socketDirectory: String { root + "/socket" }
    public var logFile: String { root + "/server.log" }
    private let owner: (uid: uid_t, gid: gid_t)?
    private var process: Process?

    /// Makes a cluster (`initdb`) in a new temporary folder and starts it.
    public init() throws {
        guard let bin = Self.binDirectory else { throw ServerError(Self.skipReason) }
        root = NSTemporaryDirectory() + "mouchard-pg-" + UUID().uuidString.prefix(8)
        owner = Self.serverAccount()
        for d in [root, socketDirectory] {
            try FileManager.default.createDirectory(atPath: d, withIntermediateDirectories: true,
                                                    attributes: [.posixPermissions: 0o700])
            if let owner { chown(d, owner.uid, owner.gid) }
        }
        try run(bin + "/initdb", ["-D", dataDirectory, "-U", Self.user, "--auth=trust", "--no-sync", "-E", "UTF8",
                                  "--locale=C"], asServer: true)
        try start()
    }

    deinit { stop(removing: true) }

    /// A connection URL for `database`.
    public func url(database: String = "postgres") -> String {
        "postgresql://\(Self.user)@/\(database)?host=\(socketDirectory)&port=\(Self.port)"
    }

    /// A new empty database, for a test of its own; its URL.
    public func freshDatabase() throws -> String {
        let name = "t_" + UUID().uuidString.replacingOccurrences(of: "-", with: "").prefix(16).lowercased()
        try psql("CREATE DATABASE \(name) TEMPLATE template0")
        return url(database: name)
    }

    /// The database a URL of `url(database:)` names.
    public static func database(in url: String) -> String {
        let path = url.split(separator: "?").first.map(String.init) ?? url
        return path.split(separator: "/").last.map(String.init) ?? "postgres"
    }

    /// Runs SQL with psql, as the superuser, on `database`; returns its unaligned output.
    @discardableResult
    public func psql(_ sql: String, database: String = "postgres") throws -> String {
        try run(Self.binDirectory! + "/psql", ["-X", "-q", "-A", "-t", "-v", "ON_ERROR_STOP=1", "-h", socketDirectory,
                                                "-p", String(Self.port), "-U", Self.user, "-d", database, "-c", sql])
    }

    /// Starts the server on the existing cluster and waits until it accepts connections (crash
    /// recovery included, after `kill`).
    public func start() throws {
        // After `kill`, the old backends may hold the shared memory for a moment: then postgres
        // exits at once, and is started again.
        let deadline = Date().addingTimeInterval(60)
        while true {
            do {
                return try startOnce(until: deadline)
            } catch let e as ServerError where e.exitedAtStart && Date() < deadline {
                usleep(200_000)
            }
        }
    }

    private func startOnce(until deadline: Date) throws {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: owner == nil ? Self.binDirectory! + "/postgres" : "/usr/bin/setpriv")
        var arguments = ["-D", dataDirectory, "-k", socketDirectory, "-p", String(Self.port), "-c", "listen_addresses=",
                         "-c", "fsync=off", "-c", "full_page_writes=off", "-c", "max_connections=60",
                         "-c", "shared_buffers=32MB", "-c", "log_min_messages=warning"]
        if let owner {
            arguments = Self.setprivArguments(owner) + [Self.binDirectory! + "/postgres"] + arguments
        }
        p.arguments = arguments
        _ = FileManager.default.createFile(atPath: logFile, contents: nil)
        if let owner { chown(logFile, owner.uid, owner.gid) }
        let log = FileHandle(forWritingAtPath: logFile)
        log?.seekToEndOfFile()
        p.standardOutput = log
        p.standardError = log
        try p.run()
        process = p
        while Date() < deadline {
            if !p.isRunning { throw ServerError("postgres exited at start: \(tail())", exitedAtStart: true) }
            if (try? psql("SELECT 1")) != nil { return }
            usleep(100_000)
        }
        throw ServerError("postgres did not accept connections within 60 s: \(tail())")
    }

    /// Kills the server at once (SIGKILL to the postmaster; its backends exit when they see it gone),
    /// as a crash or a pulled plug would; `start()` brings it back with crash recovery.
    public func kill() {
        if let pid = postmasterPID() { Foundation.kill(pid, SIGKILL) }
        process?.waitUntilExit()
        process = nil
    }

    /// Stops the server (fast shutdown) and, with `removing`, deletes its folder.
    public func stop(removing: Bool) {
        if let p = process, p.isRunning {
            if let pid = postmasterPID() { Foundation.kill(pid, SIGINT) }
            let deadline = Date().addingTimeInterval(10)
            while p.isRunning, Date() < deadline { usleep(50_000) }
            if p.isRunning, let pid = postmasterPID() { Foundation.kill(pid, SIGKILL) }
        }
        process = nil
        if removing { try? FileManager.default.removeItem(atPath: root) }
    }

    /// The postmaster's pid, from the first line of `postmaster.pid`.
    private func postmasterPID() -> pid_t? {
        guard let text = try? String(contentsOfFile: dataDirectory + "/postmaster.pid", encoding: .utf8),
              let first = text.split(separator: "\n").first else { return process.map { $0.processIdentifier } }
        return pid_t(first)
    }

    private func tail() -> String {
        let text = (try? String(contentsOfFile: logFile, encoding: .utf8)) ?? ""
        return text.split(separator: "\n").suffix(5).joined(separator: " | ")
    }

    /// Runs a program to its end (as the server's account with `asServer`); its output, or an error with it.
    @discardableResult
    private func run(_ program: String, _ arguments: [String], asServer: Bool = false) throws -> String {
        let p = Process()
        if asServer, let owner {
            p.executableURL = URL(fileURLWithPath: "/usr/bin/setpriv")
            p.arguments = Self.setprivArguments(owner) + [program] + arguments
        } else {
            p.executableURL = URL(fileURLWithPath: program)
            p.arguments = arguments
        }
        p.currentDirectoryURL = URL(fileURLWithPath: root)
        let out = Pipe()
        p.standardOutput = out
        p.standardError = out
        try p.run()
        let data = out.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        let text = String(decoding: data, as: UTF8.self)
        guard p.terminationStatus == 0 else {
            throw ServerError("\((program as NSString).lastPathComponent) failed (\(p.terminationStatus)): \(text.prefix(500))")
        }
        return text
    }

    /// Root runs the server as `postgres` (Debian's account), else `nobody`; anyone else as themselves.
    private static func serverAccount() -> (uid: uid_t, gid: gid_t)? {
        guard geteuid() == 0 else { return nil }
        for name in ["postgres", "nobody"] {
            if let pw = getpwnam(name) { return (pw.pointee.pw_uid, pw.pointee.pw_gid) }
        }
        return (65_534, 65_534)
    }

    private static func setprivArguments(_ owner: (uid: uid_t, gid: gid_t)) -> [String] {
        ["--reuid=\(owner.uid)", "--regid=\(owner.gid)", "--clear-groups", "--"]
    }

    public struct ServerError: Error, CustomStringConvertible {
        public var description: String
        var exitedAtStart = false
        public init(_ d: String, exitedAtStart: Bool = false) {
            description = d
            self.exitedAtStart = exitedAtStart
        }
    }
}

import Foundation

/// What a running gateway changed on the box, written before the first change so that a killed
/// run can be undone (`mouchard gateway --cleanup`): the plan, the sysctls' previous values and
/// the pid of the run. One file (`gateway.json`) in the state directory, mode 0600.
public struct GatewayState: Sendable, Hashable, Codable {
    public var pid: Int32
    public var started: Date
    public var plan: GatewayPlan
    /// Sysctls changed, with the values to put back.
    public var sysctls: [SysctlPlan.Change]
    /// True once the nft table was created (teardown deletes it in any case when it exists).
    public var tableCreated: Bool
    public var session: String?

    public init(pid: Int32, started: Date, plan: GatewayPlan, sysctls: [SysctlPlan.Change], tableCreated: Bool,
                session: String?) {
        self.pid = pid
        self.started = started
        self.plan = plan
        self.sysctls = sysctls
        self.tableCreated = tableCreated
        self.session = session
    }

    /// `/run/mouchard` (gone at reboot, like the rules and sysctls it describes), or
    /// `$MOUCHARD_GATEWAY_STATE_DIR`.
    public static func defaultDirectory(environment: [String: String] = ProcessInfo.processInfo.environment) -> String {
        environment["MOUCHARD_GATEWAY_STATE_DIR"].flatMap { $0.isEmpty ? nil : $0 } ?? "/run/mouchard"
    }

    public static let fileName = "gateway.json"

    public static func path(in directory: String) -> String { directory + "/" + fileName }

    public func save(in directory: String) throws {
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true,
                                                attributes: [.posixPermissions: 0o700])
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        encoder.dateEncodingStrategy = .iso8601
        let data = try encoder.encode(self)
        let path = Self.path(in: directory)
        let temporary = path + ".tmp"
        guard FileManager.default.createFile(atPath: temporary, contents: data, attributes: [.posixPermissions: 0o600]) else {
            throw GatewayError("cannot write the gateway state file \(temporary)")
        }
        guard rename(temporary, path) == 0 else { throw GatewayError("cannot write the gateway state file \(path)") }
    }

    /// The saved state, nil when there is none; throws when the file is unreadable or not ours.
    public static func load(from directory: String) throws -> GatewayState? {
        let path = Self.path(in: directory)
        guard FileManager.default.fileExists(atPath: path) else { return nil }
        guard let data = FileManager.default.contents(atPath: path) else { throw GatewayError("cannot read \(path)") }
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        do {
            return try decoder.decode(GatewayState.self, from: data)
        } catch {
            throw GatewayError("\(path) is not a Mouchard gateway state file (\(error)); remove it after checking `nft list table inet mouchard` and the sysctls by hand")
        }
    }

    public static func remove(from directory: String) {
        try? FileManager.default.removeItem(atPath: path(in: directory))
    }

    /// True while the process that wrote the state still runs.
    public var ownerIsAlive: Bool { pid > 0 && (kill(pid, 0) == 0 || errno == EPERM) }
}

/// A failure of the gateway's host set-up, with a sentence for the user.
public struct GatewayError: Error, CustomStringConvertible, Sendable {
    public var description: String
    public init(_ description: String) { self.description = description }
}

import Foundation
import MouchardPostgres
import MouchardStore
import MouchardTestSupport
import Testing

/// The two implementations of `SessionStoring` the contract cases run against: a local SQLite
/// session, and a session of the fleet store in the test PostgreSQL server.
enum StoreKind: String, CaseIterable, CustomTestStringConvertible, Sendable {
    case sqlite
    case postgres

    var testDescription: String { rawValue }

    /// The kinds this machine can run (PostgreSQL needs the server binaries: `PostgresContractTests`
    /// says so when they are missing).
    static var available: [StoreKind] { PostgresTestServer.isAvailable ? allCases : [.sqlite] }

    /// A new empty session of this kind; `cleanUp` removes what it made.
    func make() throws -> (store: any SessionStoring, cleanUp: @Sendable () -> Void) {
        switch self {
        case .sqlite:
            let tmp = TemporaryDirectory()
            return (try SessionStore(directory: tmp.path + "/s", create: true), { tmp.cleanUp() })
        case .postgres:
            let fleet = try FleetDatabase.shared()
            let store = try fleet.session(id: UUID().uuidString, name: "contract", started: Date())
            return (store, {})
        }
    }
}

/// The test server's database the contract cases share (each case has a session of its own).
enum FleetDatabase {
    private static let url: Result<String, any Error> = {
        guard let server = PostgresTestServer.shared else {
            return .failure(PostgresTestServer.ServerError(PostgresTestServer.sharedStartError ?? "no server"))
        }
        return Result { try server.freshDatabase() }
    }()

    static func sharedURL() throws -> String { try url.get() }

    static func shared() throws -> PostgresFleet { try PostgresFleet(url: try sharedURL()) }
}

import MouchardFindings
import MouchardFlow

/// One session's flows, findings, DNS answers and metadata, wherever they are kept: `SessionStore`
/// (a folder with an SQLite database, the default) or the fleet store's `PostgresSessionStore` (one
/// session among many in a PostgreSQL database). Writers and readers use this protocol; the store
/// test suite runs the same cases against both.
///
/// Flow ids: a flow appended with id 0 gets the next one (1, 2, 3...); a flow with an id keeps it,
/// and an id already stored is an error. Every method may be called from any thread.
///
/// Per-flow records added later (WebSocket messages) get an append and a read here, keyed by the
/// flow's id, and a table in both schemas.
public protocol SessionStoring: AnyObject, Sendable {
    /// Where the session is, as messages name it: its folder, or `postgresql://host/db session NAME`.
    var location: String { get }

    /// Stores one flow, committed before returning; returns its id.
    @discardableResult func append(_ flow: Flow) throws(StoreError) -> Int
    /// Stores several flows in one transaction (all or none); returns their ids.
    @discardableResult func append(flows: [Flow]) throws(StoreError) -> [Int]
    /// Stores findings in one transaction.
    func append(findings: [Finding]) throws(StoreError)
    /// Stores DNS observations in one transaction.
    func append(dns: [DNSObservation]) throws(StoreError)

    /// The flow with this id, or nil.
    func flow(id: Int) throws(StoreError) -> Flow?
    /// Up to `limit` flows with ids above `after`, in id order.
    func flowPage(after: Int64, limit: Int) throws(StoreError) -> [Flow]
    /// One line's worth of every flow (no bodies loaded), in id order.
    func flowSummaries() throws(StoreError) -> [FlowSummary]
    func flowCount() throws(StoreError) -> Int
    /// The highest flow id (0 for an empty session).
    func lastFlowID() throws(StoreError) -> Int
    /// Every finding, in the order stored; `flow` limits them to one flow.
    func findings(flow: Int?) throws(StoreError) -> [Finding]
    /// Every DNS observation, in the order stored.
    func dnsObservations() throws(StoreError) -> [DNSObservation]

    /// Sets (or with nil, removes) one metadata value.
    func setMetadata(_ value: String?, for key: String) throws(StoreError)
    func metadata(_ key: String) throws(StoreError) -> String?
    /// All metadata, key → value.
    func allMetadata() throws(StoreError) -> [String: String]
    /// The schema version of the database holding the session.
    func schemaVersion() throws(StoreError) -> Int
}

extension SessionStoring {
    /// Every finding, in the order stored.
    public func findings() throws(StoreError) -> [Finding] { try findings(flow: nil) }

    /// Every flow, in id order (loads all bodies; see `forEachFlow` for large sessions).
    public func flows() throws(StoreError) -> [Flow] {
        var all: [Flow] = []
        var after = Int64.min
        while true {
            let page = try flowPage(after: after, limit: Self.readPageSize)
            all += page
            guard let last = page.last, page.count == Self.readPageSize else { return all }
            after = Int64(last.id)
        }
    }

    /// Calls `body` with every flow in id order, reading pages of `pageSize` flows so that memory stays
    /// bounded. The store is not locked while `body` runs (it may append; flows appended meanwhile
    /// with higher ids are visited too). Throws the store's `StoreError` or what `body` throws.
    public func forEachFlow(pageSize: Int = 256, _ body: (Flow) throws -> Void) throws {
        var after = Int64.min
        while true {
            let page = try flowPage(after: after, limit: pageSize)
            for f in page { try body(f) }
            guard let last = page.last, page.count >= max(1, pageSize) else { return }
            after = Int64(last.id)
        }
    }

    /// Flows per page when `flows()` reads a whole session.
    static var readPageSize: Int { 1024 }
}

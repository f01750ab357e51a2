import Foundation
import MouchardFindings
import MouchardFlow
import MouchardStore

/// What a recorder (`proxy`, `gateway`, `sniff`, `import`) writes into when given `--store
/// postgresql://...`: every write is committed to the local session first (the journal, a normal
/// session folder: crash-safe, and readable without the database), then uploaded to the fleet store
/// by a `FleetUploader` thread. The recorder never waits for PostgreSQL: when it is slow or away,
/// the flows wait in the local session and go up in order when it is back. Reads are the local
/// session's (it holds everything).
public final class SpooledSessionStore: SessionStoring {
    public let journal: SessionStore
    public let uploader: FleetUploader
    public let fleetDisplay: String

    /// Uploads the local session `journal` to the fleet store at `url`. The session's fleet id is
    /// kept in its metadata (`fleet_session`, created on first use), so that an interrupted upload,
    /// a restart and `mouchard sync` all continue the same fleet session. Call `start()` on the
    /// uploader (or `finish` alone, to upload synchronously).
    public init(journal: SessionStore, url: String, log: @escaping @Sendable (String) -> Void) throws(StoreError) {
        self.journal = journal
        fleetDisplay = PostgresURL.masked(url)
        let key = SessionStore.MetadataKey.fleetSession
        var id = try journal.metadata(key)
        if id == nil {
            let made = UUID().uuidString.lowercased()
            try journal.setMetadata(made, for: key)
            id = made
        }
        let started = FleetMetadata.sessionStart(created: try journal.metadata(SessionStore.MetadataKey.created), fallback: Date())
        let name = (journal.directory as NSString).lastPathComponent
        uploader = try FleetUploader(journal: journal, url: url, sessionID: id!, name: name, started: started, log: log)
    }

    public var location: String { "\(journal.directory) → \(fleetDisplay)" }

    /// Uploads what remains (for at most `timeout` seconds) and stops the uploader; returns its
    /// status and how many flows are still only local.
    public func finish(timeout: Double) -> (status: FleetUploader.Status, flowsLeft: Int) {
        let status = uploader.finish(timeout: timeout)
        let after = status.uploaded?.flow ?? 0
        let left = (try? journal.journalReader().flowCount(after: after)) ?? (try? journal.flowCount()) ?? 0
        return (status, left)
    }

    // MARK: - Writes: the journal, then a word to the uploader

    @discardableResult
    public func append(_ flow: Flow) throws(StoreError) -> Int {
        let id = try journal.append(flow)
        uploader.noteAppended(lastFlow: id, flows: 1)
        return id
    }

    @discardableResult
    public func append(flows: [Flow]) throws(StoreError) -> [Int] {
        let ids = try journal.append(flows: flows)
        uploader.noteAppended(lastFlow: ids.max(), flows: ids.count)
        return ids
    }

    public func append(findings: [Finding]) throws(StoreError) {
        try journal.append(findings: findings)
        uploader.noteAppended(lastFlow: nil, flows: 0)
    }

    public func append(dns: [DNSObservation]) throws(StoreError) {
        try journal.append(dns: dns)
        uploader.noteAppended(lastFlow: nil, flows: 0)
    }

    public func setMetadata(_ value: String?, for key: String) throws(StoreError) {
        try journal.setMetadata(value, for: key)
        uploader.noteAppended(lastFlow: nil, flows: 0)
    }

    // MARK: - Reads: the journal

    public func flow(id: Int) throws(StoreError) -> Flow? { try journal.flow(id: id) }
    public func flowPage(after: Int64, limit: Int) throws(StoreError) -> [Flow] { try journal.flowPage(after: after, limit: limit) }
    public func flowSummaries() throws(StoreError) -> [FlowSummary] { try journal.flowSummaries() }
    public func flowCount() throws(StoreError) -> Int { try journal.flowCount() }
    public func lastFlowID() throws(StoreError) -> Int { try journal.lastFlowID() }
    public func findings(flow: Int?) throws(StoreError) -> [Finding] { try journal.findings(flow: flow) }
    public func dnsObservations() throws(StoreError) -> [DNSObservation] { try journal.dnsObservations() }
    public func metadata(_ key: String) throws(StoreError) -> String? { try journal.metadata(key) }
    public func allMetadata() throws(StoreError) -> [String: String] { try journal.allMetadata() }
    public func schemaVersion() throws(StoreError) -> Int { try journal.schemaVersion() }
}

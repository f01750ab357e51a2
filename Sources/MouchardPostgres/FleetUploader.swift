import CMouchardShims
import Foundation
import MouchardStore
import Synchronization

/// Uploads a local session (the journal: `session.sqlite`, where every flow is committed first) to
/// its session in the fleet store, in id order, from a thread of its own: the recorder's threads
/// never wait for PostgreSQL. Each batch (up to `batchRows` rows of each table, `batchBytes` of
/// flows) is one transaction that also moves the session's upload position, so after a crash, a
/// lost connection or a killed server the next try starts exactly after the last committed batch:
/// nothing is lost and nothing is stored twice. While the database is slow, the journal runs
/// ahead and batches grow; while it is away, the uploader tries again (`UploadBackoff`) and says so
/// once. An error that would repeat (a refused row, a newer schema) stops the uploading; the
/// journal keeps everything for `mouchard sync`. The thread runs at a lower priority (`threadNice`):
/// when the machine is busy, the recorder (event loops, capture, live audit) goes first and the
/// upload takes what CPU is left, catching up when the load drops.
public final class FleetUploader: Sendable {
    public static let batchRows = 2000
    public static let batchBytes = 8 << 20
    /// How long an idle uploader sleeps when nothing wakes it (it also looks for new rows then).
    static let idlePoll = 1.0
    /// After a batch that was not full, how long the uploader lets rows gather before the next one:
    /// a recorder commits every few milliseconds, and a transaction per commit would cost the
    /// server and the uploader their per-batch work (statements, commit, round trips) on a few
    /// rows each time. Rows wait at most this long more; a stop or a backlog does not wait.
    static let batchInterval = 0.1
    /// How long `finish` waits past its deadline for a thread blocked in the database.
    static let stuckGrace = 5.0
    /// The upload thread's nice value (0 is the recorder's; 19, the lowest priority, gets about
    /// 1.5% of the share of a thread at 0 on a busy core: the recorder goes first, the upload takes
    /// the idle time).
    static let threadNice: Int32 = 19

    /// What the uploader has done so far.
    public struct Status: Sendable, Hashable {
        /// How far the fleet store holds the session.
        public var uploaded: SessionStore.JournalPosition?
        /// Flows, findings and DNS rows this uploader sent.
        public var flowsSent = 0
        public var findingsSent = 0
        public var dnsSent = 0
        public var batches = 0
        /// The last error, while it lasts (nil once a batch went in).
        public var lastError: String?
        /// A permanent error stopped the uploading.
        public var stopped = false
        /// Seconds from a flow's local commit to its commit in the fleet store.
        public var latency = LatencyHistogram()
    }

    public let journal: SessionStore
    let url: String
    let display: String
    let proposedKey: FleetSessionKey
    let name: String
    let log: @Sendable (String) -> Void

    private let condition = NSCondition()
    private let control = Mutex(Control())
    private let statusBox = Mutex(Status())
    /// Local commits waiting for their upload: (last flow id, how many flows, when).
    private let appended = Mutex(AppendLog())

    private struct Control {
        var wake = false
        var stopping = false
        var deadline: Date?
        /// While stopping, each committed batch moves the deadline this far ahead.
        var patience = 0.0
        var finished = false
        var started = false
    }

    /// `sessionID` and `started` identify the session in the fleet store (`SpooledSessionStore`
    /// keeps them in the journal's metadata); `log` gets one line when the store goes away, comes
    /// back, or refuses a batch.
    public init(journal: SessionStore, url: String, sessionID: String, name: String, started: Date,
                log: @escaping @Sendable (String) -> Void) throws(StoreError) {
        self.journal = journal
        self.url = url
        display = PostgresURL.masked(url)
        guard let key = FleetSessionKey(id: sessionID, started: started) else {
            throw StoreError(file: journal.databasePath, message: "fleet session id '\(sessionID)' is not a UUID")
        }
        proposedKey = key
        self.name = name
        self.log = log
    }

    public var status: Status { statusBox.withLock { $0 } }

    /// Starts the upload thread.
    public func start() {
        let first = control.withLock { c -> Bool in
            defer { c.started = true }
            return !c.started
        }
        guard first else { return }
        let thread = Thread { [self] in
            _ = mouchard_set_thread_nice(Self.threadNice)
            self.run()
        }
        thread.name = "mouchard-fleet-upload"
        thread.start()
    }

    /// Says that rows were committed to the journal (`flows` flows up to id `lastFlow`).
    public func noteAppended(lastFlow: Int?, flows: Int) {
        if let lastFlow, flows > 0 { appended.withLock { $0.add(lastFlow: lastFlow, flows: flows, at: Date()) } }
        signal { $0.wake = true }
    }

    /// Uploads what remains, then stops the thread; returns the status. It gives up when `timeout`
    /// seconds pass without a batch going in (the database away or stuck), not while it progresses.
    @discardableResult
    public func finish(timeout: Double) -> Status {
        signal { c in
            c.stopping = true
            c.patience = timeout
            c.deadline = Date().addingTimeInterval(timeout)
        }
        let started = control.withLock { $0.started }
        if !started {
            run()
        } else {
            // A thread stuck in libpq (a server that stopped answering without closing) is left
            // behind once the deadline has passed: the status says what was not uploaded.
            condition.lock()
            while true {
                let (finished, deadline) = control.withLock { ($0.finished, $0.deadline ?? Date()) }
                if finished || Date() > deadline.addingTimeInterval(Self.stuckGrace) { break }
                _ = condition.wait(until: Date().addingTimeInterval(0.1))
            }
            condition.unlock()
        }
        return status
    }

    private func signal(_ change: (inout Control) -> Void) {
        condition.lock()
        control.withLock { change(&$0) }
        condition.broadcast()
        condition.unlock()
    }

    // MARK: - The upload loop

    private func run() {
        var link: (connection: PGConnection, key: FleetSessionKey)?
        var position = SessionStore.JournalPosition(flow: 0, finding: 0, dns: 0)
        var backoff = UploadBackoff()
        var pushedMetadata: [String: String]?
        var saidAway = false
        let reader: JournalReader
        do {
            reader = try journal.journalReader()
        } catch {
            statusBox.withLock { s in
                s.lastError = error.description
                s.stopped = true
            }
            log("mouchard: warning: fleet upload stopped: \(error)\n")
            signal { $0.finished = true }
            return
        }
        while true {
            let (stopping, deadline) = control.withLock { ($0.stopping, $0.deadline) }
            if let deadline, Date() >= deadline { break }
            do throws(StoreError) {
                if link == nil || link?.connection.isOpen == false {
                    link = nil
                    let connection = try PGConnection(url: url)
                    try PostgresSchema.migrate(connection)
                    let key = try PostgresFleet.ensureSession(connection, proposedKey, name: name)
                    let r = try connection.query("SELECT last_flow, last_finding, last_dns FROM mouchard.sessions WHERE id = $1::uuid", [key.id])
                    position = .init(flow: r.first?.int(0) ?? 0, finding: r.first?.int(1) ?? 0, dns: r.first?.int(2) ?? 0)
                    link = (connection, key)
                    pushedMetadata = nil
                    statusBox.withLock { $0.uploaded = position }
                    if saidAway { log("mouchard: fleet store \(display) is back: uploading what was spooled\n") }
                    saidAway = false
                }
                guard let (connection, key) = link else { continue }
                let rows = try reader.rows(after: position, limit: Self.batchRows, byteLimit: Self.batchBytes)
                let full = rows.bytes >= Self.batchBytes
                    || [rows.flows.count, rows.findings.count, rows.dns.count].contains { $0 >= Self.batchRows }
                var batch = FleetBatch(rows)
                let metadata = try reader.metadata()
                if metadata != pushedMetadata {
                    for (k, v) in metadata where pushedMetadata?[k] != v { batch.metadata[k] = v }
                    for k in (pushedMetadata ?? [:]).keys where metadata[k] == nil { batch.metadata[k] = .some(nil) }
                }
                if batch.isEmpty {
                    pushedMetadata = metadata
                    if stopping { break }
                    waitForWork(timeout: Self.idlePoll)
                    continue
                }
                let expected = position
                let outcome = try connection.transaction { () throws(StoreError) -> SessionStore.JournalPosition? in
                    let current = try FleetBatchWriter.lockPosition(connection, key)
                    guard current == expected else { return current }  // another writer moved it: start again from there
                    try FleetBatchWriter.insert(batch, key, on: connection, advancingTo: batch.end(from: current))
                    return nil
                }
                if let moved = outcome {
                    position = moved
                    statusBox.withLock { $0.uploaded = moved }
                    continue
                }
                position = batch.end(from: expected)
                pushedMetadata = metadata
                backoff.succeeded()
                if stopping { signal { c in c.deadline = Date().addingTimeInterval(c.patience) } }
                let committed = Date()
                let waits = appended.withLock { $0.remove(through: position.flow) }
                statusBox.withLock { s in
                    s.uploaded = position
                    s.flowsSent += batch.flows.count
                    s.findingsSent += batch.findings.count
                    s.dnsSent += batch.dns.count
                    s.batches += 1
                    s.lastError = nil
                    for w in waits { s.latency.record(committed.timeIntervalSince(w.at), weight: w.flows) }
                }
                if !full && !stopping { waitForWork(timeout: Self.batchInterval, ignoringAppends: true) }
            } catch {
                statusBox.withLock { $0.lastError = error.description }
                if StoreErrorKind.classify(error.sqlState) == .permanent {
                    statusBox.withLock { $0.stopped = true }
                    log("mouchard: warning: fleet upload stopped: \(error); the session stays complete in "
                        + "\(journal.directory) (upload it later with mouchard sync)\n")
                    break
                }
                link = nil
                backoff.failed()
                if !saidAway {
                    log("mouchard: warning: fleet store unreachable (\(error.message)); flows are kept in "
                        + "\(journal.directory) and uploaded in order when it is back\n")
                    saidAway = true
                }
                waitForWork(timeout: backoff.delay, ignoringWake: true)
            }
        }
        signal { $0.finished = true }
    }

    /// Sleeps until woken by an append (unless `ignoringWake` or `ignoringAppends`), asked to stop
    /// (unless `ignoringWake`), or `timeout` passes.
    private func waitForWork(timeout: Double, ignoringWake: Bool = false, ignoringAppends: Bool = false) {
        guard timeout > 0 else { return }
        let until = Date().addingTimeInterval(timeout)
        condition.lock()
        defer { condition.unlock() }
        while Date() < until {
            let c = control.withLock { c -> Control in
                let seen = c
                c.wake = false
                return seen
            }
            if c.stopping && !ignoringWake { return }
            if c.wake && !ignoringWake && !ignoringAppends { return }
            if let d = c.deadline, Date() >= d { return }
            _ = condition.wait(until: min(until, c.deadline ?? until))
        }
    }
}

/// Local commits not yet uploaded, oldest first: when each was committed, for the upload latency.
struct AppendLog: Sendable {
    struct Entry: Sendable {
        var lastFlow: Int
        var flows: Int
        var at: Date
    }

    /// Entries kept at most; beyond, the oldest are forgotten (their latency is not measured).
    static let capacity = 100_000

    private var entries: [Entry] = []
    private var head = 0

    mutating func add(lastFlow: Int, flows: Int, at: Date) {
        if entries.count - head >= Self.capacity { head += 1 }
        entries.append(Entry(lastFlow: lastFlow, flows: flows, at: at))
        if head > 4096, head * 2 > entries.count {
            entries.removeFirst(head)
            head = 0
        }
    }

    /// Removes and returns the entries up to flow `id`.
    mutating func remove(through id: Int) -> [Entry] {
        var out: [Entry] = []
        while head < entries.count, entries[head].lastFlow <= id {
            out.append(entries[head])
            head += 1
        }
        return out
    }
}

import Foundation
import MouchardFindings
import MouchardFlow
import MouchardInspection
import MouchardStore
import Synchronization

/// The proxy's live audit: every completed flow is numbered, stored in the session, inspected,
/// its findings stored, and one console line printed per finding as it happens
/// (`12:03:04 device-id idfa → t.appsflyer.com (AppsFlyer) query:advertiserId`).
/// All of it runs on the `FlowQueue` worker thread, never on an event loop.
public final class LiveAudit: Sendable {
    /// What the console shows.
    public struct Console: Sendable {
        /// No finding lines (the summary is still printed by the command).
        public var quiet: Bool
        /// One line per flow too (method, URL, status, or the tunnel's SNI and error).
        public var logFlows: Bool
        public var write: @Sendable (String) -> Void

        public init(quiet: Bool = false, logFlows: Bool = false, write: @escaping @Sendable (String) -> Void) {
            self.quiet = quiet
            self.logFlows = logFlows
            self.write = write
        }
    }

    /// Totals for the shutdown summary.
    public struct Summary: Sendable, Hashable {
        public var flows = 0
        public var findings = 0
        public var findingsByCategory: [FindingCategory: Int] = [:]
        public var hosts: Set<String> = []
        public var storeErrors = 0
    }

    public let inspector: Inspector?
    public let store: (any SessionStoring)?
    public let console: Console
    private let totals = Mutex(Summary())
    private let queueBox = Mutex<FlowQueue?>(nil)

    public init(inspector: Inspector?, store: (any SessionStoring)?, console: Console) {
        self.inspector = inspector
        self.store = store
        self.console = console
    }

    /// The sink to give the proxy (created on first use).
    public var sink: FlowQueue {
        queueBox.withLock { q in
            if let q { return q }
            let made = FlowQueue { [self] flows in self.process(flows) }
            q = made
            return made
        }
    }

    public var summary: Summary { totals.withLock { $0 } }

    /// Processes what is queued and stops the worker (shutdown).
    public func finish(timeout: Double = 120) {
        queueBox.withLock { $0 }?.close(timeout: timeout)
    }

    /// Stores a batch of flows in one transaction, inspects them, stores their findings, prints.
    func process(_ flows: [Flow]) {
        var storeFailed = false
        if let store {
            do {
                try store.append(flows: flows)
            } catch {
                storeFailed = true
                console.write("mouchard: warning: cannot store flows \(flows.first?.id ?? 0)...\(flows.last?.id ?? 0): \(error)\n")
            }
        }
        var findings: [Finding] = []
        var text = ""
        for flow in flows {
            let found = inspector?.inspect(flow) ?? []
            findings += found
            if console.logFlows { text += ConsoleLines.flowLine(flow) + "\n" }
            if !console.quiet {
                for f in found { text += ConsoleLines.findingLine(f, at: flow.timings.started) + "\n" }
            }
        }
        if let store, !findings.isEmpty, !storeFailed {
            do {
                try store.append(findings: findings)
            } catch {
                storeFailed = true
                console.write("mouchard: warning: cannot store findings: \(error)\n")
            }
        }
        totals.withLock { t in
            t.flows += flows.count
            t.findings += findings.count
            for f in findings { t.findingsByCategory[f.category, default: 0] += 1 }
            for flow in flows where !flow.host.isEmpty { t.hosts.insert(flow.host) }
            if storeFailed { t.storeErrors += 1 }
        }
        if !text.isEmpty { console.write(text) }
    }
}

/// The one-line texts of the live console.
public enum ConsoleLines {
    /// `12:03:04 device-id idfa → t.appsflyer.com (AppsFlyer) query:advertiserId`
    public static func findingLine(_ f: Finding, at time: Date) -> String {
        let company = f.destination.tracker.map { " (\($0))" } ?? ""
        let encoding = f.encoding == "plain" ? "" : " [\(f.encoding)]"
        return "\(clock(time)) \(f.category) \(f.type) → \(f.destination.host)\(company) \(f.where)\(encoding)"
    }

    /// `12:03:04 #12 GET http://example.com/ → 200 (https)` or the tunnel's SNI and error.
    public static func flowLine(_ flow: Flow) -> String {
        var s = "\(clock(flow.timings.started)) #\(flow.id) "
        if let r = flow.request {
            s += "\(r.method) \(MaskedURL.display(r.url))"  // a log never repeats a full identifier
            s += flow.response.map { " → \($0.status)" } ?? ""
        } else {
            s += "TLS \(flow.tls?.serverName ?? flow.host)"
        }
        s += " (\(flow.transport.rawValue))"
        if let e = flow.error { s += " error: \(e)" }
        return s
    }

    /// `HH:mm:ss` in local time.
    static func clock(_ date: Date) -> String {
        var t = time_t(date.timeIntervalSince1970)
        var parts = tm()
        localtime_r(&t, &parts)
        func two(_ v: Int32) -> String { v < 10 ? "0\(v)" : "\(v)" }
        return "\(two(parts.tm_hour)):\(two(parts.tm_min)):\(two(parts.tm_sec))"
    }
}

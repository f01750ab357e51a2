import Foundation
import Testing
import MouchardFlow
import MouchardInspection
import MouchardWire
@testable import MouchardProxy

/// The live audit without sockets: flows in → numbered, inspected, one console line per finding.
@Suite struct LiveAuditTests {
    final class Lines: @unchecked Sendable {
        let lock = NSLock()
        var text = ""
        func add(_ s: String) { lock.lock(); text += s; lock.unlock() }
    }

    @Test func findingsPrintOneLineEachAndFlowsAreNumbered() {
        let idfa = "6D92078A-8246-4BA4-AE5B-76104861E7DC"
        let lines = Lines()
        let audit = LiveAudit(inspector: Inspector(rules: RuleSet(), profile: DeviceProfile(identifiers: [(type: "idfa", value: idfa)])),
                              store: nil, console: LiveAudit.Console(logFlows: true, write: { lines.add($0) }))
        let head = HTTPRequestHead(method: "GET", target: "/v1?advertiserId=\(idfa)", headers: [("Host", "t.tracker.test")])
        let leak = Flow(id: 0, source: .proxy, transport: .https, request: HTTPRequest(head: head, scheme: "https"),
                        timings: FlowTimings(started: Date()))
        let pinned = Flow(id: 0, source: .proxy, transport: .tlsMetadata, tls: TLSFacts(serverName: "pinned.test"),
                          error: "client rejected the proxy certificate")
        audit.sink.record(leak)
        audit.sink.record(pinned)
        audit.finish()
        #expect(audit.summary.flows == 2)
        #expect(audit.summary.findings == 1)
        #expect(audit.summary.findingsByCategory == [.deviceID: 1])
        let text = lines.text
        #expect(text.contains("#1 GET https://t.tracker.test/v1?advertiserId="))
        #expect(text.contains("device-id idfa → t.tracker.test query:advertiserId\n"))
        #expect(text.contains("#2 TLS pinned.test (tls-metadata) error: client rejected the proxy certificate"))
        #expect(!text.contains(idfa + "\n"))
    }

    @Test func queueDropsBeyondItsCapacityInsteadOfGrowing() {
        let gate = NSCondition()
        let queue = FlowQueue(capacity: 3) { _ in
            gate.lock(); _ = gate.wait(until: Date().addingTimeInterval(0.2)); gate.unlock()
        }
        for _ in 0..<50 { queue.record(Flow(id: 0, source: .proxy, transport: .http)) }
        queue.close(timeout: 10)
        let c = queue.counts
        #expect(c.dropped > 0)
        #expect(c.recorded + c.dropped == 50)
        #expect(c.processed == c.recorded)
    }
}

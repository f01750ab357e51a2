import MouchardFindings
import MouchardFlow
import MouchardInspection
import MouchardReport

/// The working state of a streamed audit: flows in, findings out, summary at the end.
///
/// The first `window` flows are held back: the first-party policy is inferred from them (hosts,
/// User-Agents) and the inspector's whole-capture filters (location consensus) run over them, like a
/// non-streamed audit. An input that fits in the window gives exactly the non-streamed result; past
/// it, each flow is inspected on its own as it arrives and dropped, so memory stays bounded.
final class AuditStream {
    static let window = 2_000

    let setup: AuditSetup
    let limits: AuditSummaryLimits
    let onFinding: (Finding) throws -> Void
    private var held: [Flow] = []
    private var heldFindings: [Finding] = []
    private var heldDNS: [DNSObservation] = []
    private var running: (inspector: Inspector, builder: AuditSummaryBuilder)?

    init(setup: AuditSetup, limits: AuditSummaryLimits, onFinding: @escaping (Finding) throws -> Void) {
        self.setup = setup
        self.limits = limits
        self.onFinding = onFinding
    }

    func add(flow: Flow) throws {
        guard running != nil else {
            held.append(flow)
            if held.count >= Self.window { try start() }
            return
        }
        let findings = running?.inspector.inspect(flow) ?? []
        running?.builder.add(flow: flow, findings: findings)
        for f in findings { try onFinding(f) }
    }

    func add(findings: [Finding]) throws {
        guard running != nil else { heldFindings += findings; return }
        running?.builder.add(findings: findings)
        for f in findings { try onFinding(f) }
    }

    func add(dns: DNSObservation) throws {
        guard running != nil else { heldDNS.append(dns); return }
        running?.builder.add(dns: dns)
    }

    /// Builds the inspector and summary from the held flows and releases them.
    private func start() throws {
        let attribution = CachedAttribution(setup.attribution(for: held))
        let inspector = Inspector(rules: setup.rules, profile: setup.profile, attribution: attribution)
        // Context is set at the end (the source line is known once every input was read).
        var builder = AuditSummaryBuilder(context: AuditContext(toolVersion: MouchardRelease.version, inputs: [], source: ""),
                                          attribute: attribution, limits: limits,
                                          findingsOnly: held.isEmpty && !heldFindings.isEmpty)
        var byFlow: [Int: [Finding]] = [:]
        for f in inspector.inspect(held) { byFlow[f.flow ?? -1, default: []].append(f) }
        let flows = held
        held = []
        for flow in flows {
            let findings = byFlow.removeValue(forKey: flow.id) ?? []
            builder.add(flow: flow, findings: findings)
            for f in findings { try onFinding(f) }
        }
        builder.add(findings: heldFindings)
        for f in heldFindings { try onFinding(f) }
        heldFindings = []
        for d in heldDNS { builder.add(dns: d) }
        heldDNS = []
        running = (inspector, builder)
    }

    func finish(context: AuditContext) throws -> AuditSummary {
        if running == nil { try start() }
        guard var builder = running?.builder else { return AuditSummary.build(flows: [], findings: [], context: context) }
        builder.context = context
        return builder.finish()
    }
}

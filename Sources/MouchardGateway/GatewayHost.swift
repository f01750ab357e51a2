import Foundation

/// Makes the box the phone's gateway and undoes it: state file first, then sysctls, then the nft
/// table, then a conntrack flush of the phone's networks; undone in the reverse order. Every
/// change is recorded in the state file before it is made, so a killed run can be cleaned up.
public struct GatewayHost: Sendable {
    public let commands: HostCommands
    public let stateDirectory: String

    public init(stateDirectory: String, commands: HostCommands = HostCommands()) {
        self.stateDirectory = stateDirectory
        self.commands = commands
    }

    /// Refuses when a gateway already runs (or a killed one left its changes behind).
    public func checkNoOtherGateway() throws {
        if let state = try GatewayState.load(from: stateDirectory) {
            if state.ownerIsAlive && state.pid != getpid() {
                throw GatewayError("another gateway is running (pid \(state.pid), phone side \(state.plan.phoneSide), " +
                                   "since \(state.started)); stop it first")
            }
            throw GatewayError("a gateway (pid \(state.pid)) was killed without undoing its changes: " +
                               "run `mouchard gateway --cleanup` first")
        }
        if commands.tableExists(NftablesRules.qualifiedTable) {
            throw GatewayError("the nftables table '\(NftablesRules.qualifiedTable)' already exists (another gateway, " +
                               "or one killed without a state file): check it, then `nft delete table \(NftablesRules.qualifiedTable)`")
        }
    }

    /// Applies the plan. On failure, what was already changed is undone before the error is thrown.
    public func apply(_ plan: GatewayPlan, session: String?) throws -> (state: GatewayState, warnings: [String]) {
        let changes = SysctlPlan.changes(for: plan) { commands.readSysctl($0) }
        var state = GatewayState(pid: getpid(), started: Date(), plan: plan, sysctls: changes, tableCreated: false,
                                 session: session)
        try state.save(in: stateDirectory)
        var warnings: [String] = []
        do {
            for c in changes { try commands.writeSysctl(c.key, c.wanted) }
            state.tableCreated = true
            try state.save(in: stateDirectory)
            try commands.nft(NftablesRules.setupScript(plan))
        } catch {
            _ = undo(state)
            throw error
        }
        if let w = commands.flushConntrack(plan.phoneNetworks) { warnings.append(w) }
        if let chains = commands.nftChainsJSON() {
            let dropping = ForwardPolicyCheck.droppingChains(nftChainsJSON: chains,
                                                             ownTable: (NftablesRules.family, NftablesRules.table))
            warnings += ForwardPolicyCheck.warnings(droppingChains: dropping, phoneSide: plan.phoneSide)
        }
        return (state, warnings)
    }

    /// Puts everything back (table deleted, sysctls restored to their saved values, conntrack
    /// flushed, state file removed). Returns what could not be undone.
    @discardableResult
    public func undo(_ state: GatewayState) -> [String] {
        var problems: [String] = []
        if commands.tableExists(NftablesRules.qualifiedTable) {
            do { try commands.nft(NftablesRules.teardownScript) } catch { problems.append("\(error)") }
        }
        for c in state.sysctls.reversed() {
            do { try commands.writeSysctl(c.key, c.previous) } catch { problems.append("\(error)") }
        }
        _ = commands.flushConntrack(state.plan.phoneNetworks)
        if problems.isEmpty { GatewayState.remove(from: stateDirectory) }
        return problems
    }

    /// `--cleanup`: undoes what a killed run left. Returns a description of what was done.
    public func cleanup() throws -> String {
        guard let state = try GatewayState.load(from: stateDirectory) else {
            if commands.tableExists(NftablesRules.qualifiedTable) {
                try commands.nft(NftablesRules.teardownScript)
                return "no state file in \(stateDirectory); deleted the table \(NftablesRules.qualifiedTable) (sysctls unknown: left as they are)"
            }
            return "nothing to clean up (no state file in \(stateDirectory), no table \(NftablesRules.qualifiedTable))"
        }
        if state.ownerIsAlive && state.pid != getpid() {
            throw GatewayError("the gateway (pid \(state.pid)) is still running: stop it with SIGTERM (Ctrl-C), it undoes its own changes")
        }
        let problems = undo(state)
        guard problems.isEmpty else { throw GatewayError("cleanup incomplete: " + problems.joined(separator: "; ")) }
        var text = "deleted the table \(NftablesRules.qualifiedTable)"
        if !state.sysctls.isEmpty {
            text += "; restored " + state.sysctls.map { "\($0.key)=\($0.previous)" }.joined(separator: ", ")
        }
        return text + " (left by pid \(state.pid), started \(state.started))"
    }
}

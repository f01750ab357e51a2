import MouchardFindings

/// The seam through which the inspector names destinations: given a host, who is it?
/// The tracker directory (Rules/trackers.json) plugs in here; tests pass a closure.
public protocol DestinationAttributing: Sendable {
    func attribute(host: String) -> DestinationInfo
}

/// Attribution by first-party domains only (no tracker directory): a host under one of the
/// domains is first party, anything else is third party.
public struct FirstPartyDomains: DestinationAttributing {
    public var domains: [String]
    public init(_ domains: [String]) { self.domains = domains.map { $0.lowercased().trimmingASCIISpaces() }.filter { !$0.isEmpty } }

    public func attribute(host: String) -> DestinationInfo {
        DestinationInfo(thirdParty: !isFirstParty(host))
    }

    public func isFirstParty(_ host: String) -> Bool {
        guard !domains.isEmpty else { return false }
        let h = host.lowercased()
        return domains.contains { h == $0 || h.hasSuffix("." + $0) }
    }
}

/// Attribution from a closure (adapters, tests).
public struct ClosureAttribution: DestinationAttributing {
    let body: @Sendable (String) -> DestinationInfo
    public init(_ body: @escaping @Sendable (String) -> DestinationInfo) { self.body = body }
    public func attribute(host: String) -> DestinationInfo { body(host) }
}

import Foundation
import MouchardCodec
import MouchardFindings
import MouchardFlow
import MouchardInspection
import MouchardReport

/// What an audit is run with: the rules (pattern rules + tracker directory from a rule directory,
/// default `Rules/`), the device profile, first-party domains and app name (the CLI's `--rules`,
/// `--device`, `--first-party` and `--app`). Builds the `Inspector`, the host attribution the summary
/// uses, the SARIF rule metadata and the methodology context.
public struct AuditSetup {
    public var rules = RuleSet()
    public var trackers: TrackerDirectory?
    public var profile: DeviceProfile?
    public var firstParty: [String] = []
    public var app: String?
    public var rulesVersion = "unknown"

    public init() {}

    /// Reads the files an audit is configured with, with `ScanInputs`' loaders: the rule directory
    /// `rules` (else `$MOUCHARD_RULES`, `./Rules` or the installed `Rules/`) and the device profile
    /// at `device`; relative paths resolve against `currentDirectory`.
    public static func load(rules: String?, device: String?, firstParty: [String], app: String?,
                            currentDirectory: String) throws -> AuditSetup {
        var s = AuditSetup()
        s.firstParty = firstParty
        s.app = app
        s.profile = try device.map { try ScanInputs.loadProfile($0, currentDirectory: currentDirectory) }
        let dir = try ScanInputs.rulesDirectory(rules, currentDirectory: currentDirectory)
        s.rules = try ScanInputs.loadRules(dir)
        s.trackers = try ScanInputs.loadTrackers(dir)
        var digestInput: [UInt8] = []
        let names = (try? FileManager.default.contentsOfDirectory(atPath: dir.path))?.filter { $0.hasSuffix(".json") }.sorted() ?? []
        for name in names {
            digestInput += Array(name.utf8)
            digestInput += Array(FileManager.default.contents(atPath: dir.appendingPathComponent(name).path) ?? Data())
        }
        let digest = hexString(DigestAlgorithm.sha256.digest(digestInput).prefix(6))
        s.rulesVersion = "\(s.rules.rules.count) pattern rules in \(s.rules.files.count) files"
            + (s.trackers != nil ? " + trackers.json" : "") + " (Rules sha256 \(digest)…)"
        return s
    }

    /// Who is behind a host: tracker directory + first-party policy (explicit or inferred from the flows).
    public func attribution(for flows: [Flow]) -> TrackerAttribution {
        var hinted = flows
        if let app, let i = hinted.firstIndex(where: { $0.request != nil }) {
            // The app name is a first-party hint like the User-Agent.
            hinted[i].request?.head.headers.add(name: "User-Agent", value: app)
        }
        return TrackerAttribution(trackers: trackers, firstParty: firstParty, flows: hinted)
    }

    /// SARIF rule metadata of the pattern rules (profile rules get derived metadata).
    public var ruleMetadata: [RuleMetadata] {
        rules.rules.map { r in
            var m = RuleMetadata.derived(id: r.id, category: r.category, type: r.type, severity: r.severity)
            if !r.description.isEmpty { m.shortDescription = r.description }
            return m
        }
    }

    /// The profile's values as the report may show them: masked, coordinates to ~11 km, contacts counted.
    public static func masked(_ p: DeviceProfile) -> [MaskedValue] {
        var out = p.identifiers.map { MaskedValue(field: "identifiers.\($0.type)", value: $0.value) }
        if let n = p.ownerName { out.append(MaskedValue(field: "owner.name", value: n)) }
        out += p.ownerEmails.map { MaskedValue(field: "owner.email", value: $0) }
        out += p.ownerPhones.map { MaskedValue(field: "owner.phone", value: $0) }
        if let l = p.location {
            out.append(MaskedValue(field: "location", masked: String(format: "%.1f…, %.1f… (shown to ~11 km)", l.latitude, l.longitude)))
        }
        if !p.contacts.isEmpty { out.append(MaskedValue(field: "contacts", masked: "\(p.contacts.count) planted contacts")) }
        return out
    }
}

extension AuditSetup {
    /// The methodology context: inputs, source line, masked profile, rules version.
    public func context(inputs: AuditInputs) -> AuditContext {
        AuditContext(toolVersion: MouchardRelease.version, inputs: inputs.inputs, source: inputs.sourceLine, app: app,
                     firstPartyDomains: firstParty, deviceName: profile?.name,
                     deviceProfile: profile.map(Self.masked) ?? [], rulesVersion: rulesVersion,
                     warnings: inputs.warnings + inputs.readErrors)
    }

    /// Streams the inputs through the inspector into the summary (what `report` renders and `scan`
    /// prints), handing each finding to `onFinding` as it is produced; neither flows nor findings
    /// are kept. See `AuditStream` for how first-party inference works on a stream.
    public func audit(_ inputs: inout AuditInputs, currentDirectory: String, limits: AuditSummaryLimits = .standard,
                      onFinding: @escaping (Finding) throws -> Void) throws -> AuditSummary {
        let stream = AuditStream(setup: self, limits: limits, onFinding: onFinding)
        try inputs.stream(currentDirectory: currentDirectory, into: AuditInputs.Sink(flow: stream.add(flow:), findings: stream.add(findings:),
                                                           dns: stream.add(dns:)))
        return try stream.finish(context: context(inputs: inputs))
    }

    /// True when a finding's category is one of `categories` (or `any` was given).
    public static func failOnMatches(_ categories: Set<String>, _ findings: [Finding]) -> Bool {
        !categories.isEmpty && findings.contains { categories.contains("any") || categories.contains($0.category.rawValue) }
    }
}

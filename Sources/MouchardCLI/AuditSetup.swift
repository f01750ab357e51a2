import Foundation
import MouchardCodec
import MouchardFlow
import MouchardInspection
import MouchardReport

/// What an audit is run with: the rules (pattern rules + tracker directory from `--rules DIR`, default
/// `Rules/`), the device profile (`--device`), first-party domains (`--first-party`) and app name
/// (`--app`). Builds the `Inspector`, the host attribution the summary uses, the SARIF rule metadata
/// and the methodology context.
struct AuditSetup {
    var rules = RuleSet()
    var trackers: TrackerDirectory?
    var profile: DeviceProfile?
    var firstParty: [String] = []
    var app: String?
    var rulesVersion = "no rule files (device profile matching only)"

    /// Reads the files named by the common options. Missing default `Rules/` is not an error.
    static func load(_ args: ParsedArguments, currentDirectory: String) throws -> AuditSetup {
        var s = AuditSetup()
        s.firstParty = args.all("--first-party")
        s.app = args.value("--app")
        func resolve(_ p: String) -> String { p.hasPrefix("/") ? p : currentDirectory + "/" + p }
        if let device = args.value("--device") {
            let bytes = try Array(Data(contentsOf: URL(fileURLWithPath: resolve(device))))
            s.profile = try DeviceProfile.load(bytes, file: device)
        }
        let rulesDir = args.value("--rules") ?? "Rules"
        var isDir: ObjCBool = false
        guard FileManager.default.fileExists(atPath: resolve(rulesDir), isDirectory: &isDir), isDir.boolValue else {
            if args.value("--rules") != nil { throw CLIError("\(rulesDir): no such rules folder") }
            return s
        }
        let names = try FileManager.default.contentsOfDirectory(atPath: resolve(rulesDir)).filter { $0.hasSuffix(".json") }.sorted()
        var sets: [RuleSet] = []
        var digestInput: [UInt8] = []
        for name in names {
            let path = resolve(rulesDir) + "/" + name
            let data = try Data(contentsOf: URL(fileURLWithPath: path))
            digestInput += Array(name.utf8) + Array(data)
            if name == "trackers.json" {
                s.trackers = try TrackerDirectory(jsonData: data, file: rulesDir + "/" + name)
            } else {
                sets.append(try RuleFileLoader.load(Array(data), file: rulesDir + "/" + name))
            }
        }
        if !sets.isEmpty { s.rules = try RuleFileLoader.merge(sets) }
        let digest = hexString(DigestAlgorithm.sha256.digest(digestInput).prefix(6))
        s.rulesVersion = "\(rulesDir)/: \(s.rules.rules.count) pattern rules in \(sets.count) files"
            + (s.trackers != nil ? " + trackers.json" : "") + " (sha256 \(digest)…)"
        return s
    }

    /// The first-party policy for these flows: explicit `--first-party` domains, else inferred from
    /// the most requested non-tracker domain and the app name.
    func policy(for flows: [Flow]) -> FirstPartyPolicy {
        var perHost: [String: Int] = [:]
        for f in flows where f.request != nil { perHost[f.host, default: 0] += 1 }
        return FirstPartyPolicy(explicitDomains: firstParty, requestsPerHost: perHost, appHints: app.map { [$0] } ?? [],
                                trackers: trackers)
    }

    /// Who is behind a host: the tracker directory's company and category, the policy's party.
    func attribution(for flows: [Flow]) -> TrackerAttribution {
        TrackerAttribution(trackers: trackers, policy: policy(for: flows))
    }

    func inspector(for flows: [Flow]) -> Inspector {
        Inspector(rules: rules, profile: profile, attribution: attribution(for: flows))
    }

    /// SARIF rule metadata of the pattern rules (profile rules get derived metadata).
    var ruleMetadata: [RuleMetadata] {
        rules.rules.map { r in
            var m = RuleMetadata.derived(id: r.id, category: r.category, type: r.type, severity: r.severity)
            if !r.description.isEmpty { m.shortDescription = r.description }
            return m
        }
    }

    /// The methodology context: inputs, source line, masked profile, rules version.
    func context(inputs: AuditInputs) -> AuditContext {
        AuditContext(toolVersion: Mouchard.version, inputs: inputs.inputs, source: inputs.sourceLine, app: app,
                     firstPartyDomains: firstParty, deviceName: profile?.name,
                     deviceProfile: profile.map(Self.masked) ?? [], rulesVersion: rulesVersion)
    }

    /// The profile's values as the report may show them: masked, coordinates to ~11 km, contacts counted.
    static func masked(_ p: DeviceProfile) -> [MaskedValue] {
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

/// Attribution of destinations from the tracker directory (company, category) and the first-party
/// policy (party): what the inspector stamps on findings and the summary on every host.
struct TrackerAttribution: DestinationAttributing {
    var trackers: TrackerDirectory?
    var policy: FirstPartyPolicy

    func attribute(host: String) -> DestinationInfo {
        let entry = trackers?.lookup(host: host)
        return DestinationInfo(company: entry?.company, category: entry?.category.rawValue,
                               thirdParty: policy.isThirdParty(host: host))
    }

    var hostAttributor: HostAttributor {
        let me = self
        return { host in
            let i = me.attribute(host: host)
            return HostAttribution(company: i.company, trackerCategory: i.category, thirdParty: i.thirdParty)
        }
    }
}

extension AuditSetup {
    /// Inspects the inputs' flows and builds the shared summary: what `report` renders and `scan` prints.
    func audit(_ inputs: AuditInputs, limits: AuditSummaryLimits = .standard) -> (summary: AuditSummary, findings: [Finding]) {
        let attribution = attribution(for: inputs.flows)
        let inspector = Inspector(rules: rules, profile: profile, attribution: attribution)
        let findings = inputs.readFindings + inspector.inspect(inputs.flows)
        let summary = AuditSummary.build(flows: inputs.flows, findings: findings, dns: inputs.dns, context: context(inputs: inputs),
                                         attribute: attribution.hostAttributor, limits: limits)
        return (summary, findings)
    }

    /// The categories of `--fail-on a,b --fail-on c` (`any` matches every category).
    static func failOnCategories(_ args: ParsedArguments) -> Set<String> {
        Set(args.all("--fail-on").flatMap { $0.split(separator: ",") }.map { $0.trimmingCharacters(in: .whitespaces).lowercased() }
            .filter { !$0.isEmpty })
    }

    /// True when a finding's category is one of `categories` (or `any` was given).
    static func failOnMatches(_ categories: Set<String>, _ findings: [Finding]) -> Bool {
        !categories.isEmpty && findings.contains { categories.contains("any") || categories.contains($0.category) }
    }
}

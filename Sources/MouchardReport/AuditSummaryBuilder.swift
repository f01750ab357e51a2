import Foundation
import MouchardFindings
import MouchardFlow
import MouchardInspection
import MouchardWire

extension AuditSummary {
    /// Builds the summary of an audit from what the sources and the inspector produced.
    ///
    /// - Parameters:
    ///   - flows: every flow of the inputs (may be empty when only findings are known).
    ///   - findings: the inspector's findings for those flows.
    ///   - dns: DNS answers seen by the sources.
    ///   - context: inputs, profile (masked), rules version... for the methodology.
    ///   - attribute: company and first/third party of a host (the inspector's attribution: tracker
    ///     directory + first-party policy); nil = `FirstPartyDomains(context.firstPartyDomains)`.
    ///     A finding's own destination wins.
    public static func build(flows: [Flow], findings: [Finding], dns: [DNSObservation] = [],
                             context: AuditContext, attribute: (any DestinationAttributing)? = nil,
                             limits: AuditSummaryLimits = .standard) -> AuditSummary {
        var builder = AuditSummaryBuilder(context: context, attribute: attribute, limits: limits,
                                          findingsOnly: flows.isEmpty)
        // Findings are matched to their flow by id (in order); the rest count as findings without a flow.
        var byFlow: [Int: [Finding]] = [:]
        var loose: [Finding] = []
        let ids = Set(flows.map(\.id))
        for f in findings {
            if let id = f.flow, ids.contains(id) { byFlow[id, default: []].append(f) } else { loose.append(f) }
        }
        for flow in flows { builder.add(flow: flow, findings: byFlow.removeValue(forKey: flow.id) ?? []) }
        builder.add(findings: loose)
        for d in dns { builder.add(dns: d) }
        return builder.finish()
    }
}

/// Builds an `AuditSummary` incrementally: feed it one flow and its findings at a time (or findings
/// without flows, from findings documents) and DNS answers, then `finish()`. It keeps only bounded
/// aggregates (per-host counters, folded finding patterns, a time histogram), never the flows or the
/// findings, so a capture of any size can be summarized while it streams.
public struct AuditSummaryBuilder {
    /// The methodology facts; may be set any time before `finish()`.
    public var context: AuditContext
    let attribute: any DestinationAttributing
    let limits: AuditSummaryLimits
    /// True when the audit has no flows (findings documents only): requests are then counted from
    /// the findings' flow ids or URLs.
    let findingsOnly: Bool
    private var attributions: [String: DestinationInfo] = [:]
    private var findingDestinations: [String: FindingDestination] = [:]

    /// - Parameters:
    ///   - attribute: see `AuditSummary.build`.
    ///   - findingsOnly: true when the inputs carry findings but no flows (findings documents).
    public init(context: AuditContext, attribute: (any DestinationAttributing)?, limits: AuditSummaryLimits = .standard,
                findingsOnly: Bool = false) {
        self.context = context
        self.attribute = attribute ?? FirstPartyDomains(context.firstPartyDomains)
        self.limits = limits
        self.findingsOnly = findingsOnly
    }

    /// Attribution of `host`: the findings' destination facts over the attributor's.
    mutating func attribution(_ host: String) -> DestinationInfo {
        if let a = attributions[host] { return a }
        var a = attribute.attribute(host: host)
        if let d = findingDestinations[host] {
            a.company = d.tracker ?? a.company
            a.owner = d.owner ?? a.owner
            a.category = d.trackerCategory ?? a.category
            a.thirdParty = d.thirdParty
        }
        attributions[host] = a
        return a
    }

    /// The column a host's findings fall into in the data-flow matrix.
    mutating func companyLabel(_ host: String) -> String {
        attribution(host).company ?? host
    }

    /// What a host's exchanges spoke besides HTTP/1: `HTTP/2`, `HTTP/3`, then `WebSocket`, `gRPC`... (nil: nothing).
    private static func protocolNames(_ t: HostTally) -> [String]? {
        let names = t.laterVersions.sorted().map { "HTTP/\($0)" } + FlowStreams.Kind.allCases.filter(t.protocols.contains).map(\.displayName)
        return names.isEmpty ? nil : names
    }

    private struct HostTally {
        var requests = 0
        var flows = 0
        var bytesSent = 0
        var bytesReceived = 0
        var transports: Set<DestinationTransport> = []
        var protocols: Set<FlowStreams.Kind> = []
        /// HTTP major versions above 1 the host's requests used (2, 3).
        var laterVersions: Set<Int> = []
        var findings = 0
        var categories: Set<FindingCategory> = []
        var firstSeen: Date?
        var addresses: [String] = []
    }

    /// Same-flow findings are one request; without a flow id, method + URL name it.
    private struct RequestKey: Hashable {
        var flow: Int?
        var text: String?
        init(_ f: Finding) {
            flow = f.flow
            text = f.flow == nil ? "\(f.request.method) \(f.request.url)" : nil
        }
    }

    private struct CategoryTally {
        var findings = 0
        /// Leaking requests counted as their flows come; `looseRequests` for findings without a flow.
        var requests = 0
        var looseRequests = Set<RequestKey>()
        var hosts = Set<String>()
        var cleartext = 0
    }

    /// Mutates a dictionary value in place (no copy of its sets).
    private static func update<T>(_ value: inout T, _ body: (inout T) -> Void) { body(&value) }

    private struct PatternKey: Hashable {
        var category: FindingCategory, host: String, type: String, where_: String, encoding: String
    }

    /// One cell of the time histogram the timeline is cut from at the end.
    private struct TimeBin {
        var requests = 0
        var findings = 0
        var categories: UInt64 = 0
    }

    /// Distinct patterns tracked at most; later new ones are only counted (`omitted.findingPatterns`).
    static let trackedPatterns = 50_000
    /// Histogram cells at most; beyond, the cell width doubles.
    static let timeBins = 16_384

    private var tallies: [String: HostTally] = [:]
    private var start: Date?
    private var end: Date?
    private var requests = 0
    private var flowCount = 0
    private var sniHosts: [String: Date] = [:]
    private var dnsCount = 0
    private var resolved: [String: [String]] = [:]
    private var dnsHosts: [String: (first: String, addresses: [String])] = [:]
    private var findingCount = 0
    private var leakingRequests = 0
    private var looseLeaking = Set<RequestKey>()
    private var looseRequestsByHost: [String: Set<RequestKey>] = [:]
    private var perCategory: [FindingCategory: CategoryTally] = [:]
    private var patternIndex: [PatternKey: Int] = [:]
    private var patternList: [FindingPattern] = []
    private var patternKeys: [PatternKey] = []
    private var patternTimes: [(first: Date?, last: Date?)] = []
    private var untrackedPatterns = Set<Int>()
    private var untrackedPatternCount = 0
    private var cleartext = 0, encrypted = 0, metadata = 0
    private var bins: [Int64: TimeBin] = [:]
    private var binWidth = 0.001
    private var categoryBits: [FindingCategory: Int] = [:]

    private mutating func see(_ d: Date) {
        if start.map({ d < $0 }) ?? true { start = d }
        if end.map({ d > $0 }) ?? true { end = d }
    }

    private mutating func bin(_ t: Date, _ body: (inout TimeBin) -> Void) {
        if bins.count >= Self.timeBins {
            binWidth *= 2
            var merged: [Int64: TimeBin] = [:]
            for (k, b) in bins {
                Self.update(&merged[k >> 1, default: TimeBin()]) { m in
                    m.requests += b.requests
                    m.findings += b.findings
                    m.categories |= b.categories
                }
            }
            bins = merged
        }
        let key = Int64((t.timeIntervalSince1970 / binWidth + 1e-6).rounded(.down))
        Self.update(&bins[key, default: TimeBin()], body)
    }

    private mutating func categoryBit(_ c: FindingCategory) -> UInt64 {
        if let i = categoryBits[c] { return 1 << UInt64(i) }
        guard categoryBits.count < 64 else { return 0 }
        categoryBits[c] = categoryBits.count
        return 1 << UInt64(categoryBits.count - 1)
    }

    /// One flow of the inputs with the inspector's findings for it.
    public mutating func add(flow: Flow, findings: [Finding]) {
        flowCount += 1
        let host = flow.host.lowercased()
        let t = flow.timings.started
        if t.timeIntervalSince1970 > 0 {
            see(t)
            see(t.addingTimeInterval(flow.timings.total / 1000))
        }
        Self.update(&tallies[host, default: HostTally()]) { tally in
            tally.flows += 1
            tally.transports.insert(DestinationTransport(flow: flow))
            if let kind = FlowStreams.kind(of: flow) { tally.protocols.insert(kind) }
            if tally.firstSeen.map({ t < $0 }) ?? true { tally.firstSeen = t }
            if let r = flow.request {
                if r.head.version.major > 1 { tally.laterVersions.insert(r.head.version.major) }
                tally.requests += 1
                tally.bytesSent += Self.size(of: r)
            }
            if let r = flow.response { tally.bytesReceived += Self.size(of: r) }
            if let a = flow.server?.address, !a.isEmpty, tally.addresses.count < 8, !tally.addresses.contains(a) {
                tally.addresses.append(a)
            }
        }
        if flow.request != nil {
            requests += 1
            if t.timeIntervalSince1970 > 0 { bin(t) { $0.requests += 1 } }
        } else if let sni = flow.tls?.serverName?.lowercased(), !sni.isEmpty {
            if sniHosts[sni].map({ t < $0 }) ?? true { sniHosts[sni] = t }
        }
        guard !findings.isEmpty else { return }
        leakingRequests += 1
        var counted: [FindingCategory] = []
        for f in findings {
            add(f, time: t, requestKey: nil)
            if !counted.contains(f.category) {
                counted.append(f.category)
                perCategory[f.category, default: CategoryTally()].requests += 1
            }
        }
    }

    /// Findings whose flows are not part of the inputs (findings documents).
    public mutating func add(findings: [Finding]) {
        for f in findings {
            let key = RequestKey(f)
            looseLeaking.insert(key)
            let time = f.time.flatMap(ReportTime.parse)
            if let time, findingsOnly { see(time) }
            if findingsOnly, looseRequestsByHost[f.destination.host.lowercased(), default: []].insert(key).inserted,
               let time {
                // Without flows, each leaking request counts once, at its first finding.
                bin(time) { $0.requests += 1 }
            }
            add(f, time: time, requestKey: key)
        }
    }

    /// One DNS answer seen by the sources.
    public mutating func add(dns d: DNSObservation) {
        dnsCount += 1
        if d.time.timeIntervalSince1970 > 0 { see(d.time) }
        let name = d.name.lowercased()
        if !d.addresses.isEmpty {
            Self.update(&resolved[name, default: []]) { list in
                for a in d.addresses where list.count < 8 && !list.contains(a) { list.append(a) }
            }
        }
        guard !name.isEmpty else { return }
        let iso = ReportTime.iso(d.time)
        Self.update(&dnsHosts[name, default: (iso, [])]) { entry in
            if iso < entry.first { entry.first = iso }
            for a in d.addresses where !entry.addresses.contains(a) && entry.addresses.count < 8 { entry.addresses.append(a) }
        }
    }

    private mutating func add(_ f: Finding, time: Date?, requestKey: RequestKey?) {
        findingCount += 1
        let host = f.destination.host.lowercased()
        let known = findingDestinations[host]
        if known == nil || (f.destination.tracker != nil && known?.tracker == nil) { findingDestinations[host] = f.destination }
        let findingsOnly = self.findingsOnly
        Self.update(&tallies[host, default: HostTally()]) { tally in
            tally.findings += 1
            tally.categories.insert(f.category)
            if findingsOnly {
                tally.transports.insert(DestinationTransport(findingTransport: f.transport))
            }
        }
        let isCleartext = f.transport == "http"
        switch f.transport {
        case "http": cleartext += 1
        case "https": encrypted += 1
        default: metadata += 1
        }
        Self.update(&perCategory[f.category, default: CategoryTally()]) { c in
            c.findings += 1
            if let requestKey { c.looseRequests.insert(requestKey) }
            if !c.hosts.contains(host) { c.hosts.insert(host) }
            if isCleartext { c.cleartext += 1 }
        }
        if let time {
            let bit = categoryBit(f.category)
            bin(time) { b in
                b.findings += 1
                b.categories |= bit
            }
        }
        let key = PatternKey(category: f.category, host: host, type: f.type, where_: f.where, encoding: f.encoding)
        if let i = patternIndex[key] {
            patternList[i].occurrences += 1
            if !patternList[i].transports.contains(f.transport) { patternList[i].transports.append(f.transport) }
            if let time {
                if patternTimes[i].first.map({ time < $0 }) ?? true { patternTimes[i].first = time }
                if patternTimes[i].last.map({ time > $0 }) ?? true { patternTimes[i].last = time }
            }
        } else if patternList.count >= Self.trackedPatterns {
            if untrackedPatterns.count < Self.trackedPatterns, untrackedPatterns.insert(key.hashValue).inserted {
                untrackedPatternCount += 1
            }
        } else {
            patternIndex[key] = patternList.count
            patternKeys.append(key)
            patternTimes.append((time, time))
            patternList.append(FindingPattern(
                type: f.type, where: f.where, encoding: f.encoding, evidence: f.evidence, rule: f.rule,
                severity: f.severity, description: f.description, inner: f.inner, transports: [f.transport],
                occurrences: 1, firstSeen: nil, lastSeen: nil, exampleMethod: f.request.method,
                exampleURL: f.request.url, exampleFlow: f.flow))
        }
    }

    /// The summary of everything added so far, caps applied.
    public mutating func finish() -> AuditSummary {
        for i in patternList.indices {
            patternList[i].firstSeen = patternTimes[i].first.map(ReportTime.iso)
            patternList[i].lastSeen = patternTimes[i].last.map(ReportTime.iso)
        }
        var requests = self.requests
        if findingsOnly {
            requests = looseLeaking.count
            for (host, keys) in looseRequestsByHost { tallies[host]?.requests = keys.count }
        }
        let leakingRequests = self.leakingRequests + looseLeaking.count

        // Destinations (addresses from DNS first).
        var destinations: [AuditSummary.Destination] = []
        for (host, t) in tallies {
            var addresses = resolved[host] ?? []
            for a in t.addresses where addresses.count < 8 && !addresses.contains(a) { addresses.append(a) }
            let a = attribution(host)
            destinations.append(AuditSummary.Destination(
                host: host, company: a.company, trackerCategory: a.category, thirdParty: a.thirdParty,
                transports: t.transports.sorted(), requests: t.requests, flows: max(t.flows, t.requests),
                bytesSent: t.bytesSent, bytesReceived: t.bytesReceived, findings: t.findings,
                categories: CategoryNames.sorted(t.categories), addresses: addresses, owner: a.owner,
                ownerCountry: a.ownerCountry, service: a.service, partyReason: a.partyReason,
                attributionBasis: a.attributionBasis, attributionChecked: a.attributionChecked,
                protocols: Self.protocolNames(t)))
        }
        destinations.sort { a, b in
            if a.findings != b.findings { return a.findings > b.findings }
            if a.requests != b.requests { return a.requests > b.requests }
            return a.host < b.host
        }
        let undecrypted = destinations.filter { d in
            d.transports.contains(.tlsNotDecrypted) || d.transports.contains(.quic)
        }.count

        // Categories and verdict.
        let categoryNames = CategoryNames.sorted(perCategory.keys)
        var categories: [AuditSummary.CategoryCount] = []
        for name in categoryNames {
            guard let c = perCategory[name] else { continue }
            var companies = Set<String>()
            for h in c.hosts { companies.insert(companyLabel(h)) }
            categories.append(AuditSummary.CategoryCount(
                category: name, findings: c.findings, requests: c.requests + c.looseRequests.count, hosts: c.hosts.count,
                companies: companies.count, cleartext: c.cleartext))
        }
        let leakingHosts = destinations.filter { $0.findings > 0 }
        let companies = Array(Set(leakingHosts.compactMap(\.company))).sorted()
        let unattributed = leakingHosts.filter { $0.company == nil && $0.thirdParty }.count
        let appHosts = leakingHosts.filter { $0.company == nil && !$0.thirdParty }.count
        var verdict = AuditSummary.Verdict(
            requests: requests, flows: findingsOnly ? requests : flowCount, findings: findingCount,
            leakingRequests: leakingRequests, categoriesFound: categoryNames, companies: companies,
            unattributedHosts: unattributed, appHosts: appHosts, hostsReceivingData: leakingHosts.count,
            thirdPartyHostsReceivingData: leakingHosts.filter(\.thirdParty).count,
            cleartextFindings: cleartext, encryptedFindings: encrypted, metadataFindings: metadata,
            undecryptedHosts: undecrypted, headline: "", detail: "")
        (verdict.headline, verdict.detail) = Self.words(verdict, hosts: destinations.count)

        // Data-flow matrix: categories × companies, biggest receivers first, overflow in `others`.
        var columnTotals: [String: Int] = [:]
        var cellCounts: [FindingCategory: [String: Int]] = [:]
        for (key, p) in zip(patternKeys, patternList) {
            let company = companyLabel(key.host)
            columnTotals[company, default: 0] += p.occurrences
            cellCounts[key.category, default: [:]][company, default: 0] += p.occurrences
        }
        var columns = columnTotals.keys.sorted { a, b in
            columnTotals[a] != columnTotals[b] ? columnTotals[a, default: 0] > columnTotals[b, default: 0] : a < b
        }
        var omittedCompanies = 0
        if columns.count > limits.matrixCompanies {
            omittedCompanies = columns.count - (limits.matrixCompanies - 1)
            columns = Array(columns.prefix(limits.matrixCompanies - 1))
        }
        let shown = Set(columns)
        if omittedCompanies > 0 { columns.append("others (\(omittedCompanies) companies or hosts)") }
        let cells = categoryNames.map { cat -> [Int] in
            let row = cellCounts[cat] ?? [:]
            var values = columns.prefix(shown.count).map { row[$0] ?? 0 }
            if omittedCompanies > 0 { values.append(row.filter { !shown.contains($0.key) }.values.reduce(0, +)) }
            return values
        }
        let matrix = AuditSummary.DataFlowMatrix(categories: categoryNames, companies: columns, cells: cells)

        // Finding groups (category, host), patterns capped per group and overall.
        var grouped: [FindingCategory: [String: [FindingPattern]]] = [:]
        for (key, p) in zip(patternKeys, patternList) {
            grouped[key.category, default: [:]][key.host, default: []].append(p)
        }
        var groups: [FindingGroup] = []
        var budget = limits.patternsTotal
        var omittedPatterns = untrackedPatternCount
        for cat in categoryNames {
            let hosts = (grouped[cat] ?? [:]).map { host, ps in (host, ps, ps.reduce(0) { $0 + $1.occurrences }) }
                .sorted { $0.2 != $1.2 ? $0.2 > $1.2 : $0.0 < $1.0 }
            for (host, ps, total) in hosts {
                let sorted = ps.sorted { a, b in
                    if a.occurrences != b.occurrences { return a.occurrences > b.occurrences }
                    return (a.type, a.where, a.encoding) < (b.type, b.where, b.encoding)
                }
                let take = min(sorted.count, limits.patternsPerGroup, max(budget, 0))
                budget -= take
                omittedPatterns += sorted.count - take
                let a = attribution(host)
                groups.append(FindingGroup(
                    category: cat, host: host, company: a.company, thirdParty: a.thirdParty, findings: total,
                    patterns: Array(sorted.prefix(take)), omittedPatterns: sorted.count - take))
            }
        }

        // Timeline, cut from the histogram.
        let duration = max(0, (end ?? start ?? Date(timeIntervalSince1970: 0)).timeIntervalSince(start ?? Date(timeIntervalSince1970: 0)))
        let bucketCount = max(1, limits.timelineBuckets)
        let bucket = duration > 0 ? duration / Double(bucketCount) : 1
        var points = (0..<(duration > 0 ? bucketCount : 1)).map {
            AuditSummary.TimelinePoint(offset: Double($0) * bucket, requests: 0, findings: 0, categories: [])
        }
        if let s = start {
            var bucketCategories = [UInt64](repeating: 0, count: points.count)
            for (key, b) in bins {
                let t = Double(key) * binWidth
                let i = min(max(Int((t - s.timeIntervalSince1970) / bucket), 0), points.count - 1)
                points[i].requests += b.requests
                points[i].findings += b.findings
                bucketCategories[i] |= b.categories
            }
            for i in points.indices {
                let names = categoryBits.filter { bucketCategories[i] & (1 << UInt64($0.value)) != 0 }.map(\.key)
                points[i].categories = CategoryNames.sorted(names)
            }
        } else {
            points = []
        }
        let timeline = AuditSummary.Timeline(start: start.map(ReportTime.iso), bucketSeconds: bucket,
                                             durationSeconds: duration, points: points)

        // Hosts seen only in DNS answers or TLS ClientHellos.
        var metadataHosts: [String: AuditSummary.MetadataOnlyHost] = [:]
        let readable = Set(tallies.filter { $0.value.requests > 0 }.map(\.key))
        for (host, d) in dnsHosts where !readable.contains(host) {
            var entry = Self.metadataHost(host, attribution(host))
            entry.seenIn = ["dns"]
            entry.firstSeen = d.first
            entry.addresses = d.addresses
            metadataHosts[host] = entry
        }
        for (host, t) in sniHosts where !readable.contains(host) {
            var entry = metadataHosts[host] ?? Self.metadataHost(host, attribution(host))
            if !entry.seenIn.contains("sni") { entry.seenIn.append("sni") }
            let iso = ReportTime.iso(t)
            if entry.firstSeen.map({ iso < $0 }) ?? true { entry.firstSeen = iso }
            metadataHosts[host] = entry
        }
        var metadataList = metadataHosts.values.sorted { a, b in
            a.thirdParty != b.thirdParty ? a.thirdParty : a.host < b.host
        }
        let omittedMetadata = max(0, metadataList.count - limits.metadataOnlyHosts)
        metadataList = Array(metadataList.prefix(limits.metadataOnlyHosts))
        let omittedDestinations = max(0, destinations.count - limits.destinations)
        destinations = Array(destinations.prefix(limits.destinations))

        let methodology = AuditSummary.Methodology(
            tool: context.toolName, toolVersion: context.toolVersion, inputs: context.inputs, source: context.source,
            app: context.app, firstPartyDomains: context.firstPartyDomains, deviceName: context.deviceName,
            deviceProfile: context.deviceProfile, rulesVersion: context.rulesVersion,
            captureStart: start.map(ReportTime.iso), captureEnd: end.map(ReportTime.iso),
            durationSeconds: duration, dnsObservations: dnsCount, warnings: context.warnings)

        return AuditSummary(
            verdict: verdict, categories: categories, destinations: destinations, dataFlows: matrix,
            findingGroups: groups, timeline: timeline, metadataOnlyHosts: metadataList, methodology: methodology,
            omitted: AuditSummary.Omitted(destinations: omittedDestinations, metadataOnlyHosts: omittedMetadata,
                                          findingPatterns: omittedPatterns, matrixCompanies: omittedCompanies))
    }

    private static func metadataHost(_ host: String, _ a: DestinationInfo) -> AuditSummary.MetadataOnlyHost {
        AuditSummary.MetadataOnlyHost(host: host, seenIn: [], company: a.company, trackerCategory: a.category,
                                      thirdParty: a.thirdParty, firstSeen: nil, addresses: [])
    }

    /// Bytes of a request as sent: request line, header fields and body.
    static func size(of r: HTTPRequest) -> Int {
        r.head.method.utf8.count + r.head.target.utf8.count + 12 + headerBytes(r.head.headers) + r.body.count
    }

    static func size(of r: HTTPResponse) -> Int {
        17 + r.head.reason.utf8.count + headerBytes(r.head.headers) + r.body.count
    }

    private static func headerBytes(_ h: HTTPHeaders) -> Int {
        h.fields.reduce(0) { $0 + $1.name.utf8.count + $1.valueBytes.count + 4 } + 2
    }

    /// The verdict in plain words: headline and supporting detail.
    static func words(_ v: AuditSummary.Verdict, hosts: Int) -> (String, String) {
        let plural = { (n: Int, one: String, many: String) in counted(n, one, many) }
        guard v.findings > 0 else {
            var detail = "\(plural(v.requests, "request", "requests")) to \(plural(hosts, "host", "hosts")) were inspected"
            if v.undecryptedHosts > 0 {
                detail += "; the traffic of \(plural(v.undecryptedHosts, "host", "hosts")) stayed encrypted and could not be inspected"
            }
            return ("No personal data of the device or its owner was seen leaving the device.", detail + ".")
        }
        let what = CategoryNames.list(v.categoriesFound.map(CategoryNames.words))
        // Who received it: the app's own servers, named companies, hosts nobody claims.
        var recipients: [String] = []
        if v.appHosts > 0 { recipients.append(v.appHosts == 1 ? "the app's own server" : "the app's own servers (\(v.appHosts) hosts)") }
        if !v.companies.isEmpty { recipients.append(plural(v.companies.count, "company", "companies")) }
        if v.unattributedHosts > 0 { recipients.append(plural(v.unattributedHosts, "host of unknown owner", "hosts of unknown owner")) }
        let whom = "to " + CategoryNames.list(recipients)
        let headline = "\(what.prefix(1).uppercased() + what.dropFirst()) left the device, \(whom)."
        var parts: [String] = []
        if v.cleartextFindings > 0 {
            parts.append("\(plural(v.cleartextFindings, "finding was", "findings were")) sent in clear text, readable by anyone on the network path")
        }
        if v.encryptedFindings > 0 {
            parts.append("\(plural(v.encryptedFindings, "finding was", "findings were")) sent encrypted (TLS), readable by the receiver")
        }
        if v.metadataFindings > 0 {
            parts.append("\(plural(v.metadataFindings, "finding was", "findings were")) seen in connection metadata")
        }
        var detail = parts.joined(separator: "; ") + "."
        detail = detail.prefix(1).uppercased() + detail.dropFirst()
        detail += " \(plural(v.leakingRequests, "request", "requests")) of \(v.requests) carried personal data"
        detail += v.thirdPartyHostsReceivingData > 0
            ? ", to \(plural(v.hostsReceivingData, "host", "hosts")) of which \(v.thirdPartyHostsReceivingData) \(v.thirdPartyHostsReceivingData == 1 ? "is a third party" : "are third parties")."
            : ", all to first-party hosts."
        if v.undecryptedHosts > 0 {
            detail += " The traffic of \(plural(v.undecryptedHosts, "host", "hosts")) stayed encrypted and could not be inspected."
        }
        return (headline, detail)
    }
}

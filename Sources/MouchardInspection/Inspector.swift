import Foundation
import MouchardFlow

/// The heart of Mouchard: looks at one flow and says which of the user's data left the device,
/// where in the request, how it was hidden and to whom it went.
///
/// Sources call `inspect(_:)` once per completed flow (the proxy and sniffer as flows complete,
/// `scan` over a file); reports use `summarize(_:)` over the findings. An `Inspector` is
/// immutable and `Sendable`: build it once (rules, profile, attribution) and share it across threads.
public struct Inspector: Sendable {
    public let rules: RuleSet
    public let profile: DeviceProfile?
    public let knownValues: KnownValueMatcher?
    public let attribution: any DestinationAttributing
    public let extractor: FieldExtractor
    /// Skip the decode walk for requests, and the parts of requests, whose raw bytes cannot hold a
    /// profile value (profile mode only; see `RequestInterest`). On by default; off to measure or
    /// debug the walk itself.
    public var rawPrefilter = true
    /// Per profile target (same index as `knownValues.targets`): rule id, words and severity of
    /// its detections, built once instead of per hit.
    private let targetWords: [(rule: String, what: String, severity: String)]

    /// `profile` switches on known-value matching (exact device values in any encoding); without it
    /// the pattern rules (shapes, validators, key hints) are used.
    public init(rules: RuleSet, profile: DeviceProfile? = nil, attribution: any DestinationAttributing = FirstPartyDomains([]),
                extractor: FieldExtractor = FieldExtractor()) {
        self.rules = rules
        self.profile = profile
        let knownValues = profile.map { KnownValueMatcher(profile: $0) }
        self.knownValues = knownValues
        self.targetWords = (knownValues?.targets ?? []).map {
            ("profile.\($0.type)", describe(category: $0.category, type: $0.type), severity(of: $0.category))
        }
        self.attribution = attribution
        self.extractor = extractor
    }

    /// The findings of one flow, one per (category, type, where), most confident first kept.
    /// This is what live sources (proxy, sniffer) call as each flow completes.
    public func inspect(_ flow: Flow) -> [Finding] {
        guard let request = flow.request else { return [] }
        let facts = RequestFacts(request)
        return findings(flow, facts, detect(request, facts: facts, transport: flow.transport))
    }

    /// Findings of many flows (a capture file, a session), in flow order. In pattern mode the
    /// whole capture is used to tell the device's own position from places it looked up: when
    /// most coordinate pairs cluster in one spot, pairs far from it (a searched city, a
    /// destination) are dropped. Per-flow `inspect(_:)` cannot do that.
    public func inspect(_ flows: [Flow]) -> [Finding] {
        var perFlow: [(Flow, RequestFacts, [Detection])] = []
        for flow in flows {
            guard let request = flow.request else { continue }
            let facts = RequestFacts(request)
            perFlow.append((flow, facts, detect(request, facts: facts, transport: flow.transport)))
        }
        if knownValues == nil, let consensus = LocationConsensus(perFlow.flatMap { $0.2.compactMap(\.coordinate) }) {
            perFlow = perFlow.map { flow, facts, ds in
                (flow, facts, ds.filter { d in d.coordinate.map { consensus.keeps($0) } ?? true })
            }
        }
        return perFlow.flatMap { findings($0.0, $0.1, $0.2) }
    }

    func findings(_ flow: Flow, _ facts: RequestFacts, _ detections: [Detection]) -> [Finding] {
        guard let request = flow.request, !detections.isEmpty else { return [] }
        let located = facts.located()
        let host = located.host.isEmpty ? flow.host : located.host
        let info = attribution.attribute(host: host)
        let destination = FindingDestination(host: host, tracker: info.company, trackerCategory: info.category, thirdParty: info.thirdParty)
        let req = FindingRequest(method: request.method, url: located.url)
        let time = isoTime(flow.timings.started)
        let company = info.company.map { " (" + $0 + ")" } ?? ""
        let transport = flow.transport.rawValue
        return detections.map { d in
            var where_ = d.origin.location
            var inner = d.origin.inner
            if let w = d.whereOverride { where_ = w.location; inner = w.inner }
            // One buffer for the sentence (chained `+` would allocate at every step).
            var description = ""
            description.reserveCapacity(d.what.utf8.count + host.utf8.count + company.utf8.count + where_.utf8.count
                                        + (inner?.utf8.count ?? 0) + d.encoding.utf8.count + 40)
            description += d.what
            description += " sent to "
            description += host
            description += company
            description += " in "
            description += where_
            if let inner { description += " → "; description += inner }
            if d.encoding == "plain" { description += " in clear." } else { description += " encoded as "; description += d.encoding; description += "." }
            return Finding(category: d.category, type: d.type, request: req, destination: destination, where: where_,
                           encoding: d.encoding, evidence: maskEvidence(d.evidence), rule: d.rule, transport: transport,
                           flow: flow.id, confidence: d.confidence, severity: d.severity,
                           description: description, time: time, inner: inner)
        }
    }

    /// What the detectors saw in one request (before destination and request are attached).
    public func detect(_ request: HTTPRequest, transport: FlowTransport = .https) -> [Detection] {
        detect(request, facts: RequestFacts(request), transport: transport)
    }

    func detect(_ request: HTTPRequest, facts: RequestFacts, transport: FlowTransport) -> [Detection] {
        let target = Array(facts.pathAndQuery.utf8)
        var pruning: (interest: RequestInterest, matcher: KnownValueMatcher)?
        if rawPrefilter, let kv = knownValues {
            let interest = kv.interest(request, target: target, pathAndQuery: facts.pathAndQuery, passwordKeys: rules.passwordKeys,
                                       cleartext: transport == .http || request.scheme == "http")
            if !interest.needsWalk { return [] }
            pruning = (interest, kv)
        }
        let extracted = extractor.extract(request, target: target, pruning: pruning)
        var out = DetectionSet()
        if let kv = knownValues {
            profileDetections(kv, extracted, into: &out)
        } else {
            PatternDetector(rules: rules).detect(extracted, into: &out)
        }
        CredentialDetector(rules: rules).detect(request, extracted, transport: transport, into: &out)
        return out.ordered
    }

    func profileDetections(_ kv: KnownValueMatcher, _ extracted: FieldExtractor.Result, into out: inout DetectionSet) {
        for field in extracted.fields {
            for hit in kv.hits(in: field.bytes) {
                let t = hit.target
                // A variant matched inside an encoded blob (base64 fragment) explains less than the
                // same value found after decoding the blob: let the decoded hit win the dedupe.
                let confidence = t.transform == "base64" ? 0.95 : 1.0
                let words: (rule: String, what: String, severity: String) = hit.targetIndex.map { targetWords[$0] }
                    ?? ("profile.\(t.type)", describe(category: t.category, type: t.type), severity(of: t.category))
                out.add(Detection(category: t.category, type: t.type, origin: field.origin,
                                  encoding: field.origin.encodingChain(first: t.transform), evidence: hit.matched,
                                  rule: words.rule, confidence: confidence, severity: words.severity, what: words.what))
            }
        }
        for (t, origin, text) in kv.splitNameHits(extracted.fields) {
            out.add(Detection(category: t.category, type: t.type, origin: origin, encoding: origin.encodingChain(),
                              evidence: text, rule: "profile.\(t.type)", confidence: 0.9, severity: severity(of: t.category),
                              what: describe(category: t.category, type: t.type)))
        }
        for group in extracted.groups {
            for (a, b) in group.candidatePairs() where a.decimals >= kv.minimumDecimals && b.decimals >= kv.minimumDecimals {
                guard kv.isNearProfile(latitude: a.value, longitude: b.value) else { continue }
                out.add(Detection.coordinates(group: group, a, b, rule: "profile.location", confidence: 1.0))
            }
        }
    }
}

/// One thing a detector saw, before it becomes a `Finding`.
public struct Detection: Sendable, Hashable {
    public var category: String
    public var type: String
    public var origin: FieldOrigin
    public var encoding: String
    /// The matched text (unmasked: masked when it becomes a finding).
    public var evidence: String
    public var rule: String
    public var confidence: Double
    public var severity: String
    /// Human words for the data (`the device's IDFA`).
    public var what: String
    /// For a pair of fields (coordinates): the combined location.
    public var whereOverride: Place?
    /// For a location: the point itself.
    public var coordinate: Coordinate?

    /// A location and inner path.
    public struct Place: Sendable, Hashable {
        public var location: String
        public var inner: String?
    }

    public init(category: String, type: String, origin: FieldOrigin, encoding: String, evidence: String, rule: String,
                confidence: Double, severity: String, what: String, whereOverride: Place? = nil) {
        self.category = category
        self.type = type
        self.origin = origin
        self.encoding = encoding
        self.evidence = evidence
        self.rule = rule
        self.confidence = confidence
        self.severity = severity
        self.what = what
        self.whereOverride = whereOverride
    }

    var whereKey: String {
        let p = whereOverride ?? Place(location: origin.location, inner: origin.inner)
        return p.location
    }

    static func coordinates(group: NumberGroup, _ a: NumberGroup.Member, _ b: NumberGroup.Member, rule: String, confidence: Double) -> Detection {
        let place: Place
        if group.fromOneString {
            place = Place(location: group.prefix, inner: group.inner)
        } else if let inner = group.inner {
            place = Place(location: group.prefix, inner: inner + "\(a.key),\(b.key)")
        } else {
            place = Place(location: group.prefix + "\(a.key),\(b.key)", inner: nil)
        }
        var d = Detection(category: "location", type: "coordinates",
                         origin: FieldOrigin(location: place.location, inner: place.inner, decodings: group.decodings, key: a.key),
                         encoding: FieldOrigin(location: "", decodings: group.decodings).encodingChain(),
                         evidence: "\(a.value),\(b.value)", rule: rule, confidence: confidence, severity: "high",
                         what: "The device's location", whereOverride: place)
        d.coordinate = Coordinate(latitude: a.value, longitude: b.value)
        return d
    }
}

/// Detections of one request, deduplicated by (category, type, where), keeping the most confident.
/// A request usually has a handful: up to `linearLimit` they are compared field by field without
/// hashing; past it (a huge body full of values) an index keeps `add` and `ordered` linear.
struct DetectionSet {
    /// (category, type, where): compared field by field, no joined string per detection.
    private struct Key: Hashable {
        var category: String
        var type: String
        var where_: String
    }
    private static let linearLimit = 24
    private var byKey: [Key: Int] = [:]
    private(set) var items: [Detection] = []

    mutating func add(_ d: Detection) {
        let place = d.whereOverride?.location ?? d.origin.location
        if items.count <= Self.linearLimit {
            for i in items.indices where items[i].category == d.category && items[i].type == d.type
                && (items[i].whereOverride?.location ?? items[i].origin.location) == place {
                if d.confidence > items[i].confidence { items[i] = d }
                return
            }
            items.append(d)
            if items.count > Self.linearLimit {
                for (i, item) in items.enumerated() {
                    byKey[Key(category: item.category, type: item.type, where_: item.whereOverride?.location ?? item.origin.location)] = i
                }
            }
            return
        }
        let key = Key(category: d.category, type: d.type, where_: place)
        if let i = byKey[key] {
            if d.confidence > items[i].confidence { items[i] = d }
            return
        }
        byKey[key] = items.count
        items.append(d)
    }

    /// The detections in order, without the weaker reading of a value that another type explains
    /// better: the same evidence at the same place (e.g. one UUID under `ifa`) is an IDFA at 1.0, not
    /// also an IDFV at 0.55. Equally confident readings are all kept.
    var ordered: [Detection] {
        guard items.count > 1 else { return items }
        struct Place: Hashable {
            var category: String
            var where_: String
            var inner: String?
            var evidence: String
        }
        func place(_ d: Detection) -> Place {
            Place(category: d.category, where_: d.whereOverride?.location ?? d.origin.location,
                  inner: d.whereOverride?.inner ?? d.origin.inner, evidence: d.evidence)
        }
        if items.count <= Self.linearLimit {
            return items.filter { d in
                !items.contains { other in other.confidence > d.confidence && other.category == d.category && place(other) == place(d) }
            }
        }
        var best: [Place: Double] = [:]
        for d in items { best[place(d), default: 0] = max(best[place(d)] ?? 0, d.confidence) }
        return items.filter { d in d.confidence >= (best[place(d)] ?? 0) }
    }
    var isEmpty: Bool { items.isEmpty }
}

extension NumberGroup {
    /// Ordered (latitude, longitude) candidates: adjacent numbers of one string in both orders,
    /// or every ordered pair of sibling fields.
    func candidatePairs() -> [(Member, Member)] {
        var out: [(Member, Member)] = []
        let m = members.prefix(32)
        if fromOneString {
            for i in m.indices.dropLast() {
                out.append((m[i], m[i + 1]))
                out.append((m[i + 1], m[i]))
            }
        } else {
            for i in m.indices { for j in m.indices where i != j { out.append((m[i], m[j])) } }
        }
        return out
    }
}

func severity(of category: String) -> String {
    switch category {
    case "device-id", "location", "contacts", "credentials": "high"
    default: "medium"
    }
}

func describe(category: String, type: String) -> String {
    typeDescriptions[type] ?? "A \(category) value (\(type))"
}

private let typeDescriptions: [String: String] = [
        "udid": "The device's UDID", "idfa": "The device's IDFA", "idfv": "The device's IDFV",
        "android_id": "The device's Android ID", "advertising_id": "The device's advertising ID",
        "imei": "The device's IMEI", "imsi": "The SIM's IMSI", "iccid": "The SIM's ICCID", "serial": "The device's serial number",
        "mac": "The device's MAC address", "email": "The owner's e-mail address", "phone": "The owner's phone number",
        "name": "The owner's name", "coordinates": "The device's location", "contact-name": "A contact's name",
        "contact-phone": "A contact's phone number", "contact-email": "A contact's e-mail address",
        "password": "A password", "basic-auth": "HTTP Basic credentials",
    ]

/// The finding's time: ISO 8601 UTC with milliseconds, none for the epoch placeholder of flows without a time.
func isoTime(_ date: Date) -> String? {
    let t = date.timeIntervalSince1970
    guard t > 0, t < 1e11 else { return nil }
    return ISO8601Time.format(date)
}

import Foundation
import MouchardFindings
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
    /// Per profile target (same index as `knownValues.targets`): what its detections say, built
    /// once instead of per hit.
    private let targetWords: [TargetWords]
    /// The same for the targets of phone numbers found by their digits (hits without an index), one
    /// per kind of target (the words follow from category, type and transform): a handful (the
    /// owner's, the contacts'), found by comparing short strings instead of hashing whole targets.
    private let phoneTargetWords: [TargetWords]
    /// `rules.passwordKeys`, read once for the span scan and the credential detector of cleartext requests.
    private let passwordKeySearch: FoldedKeySearch
    /// Which header values may hold one of those keys, remembered across requests (see `HeaderValueCache`).
    private let headerKeyAnswers = HeaderValueCache<Bool>()
    /// `knownValues` as the decode walk holds it (by reference: see `WalkMatcher`).
    private let walkMatcher: WalkMatcher?
    /// What each Host value says (host, port), read once for all the requests with findings.
    private let hostReadings = HostReadingCache()
    /// The pattern rules compiled once (pattern mode: without a profile).
    private let patternDetector: PatternDetector

    /// `profile` switches on known-value matching (exact device values in any encoding); without it
    /// the pattern rules (shapes, validators, key hints) are used.
    public init(rules: RuleSet, profile: DeviceProfile? = nil, attribution: any DestinationAttributing = FirstPartyDomains([]),
                extractor: FieldExtractor = FieldExtractor()) {
        self.rules = rules
        self.profile = profile
        let knownValues = profile.map { KnownValueMatcher(profile: $0) }
        self.knownValues = knownValues
        self.walkMatcher = knownValues.map(WalkMatcher.init)
        // One `DetectionWords` per (category, type): the targets of a kind share it (see `DetectionWords.isInterned`).
        var kinds = DetectionWords.Interner()
        self.targetWords = knownValues.map { kv in
            zip(kv.targets, kv.variantTexts).map { TargetWords($0, variantText: $1, kinds: &kinds) }
        } ?? []
        var phoneTargetWords: [TargetWords] = []
        if let knownValues {
            for targets in knownValues.phoneDigits.values {
                for t in targets where !phoneTargetWords.contains(where: { $0.isOfKind(t) }) {
                    phoneTargetWords.append(TargetWords(t, kinds: &kinds))
                }
            }
        }
        self.phoneTargetWords = phoneTargetWords
        self.passwordKeySearch = FoldedKeySearch(rules.passwordKeys)
        self.patternDetector = PatternDetector(rules: rules)
        self.attribution = attribution
        self.extractor = extractor
    }

    /// The findings of one flow, one per (category, type, where), most confident first kept.
    /// This is what live sources (proxy, sniffer) call as each flow completes.
    public func inspect(_ flow: Flow) -> [Finding] {
        guard let request = flow.request else { return [] }
        let facts = RequestFacts(request)
        return findings(flow, request, facts, detect(request, facts: facts, transport: flow.transport, streams: FlowStreams(flow)))
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
            perFlow.append((flow, facts, detect(request, facts: facts, transport: flow.transport, streams: FlowStreams(flow))))
        }
        if knownValues == nil, let consensus = LocationConsensus(perFlow.flatMap { $0.2.compactMap(\.coordinate) }) {
            perFlow = perFlow.map { flow, facts, ds in
                (flow, facts, ds.filter { d in d.coordinate.map { consensus.keeps($0) } ?? true })
            }
        }
        return perFlow.flatMap { flow, facts, detections in
            flow.request.map { findings(flow, $0, facts, detections) } ?? []
        }
    }

    func findings(_ flow: Flow, _ request: HTTPRequest, _ facts: RequestFacts, _ detections: [Detection]) -> [Finding] {
        guard !detections.isEmpty else { return [] }
        let located = facts.located(request, hosts: hostReadings)
        let host = located.host.isEmpty ? flow.host : located.host
        let info = attribution.attribute(host: host)
        let destination = FindingDestination(host: host, tracker: info.company, trackerCategory: info.category, thirdParty: info.thirdParty,
                                             owner: info.owner)
        let req = FindingRequest(method: request.method, url: located.url)
        let time = isoTime(flow.timings.started)
        // The part of every sentence that is the same for the whole flow.
        let sentTo = FindingSentence.sentTo(host: host, company: info.company)
        let transport = flow.transport.rawValue
        return detections.map { d in
            // What a server's message carried was received from the host, not sent to it (`MessageWalk`).
            let received = d.whereKey.hasSuffix(MessageLabels.serverMark)
            return d.finding(request: req, destination: destination, sentTo: received ? sentTo.received : sentTo, transport: transport,
                             flow: flow.id, time: time)
        }
    }

    /// What the detectors saw in one request (before destination and request are attached).
    public func detect(_ request: HTTPRequest, transport: FlowTransport = .https) -> [Detection] {
        detect(request, facts: RequestFacts(request), transport: transport)
    }

    /// `streams`: the flow's messages besides the request's own body (which the body walk reads,
    /// gRPC messages included): a WebSocket connection's, gRPC responses, SSE events.
    func detect(_ request: HTTPRequest, facts: RequestFacts, transport: FlowTransport, streams: FlowStreams? = nil) -> [Detection] {
        let scanned = scanStage(request, facts: facts, transport: transport)
        guard let streams else {
            guard let scanned else { return [] }
            return matchStage(request, walkStage(request, scanned), transport: transport)
        }
        var extracted = scanned.map { walkStage(request, $0) } ?? FieldExtractor.Result()
        extractor.extract(streams, into: &extracted, matcher: rawPrefilter ? walkMatcher : nil)
        guard scanned != nil || !extracted.fields.isEmpty || !extracted.groups.isEmpty else { return [] }
        return matchStage(request, extracted, transport: transport)
    }

    /// The first stage of `detect`: the request target's bytes and, with a device profile, where
    /// the raw bytes may hold a profile value (the walk's pruning); nil when they can hold none
    /// (nothing to walk, no detection).
    func scanStage(_ request: HTTPRequest, facts: RequestFacts, transport: FlowTransport) -> ScannedRequest? {
        let target = Array(facts.pathAndQuery.utf8)
        guard rawPrefilter, knownValues != nil else { return ScannedRequest(target: target, pruning: nil) }
        // The matcher is lent in place (see `matchStage`).
        let interest = knownValues!.interest(request, target: target, pathAndQuery: facts.pathAndQuery, passwordKeys: passwordKeySearch,
                                             keyAnswers: headerKeyAnswers, cleartext: CredentialDetector.applies(to: request, transport: transport))
        guard interest.needsWalk else { return nil }
        return ScannedRequest(target: target, pruning: interest)
    }

    /// The second stage: the decode walk, pruned by the scan's spans.
    func walkStage(_ request: HTTPRequest, _ scanned: ScannedRequest) -> FieldExtractor.Result {
        extractor.extract(request, target: scanned.target, pruning: scanned.pruning, matcher: walkMatcher)
    }

    /// The last stage: the detectors over the walked fields, deduplicated.
    func matchStage(_ request: HTTPRequest, _ extracted: FieldExtractor.Result, transport: FlowTransport) -> [Detection] {
        var out = DetectionSet()
        if knownValues != nil {
            // Lent in place: `if let` would copy the matcher and destroy the copy through the
            // runtime's generic witnesses, once per request.
            profileDetections(knownValues!, extracted, into: &out)
        } else {
            patternDetector.detect(extracted, into: &out)
        }
        // Made only for the requests it looks at (copying and destroying its keys costs, for every request).
        if CredentialDetector.applies(to: request, transport: transport) {
            CredentialDetector(rules: rules, keySearch: passwordKeySearch).detect(request, extracted, transport: transport, into: &out)
        }
        return out.ordered
    }

    func profileDetections(_ kv: KnownValueMatcher, _ extracted: FieldExtractor.Result, into out: inout DetectionSet) {
        let fields = extracted.fields
        kv.forEachHit(inFields: fields) { i, index, phoneTarget, matched, isVariantText in
            let words = index.map { targetWords[$0] } ?? phoneTarget.flatMap { t in phoneTargetWords.first { $0.isOfKind(t) } }
            guard let words else { return }
            let origin = fields[i].origin
            // A hit the set already holds as confidently (a value seen twice at one place) is not built.
            out.add(words: words.shared, place: origin.location, confidence: words.confidence) {
                Detection(words: words.shared, origin: origin, encoding: origin.encodingChain(first: words.chainFirst), evidence: matched,
                          confidence: words.confidence, maskedEvidence: isVariantText ? words.maskedVariant : nil)
            }
        }
        for (t, origin, text) in kv.splitNameHits(extracted.fields) {
            out.add(Detection(category: t.category, type: t.type, origin: origin, encoding: origin.encodingChain(),
                              evidence: text, rule: "profile.\(t.type)", confidence: 0.9, severity: severity(of: t.category),
                              what: describe(category: t.category, type: t.type)))
        }
        for group in extracted.groups {
            group.forEachCandidatePair { a, b in
                guard a.decimals >= kv.minimumDecimals, b.decimals >= kv.minimumDecimals,
                      kv.isNearProfile(latitude: a.value, longitude: b.value) else { return }
                out.add(Detection.coordinates(group: group, a, b, rule: "profile.location", confidence: 1.0))
            }
        }
    }
}

/// What the detections of one profile target say (rule, words, severity, confidence), built once
/// per target when the inspector is made (a class: one retain per hit).
private final class TargetWords: Sendable {
    let category: FindingCategory
    let type: String
    let transform: ValueTransform
    /// The target's transform, first in the encoding chain (`md5`, `base64`...), nil for `plain`.
    let chainFirst: String?
    let rule: String
    let what: String
    let severity: Severity
    /// A variant matched inside an encoded blob (base64 fragment) explains less than the same value
    /// found after decoding the blob: 0.95 lets the decoded hit win the dedupe.
    let confidence: Double
    /// `maskEvidence` of the variant's text, for hits that match it byte for byte.
    let maskedVariant: String?
    /// category, type, rule, severity and what, as every detection of the target holds them.
    let shared: DetectionWords

    /// `kinds` gives the words every target of `t`'s category and type shares.
    init(_ t: KnownValueMatcher.Target, variantText: String? = nil, kinds: inout DetectionWords.Interner) {
        maskedVariant = variantText.map(maskEvidence)
        category = t.category
        type = t.type
        transform = t.transform
        chainFirst = t.transform == .plain ? nil : t.transform.rawValue
        rule = "profile.\(t.type)"
        what = describe(category: t.category, type: t.type)
        severity = MouchardInspection.severity(of: t.category)
        confidence = t.transform == .base64 ? 0.95 : 1.0
        shared = kinds.words(category: category, type: type, rule: rule, severity: severity, what: what)
    }

    /// What the detections of `t` say too, when it has no variant text of its own (same category,
    /// type and transform).
    func isOfKind(_ t: KnownValueMatcher.Target) -> Bool {
        category == t.category && type == t.type && transform == t.transform
    }
}

/// One thing a detector saw, before it becomes a `Finding`.
///
/// A value type whose fields live in one copy-on-write box: detections are copied into the
/// request's set, kept or replaced, filtered and read again for the finding, and a copy is then
/// one retain instead of one per string.
public struct Detection: Sendable, Hashable {
    public var category: FindingCategory { get { box.category } set { unique().category = newValue } }
    public var type: String { get { box.type } set { unique().type = newValue } }
    public var origin: FieldOrigin { get { box.origin } set { unique().origin = newValue } }
    public var encoding: String { get { box.encoding } set { unique().encoding = newValue } }
    /// The matched text (unmasked: masked when it becomes a finding).
    public var evidence: String {
        get { box.evidence }
        set { let box = unique(); box.evidence = newValue; box.maskedEvidence = nil }
    }
    public var rule: String { get { box.rule } set { unique().rule = newValue } }
    public var confidence: Double { get { box.confidence } set { unique().confidence = newValue } }
    public var severity: Severity { get { box.severity } set { unique().severity = newValue } }
    /// Human words for the data (`the device's IDFA`).
    public var what: String { get { box.what } set { unique().what = newValue } }
    /// For a pair of fields (coordinates): the combined location.
    public var whereOverride: Place? { get { box.whereOverride } set { unique().whereOverride = newValue } }
    /// For a location: the point itself.
    public var coordinate: Coordinate? { get { box.coordinate } set { unique().coordinate = newValue } }

    /// A location and inner path.
    public struct Place: Sendable, Hashable {
        public var location: String
        public var inner: String?
    }

    public init(category: FindingCategory, type: String, origin: FieldOrigin, encoding: String, evidence: String, rule: String,
                confidence: Double, severity: Severity, what: String, whereOverride: Place? = nil) {
        box = Box(category: category, type: type, origin: origin, encoding: encoding, evidence: evidence, rule: rule,
                  confidence: confidence, severity: severity, what: what, whereOverride: whereOverride, coordinate: nil)
    }

    /// A detection of a profile target: its words shared with every detection of the target
    /// (one reference, not five strings), its masked evidence known already when given.
    init(words: DetectionWords, origin: FieldOrigin, encoding: String, evidence: String, confidence: Double, maskedEvidence: String?) {
        box = Box(words: words, origin: origin, encoding: encoding, evidence: evidence, confidence: confidence,
                  whereOverride: nil, coordinate: nil)
        box.maskedEvidence = maskedEvidence
    }

    /// The fields. Never changed while shared (`unique()` copies first), hence `@unchecked Sendable`.
    private final class Box: @unchecked Sendable {
        var words: DetectionWords
        var origin: FieldOrigin
        var encoding: String
        var evidence: String
        var confidence: Double
        var whereOverride: Place?
        var coordinate: Coordinate?
        /// `maskEvidence(evidence)` when known in advance (not part of equality: it follows from `evidence`).
        var maskedEvidence: String?

        var category: FindingCategory { get { words.category } set { words = words.with(category: newValue) } }
        var type: String { get { words.type } set { words = words.with(type: newValue) } }
        var rule: String { get { words.rule } set { words = words.with(rule: newValue) } }
        var severity: Severity { get { words.severity } set { words = words.with(severity: newValue) } }
        var what: String { get { words.what } set { words = words.with(what: newValue) } }

        convenience init(category: FindingCategory, type: String, origin: FieldOrigin, encoding: String, evidence: String, rule: String,
                         confidence: Double, severity: Severity, what: String, whereOverride: Place?, coordinate: Coordinate?) {
            self.init(words: DetectionWords(category: category, type: type, rule: rule, severity: severity, what: what),
                      origin: origin, encoding: encoding, evidence: evidence, confidence: confidence,
                      whereOverride: whereOverride, coordinate: coordinate)
        }

        init(words: DetectionWords, origin: FieldOrigin, encoding: String, evidence: String, confidence: Double,
             whereOverride: Place?, coordinate: Coordinate?) {
            self.words = words
            self.origin = origin
            self.encoding = encoding
            self.evidence = evidence
            self.confidence = confidence
            self.whereOverride = whereOverride
            self.coordinate = coordinate
        }

        func copy() -> Box {
            let box = Box(words: words, origin: origin, encoding: encoding, evidence: evidence, confidence: confidence,
                          whereOverride: whereOverride, coordinate: coordinate)
            box.maskedEvidence = maskedEvidence
            return box
        }
    }
    private var box: Box

    /// The box, copied first if another detection shares it.
    private mutating func unique() -> Box {
        if !isKnownUniquelyReferenced(&box) { box = box.copy() }
        return box
    }

    public static func == (a: Detection, b: Detection) -> Bool {
        a.category == b.category && a.type == b.type && a.origin == b.origin && a.encoding == b.encoding
            && a.evidence == b.evidence && a.rule == b.rule && a.confidence == b.confidence && a.severity == b.severity
            && a.what == b.what && a.whereOverride == b.whereOverride && a.coordinate == b.coordinate
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(category)
        hasher.combine(type)
        hasher.combine(origin)
        hasher.combine(encoding)
        hasher.combine(evidence)
        hasher.combine(rule)
        hasher.combine(confidence)
        hasher.combine(severity)
        hasher.combine(what)
        hasher.combine(whereOverride)
        hasher.combine(coordinate)
    }

    /// The finding this detection becomes in a flow (`Inspector.findings`): the box's fields read
    /// in place, without copying the origin or the place out of it first.
    func finding(request: FindingRequest, destination: FindingDestination, sentTo: FindingSentence.SentTo,
                 transport: String, flow: Int?, time: String?) -> Finding {
        let b = box
        let where_: String
        let inner: String?
        if let place = b.whereOverride {
            where_ = place.location
            inner = place.inner
        } else {
            where_ = b.origin.location
            inner = b.origin.inner
        }
        return Finding(category: b.category, type: b.type, request: request, destination: destination,
                       where: where_, encoding: b.encoding, evidence: b.maskedEvidence ?? maskEvidence(b.evidence), rule: b.rule,
                       transport: transport, flow: flow, confidence: b.confidence, severity: b.severity,
                       description: FindingSentence.make(what: b.what, sentTo: sentTo, where: where_, inner: inner, encoding: b.encoding),
                       time: time, inner: inner)
    }

    /// Where the detection is (its place's location): with category and type, what a request's
    /// detections are deduplicated by.
    var whereKey: String { box.whereOverride?.location ?? box.origin.location }

    /// Its category, type, rule, severity and description.
    var words: DetectionWords { box.words }

    static func coordinates(group: NumberGroup, _ a: NumberGroup.Member, _ b: NumberGroup.Member, rule: String, confidence: Double) -> Detection {
        let place: Place
        if group.fromOneString {
            place = Place(location: group.prefix, inner: group.inner)
        } else if let inner = group.inner {
            place = Place(location: group.prefix, inner: commaPair(inner, a.key, b.key))
        } else {
            place = Place(location: commaPair(group.prefix, a.key, b.key), inner: nil)
        }
        let origin = FieldOrigin(location: place.location, inner: place.inner, decodings: group.decodings, key: a.key)
        var d = Detection(category: .location, type: "coordinates", origin: origin, encoding: origin.encodingChain(),
                          evidence: CoordinateText.pair(a.value, decimals: a.decimals, b.value, decimals: b.decimals), rule: rule, confidence: confidence,
                          severity: .high, what: "The device's location", whereOverride: place)
        d.coordinate = Coordinate(latitude: a.value, longitude: b.value)
        return d
    }

    /// `prefix + first + "," + second`, written into one buffer (chained `+` grows and copies the
    /// string at each step).
    private static func commaPair(_ prefix: String, _ first: String, _ second: String) -> String {
        String(utf8Count: prefix.utf8.count + first.utf8.count + 1 + second.utf8.count) { w in
            w.write(prefix)
            w.write(first)
            w.write(UInt8(ascii: ","))
            w.write(second)
        }
    }
}

/// The words of a detection that come with what it detected (a profile target, a rule):
/// category, type, rule, severity and description, shared by every detection of it, so that a
/// detection holds one reference to them instead of five strings.
final class DetectionWords: Sendable {
    let category: FindingCategory
    let type: String
    let rule: String
    let severity: Severity
    let what: String
    /// Handed out by an `Interner` (an inspector's, for its profile targets), the only words of
    /// their category and type it holds: two words interned by the same inspector are of one kind
    /// exactly when they are the same object, told without reading their strings. (A request's
    /// `DetectionSet` holds the detections of one inspector only.)
    let isInterned: Bool

    init(category: FindingCategory, type: String, rule: String, severity: Severity, what: String, isInterned: Bool = false) {
        self.category = category
        self.type = type
        self.rule = rule
        self.severity = severity
        self.what = what
        self.isInterned = isInterned
    }

    /// Of the same category and type as `other`.
    @inline(__always)
    func isOfKind(_ other: DetectionWords) -> Bool {
        if self === other { return true }
        if isInterned && other.isInterned { return false }
        return category == other.category && type == other.type
    }

    /// Hands out one interned `DetectionWords` per (category, type), whose other words must follow
    /// from these two (as a profile target's do).
    struct Interner {
        private var words: [FindingCategory: [DetectionWords]] = [:]

        /// The words of `category` and `type`, made with the others given the first time.
        mutating func words(category: FindingCategory, type: String, rule: String, severity: Severity, what: String) -> DetectionWords {
            if let same = words[category]?.first(where: { $0.type == type }) { return same }
            let made = DetectionWords(category: category, type: type, rule: rule, severity: severity, what: what, isInterned: true)
            words[category, default: []].append(made)
            return made
        }
    }

    /// These words with the ones given replaced.
    func with(category: FindingCategory? = nil, type: String? = nil, rule: String? = nil, severity: Severity? = nil,
              what: String? = nil) -> DetectionWords {
        DetectionWords(category: category ?? self.category, type: type ?? self.type, rule: rule ?? self.rule,
                       severity: severity ?? self.severity, what: what ?? self.what)
    }
}

/// Detections of one request, deduplicated by (category, type, where), keeping the most confident.
/// A request usually has a handful: up to `linearLimit` they are compared field by field without
/// hashing; past it (a huge body full of values) an index keeps `add` and `ordered` linear.
struct DetectionSet {
    /// (category, type, where): compared field by field, no joined string per detection.
    private struct Key: Hashable {
        var category: FindingCategory
        var type: String
        var where_: String
    }
    private static let linearLimit = 24
    private var byKey: [Key: Int] = [:]
    private(set) var items: [Detection] = []

    mutating func add(_ d: consuming Detection) {
        let place = d.whereKey
        if let i = index(words: d.words, place: place) {
            if d.confidence > items[i].confidence { items[i] = d }
            return
        }
        append(d, place: place)
    }

    /// `add(make())`, without making the detection when the set would drop it at once: one of
    /// the same category and type (`words`) and place (`whereKey`) is there already, at least as confident.
    mutating func add(words: DetectionWords, place: String, confidence: Double, _ make: () -> Detection) {
        if let i = index(words: words, place: place) {
            if confidence > items[i].confidence { items[i] = make() }
            return
        }
        append(make(), place: place)
    }

    /// The index of the detection of the category and type of `words`, and of `place`, nil when there is none.
    private func index(words: DetectionWords, place: String) -> Int? {
        if items.count <= Self.linearLimit {
            for i in items.indices where items[i].words.isOfKind(words) && items[i].whereKey == place {
                return i
            }
            return nil
        }
        return byKey[Key(category: words.category, type: words.type, where_: place)]
    }

    /// Appends a detection of a new (category, type, place), indexing the set once it is large.
    private mutating func append(_ d: consuming Detection, place: String) {
        if items.count > Self.linearLimit {
            byKey[Key(category: d.category, type: d.type, where_: place)] = items.count
            items.append(d)
            return
        }
        if items.isEmpty { items.reserveCapacity(4) }
        items.append(d)
        if items.count > Self.linearLimit {
            for i in items.indices {
                byKey[Key(category: items[i].category, type: items[i].type, where_: items[i].whereKey)] = i
            }
        }
    }

    /// The detections in order, without the weaker reading of a value that another type explains
    /// better: the same evidence at the same place (e.g. one UUID under `ifa`) is an IDFA at 1.0, not
    /// also an IDFV at 0.55. Equally confident readings are all kept.
    var ordered: [Detection] {
        guard items.count > 1 else { return items }
        if items.count <= Self.linearLimit {
            // Most requests drop nothing: find the dropped ones first, copy only when there are some.
            var dropped: [Bool]?
            for i in items.indices {
                for j in items.indices where items[j].confidence > items[i].confidence && Self.samePlace(items[j], items[i]) {
                    if dropped == nil { dropped = Array(repeating: false, count: items.count) }
                    dropped?[i] = true
                    break
                }
            }
            guard let dropped else { return items }
            var kept: [Detection] = []
            kept.reserveCapacity(items.count)
            for i in items.indices where !dropped[i] { kept.append(items[i]) }
            return kept
        }
        struct Place: Hashable {
            var category: FindingCategory
            var where_: String
            var inner: String?
            var evidence: String
        }
        func place(_ d: Detection) -> Place {
            Place(category: d.category, where_: d.whereOverride?.location ?? d.origin.location,
                  inner: d.whereOverride?.inner ?? d.origin.inner, evidence: d.evidence)
        }
        var best: [Place: Double] = [:]
        for d in items { best[place(d), default: 0] = max(best[place(d)] ?? 0, d.confidence) }
        return items.filter { d in d.confidence >= (best[place(d)] ?? 0) }
    }

    /// Same category, place (location and inner path) and evidence: one value read two ways.
    private static func samePlace(_ a: borrowing Detection, _ b: borrowing Detection) -> Bool {
        a.category == b.category
            && (a.whereOverride?.location ?? a.origin.location) == (b.whereOverride?.location ?? b.origin.location)
            && (a.whereOverride?.inner ?? a.origin.inner) == (b.whereOverride?.inner ?? b.origin.inner)
            && a.evidence == b.evidence
    }
    var isEmpty: Bool { items.isEmpty }
}

extension NumberGroup {
    /// Ordered (latitude, longitude) candidates: adjacent numbers of one string in both orders,
    /// or every ordered pair of sibling fields.
    func candidatePairs() -> [(Member, Member)] {
        var out: [(Member, Member)] = []
        forEachCandidatePair { out.append(($0, $1)) }
        return out
    }

    /// `candidatePairs()` in the same order, without building the array.
    func forEachCandidatePair(_ body: (Member, Member) -> Void) {
        let n = min(members.count, 32)
        if fromOneString {
            guard n > 1 else { return }
            for i in 0..<(n - 1) {
                body(members[i], members[i + 1])
                body(members[i + 1], members[i])
            }
        } else {
            for i in 0..<n { for j in 0..<n where i != j { body(members[i], members[j]) } }
        }
    }
}

func severity(of category: FindingCategory) -> Severity {
    switch category {
    case .deviceID, .location, .contacts, .credentials: .high
    default: .medium
    }
}

func describe(category: FindingCategory, type: String) -> String {
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

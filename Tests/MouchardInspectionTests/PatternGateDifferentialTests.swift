import Foundation
import MouchardFlow
import MouchardTestSupport
import Testing
@testable import MouchardInspection

/// Differential check of pattern mode's gates: the detector skips the rules a field's names
/// (`KeyVocabulary`) or bytes (`ValueShape`, `ShapeNeed`) rule out; the reference below runs
/// every rule on every field, scored from its hints each time (the detector's loop before it was
/// compiled). Both must find the same detections, in the same order: on random fields built from
/// the rules' own key names and every shape they look for, on the decode walk of random requests,
/// and on the requests of the SDK and dev corpora.
///
/// `MOUCHARD_FUZZ_ITERATIONS=N` runs N fields or requests per seed instead of the small CI default.
@Suite struct PatternGateDifferentialTests {
    static let iterations = ByteMutator.iterations(default: 2000, environment: ProcessInfo.processInfo.environment)
    static let seeds: [UInt64] = [0x9A7E_0001, 0x9A7E_0002, 0x9A7E_0003]

    /// Every rule on every field, in rule order, with the detector's own scan and validation.
    static func reference(_ detector: PatternDetector, _ extracted: FieldExtractor.Result) -> [Detection] {
        var out = DetectionSet()
        let path = KeyName(tokens: keyTokens(extracted.path))
        for field in extracted.fields {
            let location = field.origin.location
            let place = location.firstIndex(of: ":").map { String(location[..<$0]) } ?? location
            let key = KeyName(field.origin.key), parent = KeyName(field.origin.parentKey)
            for rule in detector.rules where rule.category != .location && (rule.places.isEmpty || rule.places.contains(place)) {
                let keyScore = rule.score(key: key, parent: parent, path: path)
                guard keyScore + max(0, rule.uppercaseWeight) >= rule.threshold else { continue }
                detector.detect(rule, keyScore: keyScore, in: field, into: &out)
            }
        }
        for group in extracted.groups { detector.detectCoordinates(group, into: &out) }
        return out.ordered
    }

    static func gated(_ detector: PatternDetector, _ extracted: FieldExtractor.Result) -> [Detection] {
        var out = DetectionSet()
        detector.detect(extracted, into: &out)
        return out.ordered
    }

    static func describe(_ detections: [Detection]) -> [String] {
        detections.map { "\($0.rule) \($0.origin.location) \($0.evidence) \($0.confidence)" }
    }

    @Test(arguments: seeds)
    func gatedFieldsFindWhatEveryRuleFinds(seed: UInt64) throws {
        let detector = PatternDetector(rules: try TestSupport.rules())
        var fields = RandomFields(seed: seed, rules: detector.rules)
        var found = 0
        for k in 0..<Self.iterations {
            let extracted = fields.result()
            let a = Self.gated(detector, extracted), b = Self.reference(detector, extracted)
            found += b.count
            #expect(a == b, "seed \(seed) iteration \(k): gated \(Self.describe(a)), every rule \(Self.describe(b)); fields \(extracted.fields.map { "\($0.origin.location) \($0.origin.key)/\($0.origin.parentKey)=\(String(decoding: $0.bytes, as: UTF8.self))" })")
        }
        // The fields really carry findable values.
        #expect(found >= Self.iterations / 4, "seed \(seed): only \(found) detections in \(Self.iterations) sets of fields")
    }

    @Test(arguments: seeds)
    func gatedWalkOfRandomRequestsFindsWhatEveryRuleFinds(seed: UInt64) throws {
        let detector = PatternDetector(rules: try TestSupport.rules())
        let profile = try TestSupport.profile()
        let matcher = KnownValueMatcher(profile: profile)
        var generator = PlantedRequestGenerator(seed: seed, profile: profile, matcher: matcher)
        for k in 0..<(Self.iterations / 10) {
            let (request, _) = generator.request()
            let extracted = FieldExtractor().extract(request)
            let a = Self.gated(detector, extracted), b = Self.reference(detector, extracted)
            #expect(a == b, "seed \(seed) request \(k): gated \(Self.describe(a)), every rule \(Self.describe(b))")
        }
    }

    /// Binary records holding the profile's position as float pairs (`PlantedRequestGenerator.binaryRecord`),
    /// some of which the record makes credible without a profile (`BinaryCoordinatePair`).
    @Test func gatedBinaryRecordsFindWhatEveryRuleFinds() throws {
        let detector = PatternDetector(rules: try TestSupport.rules())
        let profile = try TestSupport.profile()
        var generator = PlantedRequestGenerator(seed: 0x9A7E_0101, profile: profile, matcher: KnownValueMatcher(profile: profile))
        let position = try #require(profile.location)
        var found = 0
        for k in 0..<(Self.iterations / 4) {
            let body = generator.binaryRecord(position, string: generator.value())
            let request = TestSupport.request("POST", "https://t.example/r", headers: [("Content-Type", "application/octet-stream")], body: body)
            let extracted = FieldExtractor().extract(request)
            let a = Self.gated(detector, extracted), b = Self.reference(detector, extracted)
            found += b.filter { $0.encoding.contains("float") }.count
            #expect(a == b, "record \(k): gated \(Self.describe(a)), every rule \(Self.describe(b))")
        }
        #expect(found >= Self.iterations / 40, "only \(found) float pairs found in \(Self.iterations / 4) records")
    }

    @Test func gatedCorporaFindWhatEveryRuleFinds() throws {
        let detector = PatternDetector(rules: try TestSupport.rules())
        var hars = try FileManager.default.contentsOfDirectory(atPath: SDKCorpusScoreTests.directory.path).sorted()
            .map { SDKCorpusScoreTests.directory.appendingPathComponent("\($0)/traffic.har") }
        if OutsideCorpus.dev.isPresent { hars += ["ios", "android"].map { OutsideCorpus.dev.file("\($0)/traffic.har") } }
        var compared = 0, found = 0
        for har in hars where FileManager.default.fileExists(atPath: har.path) {
            for flow in try HARReader.read(Data(contentsOf: har)) {
                guard let request = flow.request else { continue }
                let extracted = FieldExtractor().extract(request)
                let a = Self.gated(detector, extracted), b = Self.reference(detector, extracted)
                compared += 1
                found += b.count
                #expect(a == b, "\(har.lastPathComponent) flow \(flow.id) \(request.url): gated \(Self.describe(a)), every rule \(Self.describe(b))")
            }
        }
        #expect(compared > 100 && found > 100, "compared \(compared) requests, \(found) detections")
    }
}

/// Seeded random fields for pattern rules: keys and parent keys from the rules' own hints (in
/// camel case, snake case, upper case, with prefixes) or neutral, every place, and values of every
/// shape the rules look for (UUIDs, hex of the digest lengths, Luhn and other digit runs, MACs,
/// e-mails with role accounts, phone numbers in several writings, names, typed identifiers) among
/// look-alikes (timestamps, versions, near misses of each length) and random bytes.
struct RandomFields {
    var rng: SplitMix64
    let keys: [String]

    init(seed: UInt64, rules: [PatternRule]) {
        rng = SplitMix64(seed: seed)
        var keys = Set<String>()
        for rule in rules { for hint in rule.keys + rule.parentKeys + rule.pathKeys { keys.insert(hint.name) } }
        self.keys = keys.sorted() + ["id", "value", "data", "t", "event", "props", "user", "device", ""]
    }

    mutating func pick<T>(_ items: [T]) -> T { items[rng.below(items.count)] }
    mutating func chance(_ percent: Int) -> Bool { rng.below(100) < percent }

    mutating func hex(_ count: Int, upper: Bool = false) -> String {
        String((0..<count).map { _ in Array(upper ? "0123456789ABCDEF" : "0123456789abcdef")[rng.below(16)] })
    }

    mutating func digits(_ count: Int) -> String { String((0..<count).map { _ in Character(String(rng.below(10))) }) }

    mutating func key() -> String {
        let k = pick(keys)
        switch rng.below(5) {
        case 0: return k.uppercased()
        case 1: return pick(["user_", "device", "$", "x-", "my"]) + k
        case 2: return k + pick(["Id", "_hash", "s", "2"])
        default: return k
        }
    }

    mutating func value() -> String {
        switch rng.below(16) {
        case 0: return [hex(8), hex(4), hex(4), hex(4), hex(12)].joined(separator: "-")
        case 1: return pick(["", "id:", "$device:", "AND", "x "]) + hex(8, upper: chance(50)) + "-" + hex(4) + "-" + hex(4) + "-" + hex(4) + "-" + hex(12)
        case 2: return hex(pick([15, 16, 17, 31, 32, 33, 39, 40, 41, 63, 64, 65]), upper: chance(30))
        case 3: return digits(pick([8, 10, 13, 14, 15, 16, 18, 19, 20, 21]))
        case 4: return pick(["89", "3571", "310"]) + digits(pick([12, 13, 16, 17]))
        case 5: return (0..<6).map { _ in hex(2, upper: chance(50)) }.joined(separator: pick([":", "-", ":"]))
        case 6: return pick(["support", "jane.doe", "no-reply+eu", "info.de", "Hélène"]) + "@" + pick(["example.com", "mail.example.co.uk", "x"])
        case 7: return pick(["+49 151 23456789", "+1 (303) 555-0147", "0033612345678", "090-2345-6789", "(51) 99876-5432", "+33 6 12 34 56 78"])
        case 8: return pick(["Jane Doe", "JANE DOE", "João Conceição", "app_open", "Add To Cart", "O'Brien-Smith", "Zoë"])
        case 9: return pick(["1793697260214", "2.3.1", "0000", "00000000-0000-0000-0000-000000000000", "BEGIN:VCARD\nFN:Jane\nEND:VCARD"])
        case 10: return "0000" + hex(4) + "-" + hex(16, upper: true)
        case 11: return pick(["47.0810", "2.3988", "47.0810,2.3988", "-33.8688", "151.2093"])
        case 12: return "Mozilla/5.0 (Linux; Android 14; Pixel 8 Build/UQ1A.240205.004) " + digits(rng.below(12))
        case 13: return String(decoding: (0..<rng.below(40)).map { _ in UInt8(truncatingIfNeeded: rng.next()) }, as: UTF8.self)
        case 14: return pick(["serial ", "", "SN:"]) + hex(rng.below(20) + 4, upper: true) + pick(["", " ", "_x"])
        default: return pick(["a", "b", " "]) + value() + pick(["", " ", ",", "&x=1"])
        }
    }

    /// One request's worth of fields (1 to 8) and a URL path.
    mutating func result() -> FieldExtractor.Result {
        var r = FieldExtractor.Result()
        for _ in 0..<(rng.below(8) + 1) {
            let k = key()
            let place = pick(["url", "query:", "header:", "cookie:", "form:", "multipart:", "body:$.", "body", "ws:/x → message[0]"])
            let location = place.hasSuffix(":") || place.hasSuffix(".") ? place + k : place
            let origin = FieldOrigin(location: location, key: k, parentKey: chance(40) ? key() : "")
            r.fields.append(ExtractedField(bytes: Array(value().utf8)[...], origin: origin, isNumber: false))
        }
        r.path = pick(["/v1/contacts/match", "/api/events", "/", "/users/hashes/upload", "/collect"])
        return r
    }
}

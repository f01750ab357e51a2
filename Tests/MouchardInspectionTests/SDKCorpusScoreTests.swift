import Foundation
import MouchardFlow
import MouchardTestSupport
import Testing
@testable import MouchardInspection

/// The repository's own SDK corpus (Tests/Fixtures/sdk-corpus, written by its make_corpus.py): requests in the wire
/// formats of real SDKs on four fictional devices, scored like scripts/score.py, unit = (device, request, category).
/// The floors are the figures measured when they were set: a regression fails; work that raises a figure raises its
/// floor (the README of the corpus keeps the table).
@Suite("SDK corpus score")
struct SDKCorpusScoreTests {
    static let directory = TestFiles.fixtures.appendingPathComponent("sdk-corpus")
    static let scored: Set<String> = ["device-id", "contacts", "location", "phone-number", "email", "name"]
    static let personal: Set<String> = ["phone-number", "email", "name"]

    /// Recall floors per category (precision must stay 1.0 with a profile).
    static let profileRecallFloors: [String: Double] = [
        "contacts": 1.0, "device-id": 1.0, "email": 1.0, "location": 1.0, "name": 1.0, "phone-number": 1.0,
    ]
    static let patternRecallFloors: [String: Double] = [
        "contacts": 1.0, "device-id": 0.78, "email": 0.95, "location": 0.94, "name": 1.0, "phone-number": 0.88,
    ]
    static let patternPrecisionFloors: [String: Double] = [
        "contacts": 1.0, "device-id": 1.0, "email": 1.0, "location": 1.0, "name": 1.0, "phone-number": 1.0,
    ]
    /// Hard-negative-only requests that still get a finding without a profile (label id|category); every
    /// other hard-negative request must stay without findings.
    static let knownPatternNegativeHits: Set<String> = []

    struct Tally: CustomStringConvertible {
        var tp = 0, fp = 0, fn = 0
        var precision: Double { tp + fp == 0 ? 1 : Double(tp) / Double(tp + fp) }
        var recall: Double { tp + fn == 0 ? 1 : Double(tp) / Double(tp + fn) }
        var description: String { "P=\(precision) R=\(recall) (TP \(tp) FP \(fp) FN \(fn))" }
    }

    struct Outcome {
        var categories: [String: Tally] = [:]
        var negativeHits: Set<String> = []
        var total: Tally { categories.values.reduce(into: Tally()) { $0.tp += $1.tp; $0.fp += $1.fp; $0.fn += $1.fn } }
    }

    static func devices() throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: directory.path).filter {
            FileManager.default.fileExists(atPath: directory.appendingPathComponent("\($0)/traffic.har").path)
        }.sorted()
    }

    /// Labels of one device: request key → (label id, scored categories).
    static func labels(_ device: String) throws -> [String: (id: String, categories: Set<String>)] {
        let data = try Data(contentsOf: directory.appendingPathComponent("\(device)/labels.json"))
        let doc = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        var out: [String: (id: String, categories: Set<String>)] = [:]
        for r in try #require(doc["requests"] as? [[String: Any]]) {
            let key = try #require(r["key"] as? String)
            out[key] = (try #require(r["id"] as? String), Set((r["categories"] as? [String] ?? []).filter(scored.contains)))
        }
        return out
    }

    func run(profile: Bool) throws -> Outcome {
        let rules = try TestSupport.rules()
        var outcome = Outcome()
        let devices = try Self.devices()
        #expect(devices.count >= 2, "the corpus has \(devices.count) devices")
        for device in devices {
            let truth = try Self.labels(device)
            let dir = Self.directory.appendingPathComponent(device)
            let flows = try HARReader.read(Data(contentsOf: dir.appendingPathComponent("traffic.har")))
            #expect(flows.count == truth.count, "\(device): \(flows.count) flows, \(truth.count) labels")
            let p = profile ? try DeviceProfile.load([UInt8](try Data(contentsOf: dir.appendingPathComponent("device.json"))), file: "device.json") : nil
            var predicted = Set<String>()
            for f in Inspector(rules: rules, profile: p).inspect(flows) where Self.scored.contains(f.category.rawValue) {
                let key = "\(f.request.method) \(f.request.url)"
                var category = f.category.rawValue
                let have = truth[key]?.categories ?? []
                if !profile, !have.contains(category) {
                    if Self.personal.contains(category), have.contains("contacts") { category = "contacts" }
                    else if category == "contacts", let alt = Self.personal.sorted().first(where: { have.contains($0) }) { category = alt }
                }
                predicted.insert("\(key)|\(category)")
                if let label = truth[key], label.categories.isEmpty { outcome.negativeHits.insert("\(label.id)|\(category)") }
            }
            let units = Set(truth.flatMap { key, label in label.categories.map { "\(key)|\($0)" } })
            for unit in units.union(predicted) {
                let category = String(unit[unit.index(after: unit.lastIndex(of: "|")!)...])
                var t = outcome.categories[category] ?? Tally()
                if units.contains(unit) && predicted.contains(unit) { t.tp += 1 }
                else if units.contains(unit) { t.fn += 1 }
                else { t.fp += 1 }
                outcome.categories[category] = t
            }
        }
        return outcome
    }

    @Test func withDeviceProfile() throws {
        let outcome = try run(profile: true)
        for (category, floor) in Self.profileRecallFloors {
            let t = outcome.categories[category] ?? Tally()
            #expect(t.precision == 1.0, "\(category): \(t)")
            #expect(t.recall >= floor, "\(category): recall below \(floor): \(t)")
        }
        #expect(outcome.negativeHits.isEmpty, "hard-negative requests with findings: \(outcome.negativeHits.sorted())")
    }

    @Test func patternMode() throws {
        let outcome = try run(profile: false)
        for (category, floor) in Self.patternRecallFloors {
            let t = outcome.categories[category] ?? Tally()
            #expect(t.recall >= floor, "\(category): recall below \(floor): \(t)")
            #expect(t.precision >= Self.patternPrecisionFloors[category] ?? 1, "\(category): precision: \(t)")
        }
        let fresh = outcome.negativeHits.subtracting(Self.knownPatternNegativeHits)
        #expect(fresh.isEmpty, "hard-negative requests with new findings: \(fresh.sorted())")
    }

    /// The committed files are what the generator writes (so the corpus and its labels cannot drift apart).
    @Test(.enabled(if: SDKCorpusScoreTests.python3 != nil, "python3 is not installed"))
    func generatorOutputIsCommitted() throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: try #require(Self.python3))
        process.arguments = [Self.directory.appendingPathComponent("make_corpus.py").path, "--check"]
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        try process.run()
        let output = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        #expect(process.terminationStatus == 0, "make_corpus.py --check: \(output)")
    }

    static let python3: String? = ["/usr/bin/python3", "/usr/local/bin/python3"].first { FileManager.default.isExecutableFile(atPath: $0) }
}

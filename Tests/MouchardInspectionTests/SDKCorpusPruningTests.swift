import Foundation
import MouchardFlow
import MouchardTestSupport
import Testing
@testable import MouchardInspection

/// The span-scan promise on the SDK corpus (Tests/Fixtures/sdk-corpus), whose requests carry every
/// family of encodings of issue 15 (Exif, text protobuf, marked coordinates, binary records, glued
/// and truncated values...): with each device's profile, the inspector with `rawPrefilter` on finds
/// exactly what the full walk finds, request by request.
@Suite("SDK corpus: pruned walk = full walk")
struct SDKCorpusPruningTests {
    @Test func prunedFindingsAreThoseOfTheFullWalk() throws {
        let rules = try TestSupport.rules()
        let devices = try SDKCorpusScoreTests.devices()
        #expect(devices.count >= 2)
        var compared = 0
        for device in devices {
            let dir = SDKCorpusScoreTests.directory.appendingPathComponent(device)
            let profile = try DeviceProfile.load([UInt8](try Data(contentsOf: dir.appendingPathComponent("device.json"))), file: "device.json")
            let flows = try HARReader.read(Data(contentsOf: dir.appendingPathComponent("traffic.har")))
            let pruned = Inspector(rules: rules, profile: profile)
            var full = pruned
            full.rawPrefilter = false
            for flow in flows {
                let a = pruned.inspect(flow), b = full.inspect(flow)
                compared += b.count
                #expect(a == b, "\(device) \(flow.request?.method ?? "") \(flow.request?.url ?? ""): pruned \(a.map(\.where)) vs full \(b.map(\.where))")
            }
        }
        #expect(compared > 400, "only \(compared) findings compared")
    }
}

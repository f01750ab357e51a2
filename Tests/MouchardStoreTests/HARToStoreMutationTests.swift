import Foundation
import MouchardFlow
import MouchardTestSupport
import MouchardWire
import Testing
@testable import MouchardStore

/// Whatever a damaged HAR yields (odd strings, invalid UTF-8 turned into U+FFFD, negative ports,
/// strange versions, custom fields) is stored and read back exactly: a flow accepted once is never
/// lost or altered on the way to disk. Seeded with `ByteMutator`.
@Suite struct HARToStoreMutationTests {
    static let iterations = ByteMutator.iterations(default: 60, environment: ProcessInfo.processInfo.environment)

    @Test func acceptedFlowsRoundTripThroughTheStore() throws {
        try Self.checkAcceptedFlowsRoundTrip(TestFiles.fixture("ios", "traffic.har"))
    }

    @Test(.requires(.dev)) func devCorpusAcceptedFlowsRoundTripThroughTheStore() throws {
        try Self.checkAcceptedFlowsRoundTrip(OutsideCorpus.dev.file("ios/traffic.har"))
    }

    static func checkAcceptedFlowsRoundTrip(_ har: URL) throws {
        let data = try Data(contentsOf: har)
        let all = try HARReader.read(data)
        // A small HAR of the first entries, written by Mouchard (every custom field present).
        let sample = [UInt8](HARWriter(creatorVersion: "test").document(Array(all.prefix(4))))
        let tmp = TemporaryDirectory()
        defer { tmp.cleanUp() }
        var mutator = ByteMutator(seed: 0x4A25)
        var stored = 0
        for k in 0..<Self.iterations {
            let input = mutator.mutate(sample, maxMutations: 2)
            guard let (flows, _) = try? HARReader.readSkippingBadEntries(Data(input)), !flows.isEmpty else { continue }
            let store = try SessionStore(directory: tmp.path + "/s\(k)", create: true)
            do {
                try store.append(flows: flows)
            } catch {
                Issue.record("seed 0x4A25 iteration \(k), input size \(input.count): \(error)")
                continue
            }
            let back = try store.flows()
            #expect(back == flows, "seed 0x4A25 iteration \(k), input size \(input.count)")
            stored += flows.count
        }
        #expect(stored > Self.iterations / 2, "only \(stored) flows survived the damage")
    }
}

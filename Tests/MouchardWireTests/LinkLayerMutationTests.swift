import Foundation
import MouchardTestSupport
@testable import MouchardWire
import Testing

/// Hostile-input proof for the radiotap, 802.11, VLAN/PPPoE dissectors and the IP fragment
/// reassembler, driven by `ByteMutator` (seeded, reproducible): whatever the bytes, nothing traps,
/// payloads stay inside the frame, and reassembly stays within its memory bounds and never returns
/// a datagram longer than 65,535 bytes or built from overlapping pieces.
///
/// `MOUCHARD_FUZZ_ITERATIONS=N` runs N mutations per test instead of the small CI default.
@Suite struct LinkLayerMutationTests {
    static let iterations = ByteMutator.iterations(default: 300, environment: ProcessInfo.processInfo.environment)

    static func be16(_ v: Int) -> [UInt8] { [UInt8((v >> 8) & 0xFF), UInt8(v & 0xFF)] }
    static let ipv4TCP: [UInt8] = [0x45, 0, 0, 44, 0, 1, 0x40, 0, 64, 6, 0, 0, 10, 0, 0, 2, 10, 0, 0, 1]
        + be16(40000) + be16(80) + [0, 0, 0, 1, 0, 0, 0, 0, 0x50, 0x18, 0xFF, 0xFF, 0, 0, 0, 0] + Array("GET ".utf8)
    static let snap: [UInt8] = [0xAA, 0xAA, 0x03, 0, 0, 0, 0x08, 0x00]
    /// QoS data frame, to-DS, three addresses, QoS control.
    static let dot11QoSData: [UInt8] = [0x88, 0x01, 0, 0] + [UInt8](repeating: 0x11, count: 18) + [0x10, 0x00] + [0, 0]
    /// Radiotap: version 0, length 18, present = TSFT | Flags (FCS at end), TSFT (8), flags, pad.
    static let radiotap: [UInt8] = [0, 0, 18, 0, 0x03, 0, 0, 0] + [UInt8](repeating: 0, count: 8) + [0x10, 0]

    static let frames: [(LinkType, [UInt8])] = [
        (.ieee80211Radiotap, radiotap + dot11QoSData + snap + ipv4TCP + [0xDE, 0xAD, 0xBE, 0xEF]),
        (.ieee80211, [0x08, 0x02, 0, 0] + [UInt8](repeating: 0x22, count: 18) + [0x20, 0x00] + snap + ipv4TCP),
        (.ieee80211, [0x08, 0x43, 0, 0] + [UInt8](repeating: 0x22, count: 18) + [0x20, 0x00] + [1, 2, 3, 4, 5, 6, 7, 8]),
        (.ieee80211, [0x80, 0x00, 0, 0] + [UInt8](repeating: 0xFF, count: 30)),
        (.ethernet, [UInt8](repeating: 0, count: 12) + [0x88, 0xA8, 0, 1, 0x81, 0x00, 0, 2, 0x88, 0x64]
            + [0x11, 0x00, 0x12, 0x34, 0, 46] + [0x00, 0x21] + ipv4TCP),
        (.linuxSLL2, [0x81, 0x00, 0, 0, 0, 0, 0, 1, 0, 1, 0, 6] + [UInt8](repeating: 0, count: 8) + [0, 5, 0x86, 0xDD, 0x60]),
    ]

    @Test func dissectorsSurviveMutations() {
        var m = ByteMutator(seed: 0x80211)
        let donors = Self.frames.map(\.1)
        for k in 0..<Self.iterations {
            let (type, sample) = Self.frames[k % Self.frames.count]
            let input = m.mutate(sample, maxMutations: 6, donors: donors)
            let slice = input[...]
            if let p = LinkLayerDecoder.decode(slice, linkType: type), !p.bytes.isEmpty {
                #expect(p.bytes.startIndex >= slice.startIndex && p.bytes.endIndex <= slice.endIndex, "seed \(m.seed) case \(k)")
            }
            _ = RadiotapHeader.parse(slice)
            // Every prefix too: cut headers are nil, never a trap.
            let cut = slice.prefix(m.below(input.count + 1))
            _ = LinkLayerDecoder.decode(cut, linkType: type)
        }
    }

    @Test func fragmentReassemblyStaysBounded() {
        var m = ByteMutator(seed: 0xF4A6)
        let limits = IPFragmentReassembler.Limits(maxDatagrams: 8, maxBytes: 4096, timeout: 5)
        var r = IPFragmentReassembler(limits: limits)
        let a = IPAddress.read([10, 0, 0, 1][...], at: 0, ipv6: false)!
        let b = IPAddress.read([10, 0, 0, 2][...], at: 0, ipv6: false)!
        for k in 0..<Self.iterations * 4 {
            let key = IPFragmentReassembler.Key(source: a, destination: b, identification: UInt32(m.below(12)), protocolNumber: 6)
            let offset = m.below(4) == 0 ? m.below(70_000) : m.below(16) * 8
            let data = [UInt8](repeating: UInt8(truncatingIfNeeded: k), count: m.below(3) == 0 ? m.below(300) : 8 * m.below(6))
            let outcome = r.add(key, offset: offset, more: m.below(3) != 0, data: data[...], time: Double(k) / 50)
            if case .complete(let bytes, _) = outcome {
                #expect(bytes.count <= IPFragmentReassembler.maxDatagramLength)
            }
            #expect(r.bytesHeld <= limits.maxBytes && r.bytesHeld >= 0, "case \(k)")
            #expect(r.pendingCount <= limits.maxDatagrams, "case \(k)")
        }
        r.finish()
        #expect(r.bytesHeld == 0 && r.pendingCount == 0)
    }
}

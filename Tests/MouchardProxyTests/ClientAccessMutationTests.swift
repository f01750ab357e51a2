import Foundation
import MouchardPosix
import MouchardTestSupport
import MouchardWire
import Testing
@testable import MouchardProxy

/// Hostile-input proof for the small parsers of client access and intermediary fields
/// (`--allow-client` CIDRs, `Proxy-Authorization`, `Max-Forwards`, `Via`), driven by `ByteMutator`:
/// whatever the text, nothing traps, and a CIDR that parses prints back as the same network.
///
/// `MOUCHARD_FUZZ_ITERATIONS=N` runs N mutations per test instead of the small CI default.
@Suite struct ClientAccessMutationTests {
    static let iterations = ByteMutator.iterations(default: 300, environment: ProcessInfo.processInfo.environment)
    static let samples = ["192.168.1.0/24", "10.0.0.1", "fd00:0:0:1::/64", "::ffff:10.1.2.3/128", "0.0.0.0/0", "::/0",
                          "Basic dTpw", "1.1 mouchard, 1.0 other (comment)", "0", "10"].map { Array($0.utf8) }

    @Test func parsersSurviveMutations() {
        var m = ByteMutator(seed: 0xACCE55)
        let access = ClientAccess(networks: [ClientAccess.Network(cidr: "127.0.0.0/8")!], credentials: "u:p")
        let client = SocketAddress(ip: "127.0.0.1", port: 1)!
        for k in 0..<Self.iterations {
            let text = decodeFieldText(m.mutate(Self.samples[k % Self.samples.count], maxMutations: 5, donors: Self.samples))
            if let network = ClientAccess.Network(cidr: text) {
                #expect(ClientAccess.Network(cidr: network.description) == network, "seed \(m.seed) case \(k): \(text)")
                _ = network.contains(client)
            }
            let head = HTTPRequestHead(method: k % 2 == 0 ? "TRACE" : "OPTIONS", target: text,
                                       headers: [("Max-Forwards", text), ("Via", text), ("Proxy-Authorization", text)])
            if let n = IntermediaryFields.maxForwards(head) { #expect(n >= 0) }
            _ = IntermediaryFields.viaNames(head.headers, pseudonym: "mouchard")
            _ = IntermediaryFields.isServerWide(text)
            _ = access.authorizes(head.headers)
            _ = IntermediaryFields.finalRecipientResponse(head, pseudonym: "mouchard")
        }
    }
}

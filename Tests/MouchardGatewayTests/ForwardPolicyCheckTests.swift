import Foundation
import Testing
@testable import MouchardGateway

/// A forward-hook chain of another table with policy drop (Docker's `ip filter FORWARD`) is found
/// and named in a warning; ours and accepting chains are not.
struct ForwardPolicyCheckTests {
    static let ruleset = """
        table ip filter {
          chain FORWARD { type filter hook forward priority filter; policy drop; }
          chain INPUT { type filter hook input priority filter; policy drop; }
        }
        table inet mouchard {
          chain forward { type filter hook forward priority filter; policy drop; }
        }
        table inet open {
          chain through { type filter hook forward priority filter; policy accept; }
          chain plain { }
        }
        """

    @Test func droppingForwardChainsOfOtherTablesAreNamed() {
        let json = #"""
            {"nftables": [{"metainfo": {"version": "1.0.6", "json_schema_version": 1}},
              {"chain": {"family": "ip", "table": "filter", "name": "FORWARD", "handle": 1, "type": "filter", "hook": "forward", "prio": 0, "policy": "drop"}},
              {"chain": {"family": "ip", "table": "filter", "name": "INPUT", "handle": 2, "type": "filter", "hook": "input", "prio": 0, "policy": "drop"}},
              {"chain": {"family": "inet", "table": "mouchard", "name": "forward", "handle": 3, "type": "filter", "hook": "forward", "prio": 0, "policy": "drop"}},
              {"chain": {"family": "inet", "table": "open", "name": "plain", "handle": 4}}]}
            """#
        let chains = ForwardPolicyCheck.droppingChains(nftChainsJSON: json, ownTable: ("inet", "mouchard"))
        #expect(chains == ["ip filter FORWARD"])
        let warnings = ForwardPolicyCheck.warnings(droppingChains: chains, phoneSide: "wlan1")
        #expect(warnings.count == 1)
        #expect(warnings[0].contains("'ip filter FORWARD' drops forwarded packets"))
        #expect(warnings[0].contains("DOCKER-USER -i wlan1"))
        #expect(ForwardPolicyCheck.droppingChains(nftChainsJSON: "not json", ownTable: ("inet", "mouchard")).isEmpty)
    }

    static var canUseNamespaces: Bool {
        getuid() == 0 && HostCommands().find("ip") != nil && HostCommands().find("nft") != nil
    }

    /// The same on what nft itself prints, in a namespace of the test's own.
    @Test(.enabled(if: ForwardPolicyCheckTests.canUseNamespaces, "needs root, ip and nft (a network namespace of its own)"))
    func realNftListingIsRead() throws {
        let host = HostCommands()
        let ns = "mfw-\(getpid())"
        _ = try? host.run("ip", ["netns", "del", ns])
        #expect(try host.run("ip", ["netns", "add", ns]).status == 0)
        defer { _ = try? host.run("ip", ["netns", "del", ns]) }
        let load = try host.run("ip", ["netns", "exec", ns, "nft", "-f", "-"], input: Self.ruleset)
        #expect(load.status == 0, "\(load.output)")
        let listing = try host.run("ip", ["netns", "exec", ns, "nft", "-j", "list", "chains"])
        #expect(listing.status == 0)
        #expect(ForwardPolicyCheck.droppingChains(nftChainsJSON: listing.output, ownTable: (NftablesRules.family, NftablesRules.table))
                == ["ip filter FORWARD"], "\(listing.output)")
    }
}

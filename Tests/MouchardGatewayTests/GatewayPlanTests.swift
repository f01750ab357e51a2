import Foundation
import Testing
@testable import MouchardGateway

/// The pure half of the gateway: port lists, nft script, sysctl plan, state file, prefixes.
struct GatewayPlanTests {
    static let plan = GatewayPlan(phoneSide: "wlan1", uplink: "eth0",
                                  phoneNetworks: [IPNetwork(address: "10.42.0.0", prefixLength: 24),
                                                  IPNetwork(address: "fd42::", prefixLength: 64)],
                                  listenPort: 47123)

    @Test func portListsParseSortAndDeduplicate() throws {
        #expect(try PortList.parse("443,80,8080,8443,80") == [80, 443, 8080, 8443])
        #expect(try PortList.parse(" 22 , 8000-8003") == [22, 8000, 8001, 8002, 8003])
        #expect(try PortList.parse("65535") == [65535])
    }

    @Test(arguments: ["", "0", "65536", "80,", ",80", "http", "90-80", "1-2000", "80-", "-80", "8o", "80 443", "1-1024,2000"])
    func nonsensicalPortListsAreRefused(_ text: String) {
        #expect(throws: PortList.Invalid.self) { try PortList.parse(text) }
    }

    @Test func setupScriptOwnsOneTableAndRedirectsRejectsAndMasquerades() {
        let s = NftablesRules.setupScript(Self.plan)
        #expect(s.hasPrefix("table inet mouchard {}\ndelete table inet mouchard\n"))
        #expect(!s.contains("flush ruleset"))
        #expect(s.contains("iifname \"wlan1\" meta l4proto tcp tcp dport { 80, 443, 8080, 8443 } counter redirect to :47123"))
        #expect(s.contains("iifname \"wlan1\" udp dport 443 counter reject with icmpx type port-unreachable"))
        #expect(s.contains("oifname \"eth0\" ip saddr 10.42.0.0/24 counter masquerade"))
        #expect(s.contains("oifname \"eth0\" ip6 saddr fd42::/64 counter masquerade"))
        #expect(s.contains("tcp dport 47123 ct status dnat counter accept"))
        #expect(s.contains("iifname \"wlan1\" tcp flags syn tcp option maxseg size set rt mtu"))
        // Every table statement names ours only.
        for line in s.split(separator: "\n") where line.hasPrefix("table") || line.hasPrefix("delete") {
            #expect(line.contains("inet mouchard"))
        }
        var quic = Self.plan
        quic.allowQUIC = true
        #expect(!NftablesRules.setupScript(quic).contains("udp dport 443"))
        #expect(NftablesRules.teardownScript == "table inet mouchard {}\ndelete table inet mouchard\n")
    }

    @Test func interfaceNamesCannotBreakOutOfTheirString() {
        #expect(NftablesRules.quoted("we\"ird\\\nx") == "\"weirdx\"")
    }

    /// `nft -c` (check only, nothing applied) accepts the script: run in a namespace of its own.
    @Test(.enabled(if: getuid() == 0 && HostCommands().find("nft") != nil && HostCommands().find("ip") != nil,
                   "needs root, nft and ip (netns) to check the script with nft -c"))
    func nftAcceptsTheScript() throws {
        let ns = "mouchard-nftcheck-\(getpid())"
        let host = HostCommands()
        try host.run("ip", ["netns", "add", ns])
        defer { _ = try? host.run("ip", ["netns", "del", ns]) }
        for plan in [Self.plan, GatewayPlan(phoneSide: "veth-p", uplink: "veth-u", phoneNetworks: [], ports: [22, 80],
                                           listenPort: 1, allowQUIC: true)] {
            let r = try host.run("ip", ["netns", "exec", ns, host.find("nft")!, "-c", "-f", "-"],
                                 input: NftablesRules.setupScript(plan))
            #expect(r.status == 0, "\(r.output)")
        }
    }

    @Test func sysctlsChangeOnlyWhatDiffersAndKeepTheUplinksRouterAdvertisements() {
        let current: [String: String] = [
            "net.ipv4.ip_forward": "0", "net.ipv4.conf.all.send_redirects": "1", "net.ipv4.conf.wlan1.send_redirects": "1",
            "net.ipv6.conf.all.forwarding": "1", "net.ipv6.conf.eth0.accept_ra": "1",
        ]
        let changes = SysctlPlan.changes(for: Self.plan) { current[$0] }
        #expect(changes.map(\.key) == ["net.ipv4.ip_forward", "net.ipv4.conf.all.send_redirects",
                                       "net.ipv4.conf.wlan1.send_redirects", "net.ipv6.conf.eth0.accept_ra"])
        #expect(changes.first { $0.key == "net.ipv6.conf.eth0.accept_ra" }?.wanted == "2")
        #expect(changes.allSatisfy { current[$0.key] == $0.previous })
        // A key the kernel lacks (no IPv6) is not touched.
        #expect(SysctlPlan.changes(for: Self.plan) { $0.hasPrefix("net.ipv6") ? nil : "0" }.allSatisfy { !$0.key.hasPrefix("net.ipv6") })
        #expect(SysctlPlan.path(of: "net.ipv4.conf.eth0.100.send_redirects") == "/proc/sys/net/ipv4/conf/eth0.100/send_redirects")
        #expect(SysctlPlan.path(of: "net.ipv4.ip_forward") == "/proc/sys/net/ipv4/ip_forward")
    }

    @Test func stateRoundTripsThroughItsFile() throws {
        let dir = NSTemporaryDirectory() + "mouchard-gw-state-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let state = GatewayState(pid: 1234, started: Date(timeIntervalSince1970: 1_800_000_000), plan: Self.plan,
                                 sysctls: [SysctlPlan.Change(key: "net.ipv4.ip_forward", previous: "0", wanted: "1")],
                                 tableCreated: true, session: "s")
        try state.save(in: dir)
        #expect(try GatewayState.load(from: dir) == state)
        let mode = try FileManager.default.attributesOfItem(atPath: GatewayState.path(in: dir))[.posixPermissions] as? Int
        #expect(mode == 0o600)
        try "garbage".write(toFile: GatewayState.path(in: dir), atomically: true, encoding: .utf8)
        #expect(throws: GatewayError.self) { try GatewayState.load(from: dir) }
        GatewayState.remove(from: dir)
        #expect(try GatewayState.load(from: dir) == nil)
    }

    @Test func prefixesAndMasks() {
        #expect(NetworkInterfaces.network("10.42.0.17", prefixLength: 24) == IPNetwork(address: "10.42.0.0", prefixLength: 24))
        #expect(NetworkInterfaces.network("fd42::1:2", prefixLength: 64) == IPNetwork(address: "fd42::", prefixLength: 64))
        #expect(NetworkInterfaces.network("192.168.1.130", prefixLength: 25)?.address == "192.168.1.128")
        #expect(HostCommands.mask(IPNetwork(address: "10.42.0.0", prefixLength: 20)) == "255.255.240.0")
        #expect(HostCommands.mask(IPNetwork(address: "fd42::", prefixLength: 56)) == "ffff:ffff:ffff:ff00:0:0:0:0")
        #expect(NetworkInterfaces.exists("lo"))
        #expect(!NetworkInterfaces.exists("no-such-if0"))
        #expect(!NetworkInterfaces.exists("../lo"))
    }
}

/// The nftables rules of the gateway, as the text `nft -f -` reads (pure: a plan in, a script out).
///
/// Everything lives in one table of Mouchard's own, `inet mouchard` (IPv4 and IPv6 at once), so
/// nothing else on the box is touched: the script deletes and recreates only that table, and the
/// teardown deletes only it (never `flush ruleset`, which would wipe Docker's or the firewall's).
///
/// - prerouting (dstnat): the phone's TCP to the chosen ports is redirected to the listener;
/// - input: the listener takes only redirected connections (others are reset: no open proxy);
/// - forward: the phone's UDP/443 (QUIC) is rejected with ICMP port unreachable, so apps fall back
///   to TCP at once, unless QUIC is allowed; invalid conntrack state is dropped; the MSS of the
///   phone's forwarded TCP is clamped to the route's MTU both ways (large post-quantum
///   ClientHellos are otherwise black-holed behind tunnel uplinks);
/// - postrouting (srcnat): the phone's networks are masqueraded to the uplink.
public enum NftablesRules {
    public static let family = "inet"
    public static let table = "mouchard"
    public static var qualifiedTable: String { "\(family) \(table)" }

    /// The script that (re)creates the table. `table ... {}` then `delete table` makes the first
    /// delete succeed whether or not a table was left behind.
    public static func setupScript(_ plan: GatewayPlan) -> String {
        let phone = quoted(plan.phoneSide)
        let uplink = quoted(plan.uplink)
        let ports = plan.ports.map(String.init).joined(separator: ", ")
        var s = """
        table \(qualifiedTable) {}
        delete table \(qualifiedTable)
        table \(qualifiedTable) {
            chain prerouting {
                type nat hook prerouting priority dstnat; policy accept;
                iifname \(phone) meta l4proto tcp tcp dport { \(ports) } counter redirect to :\(plan.listenPort)
            }
            chain input {
                type filter hook input priority filter; policy accept;
                tcp dport \(plan.listenPort) ct status dnat counter accept
                tcp dport \(plan.listenPort) counter reject with tcp reset
            }
            chain forward {
                type filter hook forward priority filter; policy accept;
                iifname \(phone) ct state invalid counter drop
                iifname \(phone) tcp flags syn tcp option maxseg size set rt mtu
                oifname \(phone) tcp flags syn tcp option maxseg size set rt mtu

        """
        if !plan.allowQUIC {
            s += "        iifname \(phone) udp dport 443 counter reject with icmpx type port-unreachable\n"
        }
        s += """
                iifname \(phone) oifname \(uplink) counter accept
                iifname \(uplink) oifname \(phone) ct state established,related counter accept
            }
            chain postrouting {
                type nat hook postrouting priority srcnat; policy accept;

        """
        for n in plan.ipv4Networks {
            s += "        oifname \(uplink) ip saddr \(n) counter masquerade\n"
        }
        for n in plan.ipv6Networks {
            s += "        oifname \(uplink) ip6 saddr \(n) counter masquerade\n"
        }
        s += "    }\n}\n"
        return s
    }

    /// The script that removes the table (and nothing else).
    public static var teardownScript: String {
        "table \(qualifiedTable) {}\ndelete table \(qualifiedTable)\n"
    }

    /// An interface name as an nft string literal. Linux names are at most 15 bytes and never hold
    /// quotes, slashes or spaces; the CLI checks the interface exists before this is called.
    static func quoted(_ name: String) -> String {
        "\"" + name.filter { $0 != "\"" && $0 != "\\" && !$0.isNewline } + "\""
    }
}

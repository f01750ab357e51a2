import Foundation

/// Finds what, outside Mouchard's own table, drops the phone's forwarded packets by default: a base
/// chain on the `forward` hook whose policy is `drop` (Docker sets `ip filter FORWARD` to drop when it
/// enables forwarding; so do hardened firewalls). In nftables every base chain of a hook sees the
/// packet, and a drop in any of them wins over our accept, so the phone would get no internet. The
/// gateway never edits another table: it says what it found and how to let the phone through.
public enum ForwardPolicyCheck {
    /// The chains of `nft -j list chains` (libnftables JSON) that drop forwarded packets by default,
    /// ours excepted, as `family table chain`.
    public static func droppingChains(nftChainsJSON: String, ownTable: (family: String, name: String)) -> [String] {
        struct Listing: Decodable {
            struct Item: Decodable { var chain: Chain? }
            struct Chain: Decodable {
                var family: String
                var table: String
                var name: String
                var hook: String?
                var policy: String?
            }
            var nftables: [Item]
        }
        guard let listing = try? JSONDecoder().decode(Listing.self, from: Data(nftChainsJSON.utf8)) else { return [] }
        return listing.nftables.compactMap(\.chain)
            .filter { $0.hook == "forward" && $0.policy == "drop" && !($0.family == ownTable.family && $0.table == ownTable.name) }
            .map { "\($0.family) \($0.table) \($0.name)" }
            .sorted()
    }

    /// One warning per dropping chain, with the commands that let the phone's interface through.
    public static func warnings(droppingChains: [String], phoneSide: String) -> [String] {
        droppingChains.map { chain in
            let parts = chain.split(separator: " ").map(String.init)
            let dockerHint = parts.count == 3 && parts[1] == "filter" && parts[2] == "FORWARD"
                ? "; with Docker: iptables -I DOCKER-USER -i \(phoneSide) -j ACCEPT and iptables -I DOCKER-USER -o \(phoneSide) -j ACCEPT"
                : ""
            return "the chain '\(chain)' drops forwarded packets by default (policy drop), so the phone may get no internet: "
                + "allow its interface there (nft insert rule \(chain) iifname \"\(phoneSide)\" accept, and oifname for the way back)"
                + dockerHint + "; Mouchard does not change other tables"
        }
    }
}

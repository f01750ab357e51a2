/// Idle keep-alive connections to origins, per event loop, keyed by target and the SNI sent to it
/// (LIFO, bounded, closed after an idle timeout or as soon as the origin sends or closes anything).
/// The SNI is part of the key because a transparent (gateway) target is the origin's address, which
/// may serve several names: a connection verified for one name never serves another. Whether `h2`
/// was offered to the origin is part of it too: a phone offering h2 may only reuse a connection on
/// which the origin, offered h2, chose HTTP/1.1 (so it would not have had h2 anyway).
final class UpstreamPool: UpstreamLinkOwner {
    private struct Key: Hashable {
        var target: UpstreamTarget
        var serverName: String?
        var offeredHTTP2: Bool

        init(_ link: UpstreamLink) {
            self.init(target: link.target, serverName: link.serverName, offeredHTTP2: link.offeredHTTP2)
        }

        init(target: UpstreamTarget, serverName: String?, offeredHTTP2: Bool) {
            self.target = target
            self.serverName = serverName
            self.offeredHTTP2 = offeredHTTP2
        }
    }

    private var idle: [Key: [UpstreamLink]] = [:]
    let maxPerTarget: Int
    private(set) var count = 0

    init(maxPerTarget: Int) { self.maxPerTarget = maxPerTarget }

    /// A usable idle connection to `target` that sent `serverName` as its SNI (nil: none, or no
    /// TLS), now owned by `owner`; nil when none. `offeringHTTP2`: the client offers h2, so only a
    /// connection whose origin was offered h2 and declined it will do.
    func take(_ target: UpstreamTarget, serverName: String?, offeringHTTP2: Bool = false,
              for owner: UpstreamLinkOwner) -> UpstreamLink? {
        for offered in offeringHTTP2 ? [true] : [false, true] {
            let key = Key(target: target, serverName: serverName, offeredHTTP2: offered)
            while var list = idle[key], let link = list.popLast() {
                idle[key] = list.isEmpty ? nil : list
                count -= 1
                if link.isUsable {
                    link.owner = owner
                    link.resumeReading()
                    return link
                }
            }
        }
        return nil
    }

    /// Parks `link` for reuse (or closes it when the pool for its target is full).
    func put(_ link: UpstreamLink, now: UInt64) {
        guard link.isUsable, link.state == .ready else {
            link.close()
            return
        }
        let key = Key(link)
        var list = idle[key] ?? []
        if list.count >= maxPerTarget {
            link.close()
            return
        }
        link.owner = self
        link.idleSince = now
        list.append(link)
        idle[key] = list
        count += 1
    }

    /// Closes connections idle for longer than `limit` ms.
    func sweep(now: UInt64, limit: UInt64) {
        for (key, list) in idle {
            let keep = list.filter { link in
                if now - link.idleSince > limit || !link.isUsable {
                    link.close()
                    return false
                }
                return true
            }
            count -= list.count - keep.count
            idle[key] = keep.isEmpty ? nil : keep
        }
    }

    func closeAll() {
        for list in idle.values { for link in list { link.close() } }
        idle = [:]
        count = 0
    }

    private func remove(_ link: UpstreamLink) {
        link.close()
        let key = Key(link)
        guard var list = idle[key], let i = list.firstIndex(where: { $0 === link }) else { return }
        list.remove(at: i)
        count -= 1
        idle[key] = list.isEmpty ? nil : list
    }

    // An idle connection that speaks or closes is useless.
    func upstreamReady(_ link: UpstreamLink) {}
    func upstreamFailed(_ link: UpstreamLink, _ failure: UpstreamFailure) { remove(link) }
    func upstream(_ link: UpstreamLink, received bytes: [UInt8]) { remove(link) }
    func upstreamEnded(_ link: UpstreamLink) { remove(link) }
    func upstreamDrained(_ link: UpstreamLink) {}
}

/// Idle keep-alive connections to origins, per event loop, keyed by target (LIFO, bounded,
/// closed after an idle timeout or as soon as the origin sends or closes anything).
final class UpstreamPool: UpstreamLinkOwner {
    private var idle: [UpstreamTarget: [UpstreamLink]] = [:]
    let maxPerTarget: Int
    private(set) var count = 0

    init(maxPerTarget: Int) { self.maxPerTarget = maxPerTarget }

    /// A usable idle connection to `target`, now owned by `owner`; nil when none.
    func take(_ target: UpstreamTarget, for owner: UpstreamLinkOwner) -> UpstreamLink? {
        while var list = idle[target], let link = list.popLast() {
            idle[target] = list.isEmpty ? nil : list
            count -= 1
            if link.isUsable {
                link.owner = owner
                link.resumeReading()
                return link
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
        var list = idle[link.target] ?? []
        if list.count >= maxPerTarget {
            link.close()
            return
        }
        link.owner = self
        link.idleSince = now
        list.append(link)
        idle[link.target] = list
        count += 1
    }

    /// Closes connections idle for longer than `limit` ms.
    func sweep(now: UInt64, limit: UInt64) {
        for (target, list) in idle {
            let keep = list.filter { link in
                if now - link.idleSince > limit || !link.isUsable {
                    link.close()
                    return false
                }
                return true
            }
            count -= list.count - keep.count
            idle[target] = keep.isEmpty ? nil : keep
        }
    }

    func closeAll() {
        for list in idle.values { for link in list { link.close() } }
        idle = [:]
        count = 0
    }

    private func remove(_ link: UpstreamLink) {
        link.close()
        guard var list = idle[link.target], let i = list.firstIndex(where: { $0 === link }) else { return }
        list.remove(at: i)
        count -= 1
        idle[link.target] = list.isEmpty ? nil : list
    }

    // An idle connection that speaks or closes is useless.
    func upstreamReady(_ link: UpstreamLink) {}
    func upstreamFailed(_ link: UpstreamLink, _ failure: UpstreamFailure) { remove(link) }
    func upstream(_ link: UpstreamLink, received bytes: [UInt8]) { remove(link) }
    func upstreamEnded(_ link: UpstreamLink) { remove(link) }
    func upstreamDrained(_ link: UpstreamLink) {}
}

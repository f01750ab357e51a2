import MouchardFindings
import MouchardInspection
import Synchronization

/// An attribution that remembers its answers per host: the inspector attributes every leaking
/// request and the tracker look-up plus first-party policy cost more than a dictionary hit. At most
/// `capacity` hosts are remembered (memory stays bounded on captures with many hosts).
public final class CachedAttribution: DestinationAttributing {
    public static let capacity = 20_000
    public let base: any DestinationAttributing
    private let cache = Mutex<[String: DestinationInfo]>([:])

    public init(_ base: any DestinationAttributing) { self.base = base }

    public func attribute(host: String) -> DestinationInfo {
        if let hit = cache.withLock({ $0[host] }) { return hit }
        let info = base.attribute(host: host)
        cache.withLock { c in
            if c.count < Self.capacity { c[host] = info }
        }
        return info
    }
}

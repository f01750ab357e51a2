import COpenSSL
import Synchronization

/// Client-side TLS session cache (proxy → origin): the last session ticket each origin gave us,
/// keyed by host and SNI, so the next upstream connection resumes instead of doing a full
/// handshake (no certificate download, parse and chain verification). Bounded LRU, thread-safe.
final class TLSSessionCache: Sendable {
    /// One `SSL_SESSION` reference, freed when evicted and no connection uses it any more.
    final class Entry: @unchecked Sendable {
        let session: OpaquePointer
        init(taking session: OpaquePointer) { self.session = session }
        deinit { SSL_SESSION_free(session) }
    }

    private let entries: Mutex<LRUCache<String, Entry>>

    init(capacity: Int) {
        entries = Mutex(LRUCache(capacity: capacity))
    }

    func store(_ entry: Entry, for key: String) { entries.withLock { $0.put(key, entry) } }

    func lookup(_ key: String) -> Entry? {
        let entry = entries.withLock { $0.get(key) }
        guard let entry, SSL_SESSION_is_resumable(entry.session) == 1 else { return nil }
        return entry
    }
}

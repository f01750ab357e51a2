/// A bounded least-recently-used map with O(1) get/put (hash map + doubly linked list kept in
/// arrays). Not thread-safe by itself; `LeafCertificateMinter` wraps it in a Mutex.
struct LRUCache<Key: Hashable, Value> {
    private struct Node {
        var key: Key
        var value: Value
        var previous: Int
        var next: Int
    }

    let capacity: Int
    private var nodes: [Node] = []
    private var index: [Key: Int] = [:]
    private var head = -1  // most recent
    private var tail = -1  // least recent

    init(capacity: Int) {
        self.capacity = max(1, capacity)
    }

    var count: Int { index.count }

    /// The value for `key`, marking it most recently used.
    mutating func get(_ key: Key) -> Value? {
        guard let slot = index[key] else { return nil }
        moveToFront(slot)
        return nodes[slot].value
    }

    /// Inserts or replaces `key`; evicts the least recently used entry when full.
    mutating func put(_ key: Key, _ value: Value) {
        if let slot = index[key] {
            nodes[slot].value = value
            moveToFront(slot)
            return
        }
        let slot: Int
        if nodes.count < capacity {
            nodes.append(Node(key: key, value: value, previous: -1, next: -1))
            slot = nodes.count - 1
        } else {
            slot = tail
            unlink(slot)
            index[nodes[slot].key] = nil
            nodes[slot] = Node(key: key, value: value, previous: -1, next: -1)
        }
        index[key] = slot
        linkAtFront(slot)
    }

    private mutating func moveToFront(_ slot: Int) {
        guard slot != head else { return }
        unlink(slot)
        linkAtFront(slot)
    }

    private mutating func unlink(_ slot: Int) {
        let previous = nodes[slot].previous, next = nodes[slot].next
        if previous >= 0 { nodes[previous].next = next } else { head = next }
        if next >= 0 { nodes[next].previous = previous } else { tail = previous }
        nodes[slot].previous = -1
        nodes[slot].next = -1
    }

    private mutating func linkAtFront(_ slot: Int) {
        nodes[slot].next = head
        nodes[slot].previous = -1
        if head >= 0 { nodes[head].previous = slot }
        head = slot
        if tail < 0 { tail = slot }
    }
}

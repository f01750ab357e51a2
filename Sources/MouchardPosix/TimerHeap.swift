/// A binary min-heap of timer deadlines (monotonic ms) for an event loop.
/// Cancelled timers stay in the heap and are skipped when they surface.
struct TimerHeap {
    struct Entry {
        var deadline: UInt64
        var id: UInt64
    }

    private var items: [Entry] = []

    var count: Int { items.count }

    func peek() -> Entry? { items.first }

    mutating func push(deadline: UInt64, id: UInt64) {
        items.append(Entry(deadline: deadline, id: id))
        var i = items.count - 1
        while i > 0 {
            let parent = (i - 1) / 2
            if less(items[i], items[parent]) {
                items.swapAt(i, parent)
                i = parent
            } else {
                break
            }
        }
    }

    mutating func pop() -> Entry? {
        guard !items.isEmpty else { return nil }
        let top = items[0]
        let last = items.removeLast()
        if !items.isEmpty {
            items[0] = last
            var i = 0
            while true {
                let l = 2 * i + 1, r = l + 1
                var m = i
                if l < items.count, less(items[l], items[m]) { m = l }
                if r < items.count, less(items[r], items[m]) { m = r }
                if m == i { break }
                items.swapAt(i, m)
                i = m
            }
        }
        return top
    }

    private func less(_ a: Entry, _ b: Entry) -> Bool {
        a.deadline < b.deadline || (a.deadline == b.deadline && a.id < b.id)
    }
}

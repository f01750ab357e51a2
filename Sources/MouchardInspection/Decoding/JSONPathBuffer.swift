/// The path of the JSON value `FieldWalker.walkJSON` is walking (`body:$.a.b[2]`), as bytes
/// written and taken off member by member: only the paths of the values found are made text (a
/// nested container's own path is not, where joining strings made one for each).
///
/// It writes into memory it is given (the walk's stack buffer) and moves to memory of its own
/// when a path outgrows it; `freeOwnMemory()` must be called once the walk is done.
struct JSONPathBuffer {
    private var memory: UnsafeMutableBufferPointer<UInt8>
    /// True once `memory` was allocated here (a path outgrew the first buffer).
    private var ownsMemory = false
    /// How many bytes of `memory` the path holds.
    private(set) var count = 0

    init(memory: UnsafeMutableBufferPointer<UInt8>) {
        self.memory = memory
    }

    /// Makes room for `extra` more bytes, moving to a larger buffer when needed.
    private mutating func reserve(_ extra: Int) {
        guard count + extra > memory.count else { return }
        let larger = UnsafeMutableBufferPointer<UInt8>.allocate(capacity: max(2 * memory.count, count + extra, 64))
        if count > 0, let from = memory.baseAddress, let to = larger.baseAddress { to.update(from: from, count: count) }
        if ownsMemory { memory.deallocate() }
        memory = larger
        ownsMemory = true
    }

    /// Frees the memory allocated here, if any (the buffer is not to be used after).
    mutating func freeOwnMemory() {
        if ownsMemory { memory.deallocate() }
        ownsMemory = false
        memory = UnsafeMutableBufferPointer(start: nil, count: 0)
        count = 0
    }

    mutating func append(_ byte: UInt8) {
        reserve(1)
        memory[count] = byte
        count += 1
    }

    mutating func append(_ bytes: UnsafeBufferPointer<UInt8>) {
        guard let from = bytes.baseAddress, !bytes.isEmpty else { return }
        reserve(bytes.count)
        guard let to = memory.baseAddress else { return }
        (to + count).update(from: from, count: bytes.count)
        count += bytes.count
    }

    mutating func append(_ text: String) {
        var text = text
        text.withUTF8 { append($0) }
    }

    /// Writes `[i]` (`i` >= 0; a negative `i` is written as 0).
    mutating func appendIndex(_ i: Int) {
        let value = max(i, 0)
        var digits = 1
        var rest = value / 10
        while rest > 0 { digits += 1; rest /= 10 }
        reserve(digits + 2)
        memory[count] = UInt8(ascii: "[")
        var left = value
        var k = count + digits
        while k > count {
            memory[k] = UInt8(ascii: "0") + UInt8(left % 10)
            left /= 10
            k -= 1
        }
        memory[count + digits + 1] = UInt8(ascii: "]")
        count += digits + 2
    }

    /// Takes the path back to its first `count` bytes (`count` no more than it holds).
    mutating func truncate(to count: Int) {
        self.count = max(0, min(count, self.count))
    }

    /// The path as text.
    func text() -> String {
        String(decoding: UnsafeBufferPointer(rebasing: memory[0..<count]), as: UTF8.self)
    }
}

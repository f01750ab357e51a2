/// Writes texts one after another into the buffer of a string being made, so that a text of many
/// pieces (a finding's sentence, a request's URL) is made with one allocation and one copy of each
/// piece: chained appends would each check capacity and copy, interpolation more so.
struct UTF8Writer {
    private let buffer: UnsafeMutableBufferPointer<UInt8>
    /// Bytes written so far.
    private(set) var count = 0

    init(_ buffer: UnsafeMutableBufferPointer<UInt8>) { self.buffer = buffer }

    /// Appends the bytes (as many as there is room for).
    @inline(__always)
    mutating func write(_ bytes: UnsafeBufferPointer<UInt8>) {
        let n = min(bytes.count, buffer.count - count)
        guard n > 0, let from = bytes.baseAddress, let to = buffer.baseAddress else { return }
        (to + count).update(from: from, count: n)
        count += n
    }

    /// Appends `text`'s UTF-8.
    @inline(__always)
    mutating func write(_ text: String) {
        if text.utf8.withContiguousStorageIfAvailable({ write($0) }) != nil { return }
        // Text not stored as UTF-8 (bridged): byte by byte.
        for b in text.utf8 { write(b) }
    }

    /// Appends a constant's UTF-8.
    @inline(__always)
    mutating func write(_ text: StaticString) {
        // `withUTF8Buffer`, not `utf8Start`: a one-scalar constant may have no pointer to its bytes.
        text.withUTF8Buffer { write($0) }
    }

    /// Appends one byte.
    @inline(__always)
    mutating func write(_ byte: UInt8) {
        guard count < buffer.count else { return }
        buffer[count] = byte
        count += 1
    }
}

extension String {
    /// The text `body` writes, in a buffer of `count` bytes (what it writes past them is dropped).
    @inline(__always)
    init(utf8Count count: Int, _ body: (inout UTF8Writer) -> Void) {
        self.init(unsafeUninitializedCapacity: count) { buffer in
            var writer = UTF8Writer(buffer)
            body(&writer)
            return writer.count
        }
    }
}

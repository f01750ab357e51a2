/// Byte helpers the field walkers share: splitting, trimming, searching, decimal numbers.

/// Calls `body` with each non-empty part of `bytes` between `separator`s, in order, until it
/// returns false (`split` without the array of slices).
@inline(__always)
func forEachPart(of bytes: ArraySlice<UInt8>, separatedBy separator: UInt8, _ body: (ArraySlice<UInt8>) -> Bool) {
    var start = bytes.startIndex
    while start < bytes.endIndex {
        var end = start
        while end < bytes.endIndex, bytes[end] != separator { end += 1 }
        if end > start, !body(bytes[start..<end]) { return }
        start = end + 1
    }
}

/// Removes ASCII whitespace around a byte slice.
func trimSpace(_ bytes: ArraySlice<UInt8>) -> ArraySlice<UInt8> {
    @inline(__always) func isSpace(_ b: UInt8) -> Bool { b == 0x20 || b == 0x09 || b == 0x0A || b == 0x0D }
    var start = bytes.startIndex, end = bytes.endIndex
    while start < end, isSpace(bytes[start]) { start += 1 }
    while end > start, isSpace(bytes[end - 1]) { end -= 1 }
    return bytes[start..<end]
}

/// A decimal number written as `-12.345` (no exponent): its value and how many decimals it has.
func parseDecimal<C: RandomAccessCollection>(_ bytes: C) -> (value: Double, decimals: Int)? where C.Element == UInt8, C.Index == Int {
    guard bytes.count >= 3, bytes.count <= 24 else { return nil }
    var i = bytes.startIndex
    var negative = false
    if bytes[i] == 0x2D { negative = true; i += 1 } else if bytes[i] == 0x2B { i += 1 }
    var intPart: Double = 0
    var intDigits = 0
    while i < bytes.endIndex, bytes[i] >= 0x30, bytes[i] <= 0x39 {
        intPart = intPart * 10 + Double(bytes[i] - 0x30)
        intDigits += 1
        i += 1
        // More than three integer digits is no decimal of interest (timestamps, ids): answered now.
        if intDigits > 3 { return nil }
    }
    guard intDigits > 0, i < bytes.endIndex, bytes[i] == 0x2E else { return nil }
    i += 1
    var frac: Double = 0
    var scale: Double = 1
    var decimals = 0
    while i < bytes.endIndex, bytes[i] >= 0x30, bytes[i] <= 0x39 {
        frac = frac * 10 + Double(bytes[i] - 0x30)
        scale *= 10
        decimals += 1
        i += 1
    }
    guard decimals > 0, i == bytes.endIndex else { return nil }
    let v = intPart + frac / scale
    return (negative ? -v : v, decimals)
}

/// Where `needle` first occurs in `hay` (an index of `hay`), nil when it does not.
func findSubsequence(_ hay: ArraySlice<UInt8>, _ needle: [UInt8]) -> Int? {
    let found = hay.withUnsafeBufferPointer { h in needle.withUnsafeBufferPointer { firstOccurrence(of: $0, in: h) } }
    return found.map { hay.startIndex + $0 }
}

/// Where `n` first occurs in `hay`, nil when it does not (0 for an empty `n`).
private func firstOccurrence(of n: UnsafeBufferPointer<UInt8>, in hay: UnsafeBufferPointer<UInt8>) -> Int? {
    guard let first = n.first else { return 0 }
    guard hay.count >= n.count else { return nil }
    var i = 0
    while i + n.count <= hay.count {
        if hay[i] == first {
            var ok = true
            for k in 1..<n.count where hay[i + k] != n[k] { ok = false; break }
            if ok { return i }
        }
        i += 1
    }
    return nil
}

extension Substring {
    func trimmingCharacters(in set: String) -> String {
        var s = self
        while let f = s.first, set.contains(f) { s.removeFirst() }
        while let l = s.last, set.contains(l) { s.removeLast() }
        return String(s)
    }
}

/// ASCII substring test on UTF-8 (no Foundation: this runs for every document).
func asciiContains(_ haystack: String, _ needle: StaticString) -> Bool {
    asciiContains(haystack, UnsafeBufferPointer(start: needle.utf8Start, count: needle.utf8CodeUnitCount))
}

func asciiContains(_ haystack: String, _ needle: String) -> Bool {
    var needle = needle
    return needle.withUTF8 { asciiContains(haystack, $0) }
}

func asciiContains(_ haystack: String, _ n: UnsafeBufferPointer<UInt8>) -> Bool {
    guard n.count > 0 else { return true }
    // Native strings are read in place; others (bridged, never in practice) through a copy.
    if let found = haystack.utf8.withContiguousStorageIfAvailable({ asciiContains($0, n) }) { return found }
    var h = haystack
    return h.withUTF8 { asciiContains($0, n) }
}

private func asciiContains(_ hay: UnsafeBufferPointer<UInt8>, _ n: UnsafeBufferPointer<UInt8>) -> Bool {
    firstOccurrence(of: n, in: hay) != nil
}

/// Degrees written as integers scaled by 10^5, 10^6 or 10^7, named so (`latE7`, `lng_e6`).
func scaledCoordinate(key: String, _ digits: ArraySlice<UInt8>) -> (value: Double, decimals: Int)? {
    guard digits.count >= 5, digits.count <= 12, !digits.contains(0x2E), !digits.contains(0x65), !digits.contains(0x45) else { return nil }
    let k = key.lowercased()
    let exponent: Int
    if k.hasSuffix("e7") { exponent = 7 } else if k.hasSuffix("e6") { exponent = 6 } else if k.hasSuffix("e5") { exponent = 5 } else { return nil }
    guard let v = Int(String(decoding: digits, as: UTF8.self)) else { return nil }
    var scale = 1.0
    for _ in 0..<exponent { scale *= 10 }
    return (Double(v) / scale, exponent)
}

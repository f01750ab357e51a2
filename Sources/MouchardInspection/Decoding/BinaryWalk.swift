import Foundation

/// Binary documents that are no protobuf message: a JPEG's Exif GPS position, the strings of a
/// binary record (Java `DataOutputStream.writeUTF`: a 2-byte big-endian length, then the bytes; the
/// same with a little-endian length, as native agents write them) and IEEE-754 numbers side by
/// side that may be a coordinate pair (float64 or float32, either byte order).
extension FieldWalker {
    /// Bytes of a binary document read for strings and numbers (a record's fields come first).
    static let binaryScanLimit = 64 << 10
    /// Number pairs kept per document at most.
    static let maxBinaryPairs = 1024
    /// Shortest length-prefixed string read.
    static let minBinaryString = 6

    /// Walks `bytes` as a JPEG when it is one (true: nothing else to read in it).
    mutating func walkJPEG(_ bytes: ArraySlice<UInt8>, origin: FieldOrigin) -> Bool {
        guard ExifGPS.isJPEG(bytes) else { return false }
        switch ExifGPS.read(bytes) {
        case .success(let p):
            var decodings = origin.decodings
            decodings.append("exif-gps")
            let members: [NumberGroup.Member] = [.init(key: "latitude", value: p.latitude, decimals: p.decimals),
                                                 .init(key: "longitude", value: p.longitude, decimals: p.decimals)]
            result.groups.append(NumberGroup(prefix: origin.location, inner: (origin.inner.map { $0 + "." } ?? "") + "exif.gps.",
                                             decodings: decodings, containerKey: "gps", members: members, fromOneString: false, marked: true))
        case .failure(let failure):
            if failure != .notJPEG, failure != .noExif, failure != .noGPS {
                result.notes.append("\(origin.location): Exif block unreadable (\(failure))")
            }
        }
        return true
    }

    /// The length-prefixed strings and the number pairs of a binary document.
    mutating func walkBinaryRecord(_ bytes: ArraySlice<UInt8>, origin: FieldOrigin, depth: Int) {
        let b = Array(bytes.prefix(Self.binaryScanLimit))
        var i = 0
        var strings = 0
        while i + 2 + Self.minBinaryString <= b.count, strings < 256, !full {
            let big = Int(b[i]) << 8 | Int(b[i + 1])
            let little = Int(b[i + 1]) << 8 | Int(b[i])
            var taken = false
            for (length, how) in [(big, "writeUTF"), (little, "length-prefixed")] where length >= Self.minBinaryString {
                let end = i + 2 + length
                guard end <= b.count, b[(i + 2)..<end].allSatisfy({ $0 >= 0x20 && $0 < 0x7F }) else { continue }
                var o = origin
                o.decodings.append(how)
                leaf(bytes[(bytes.startIndex + i + 2)..<(bytes.startIndex + end)], o, depth: depth + 1)
                strings += 1
                i = end
                taken = true
                break
            }
            if !taken { i += 1 }
        }
        binaryNumberPairs(b, origin: origin)
    }

    /// Adjacent IEEE-754 numbers that both look like degrees written with a few decimals: a group
    /// each, without a key. Float64 pairs of 4 decimals or more are marked as coordinates; float32
    /// pairs are not (a float32 in degree ranges has few decimals by nature: only a profile's
    /// location tells a coordinate pair among them).
    private mutating func binaryNumberPairs(_ b: [UInt8], origin: FieldOrigin) {
        var pairs = 0
        func word(_ at: Int, _ width: Int, little: Bool) -> UInt64 {
            var v: UInt64 = 0
            for k in 0..<width { v = v << 8 | UInt64(b[little ? at + width - 1 - k : at + k]) }
            return v
        }
        var at = 0
        while at + 8 <= b.count, pairs < Self.maxBinaryPairs {
            defer { at += 1 }
            for little in [false, true] {
                if at + 16 <= b.count,
                   let x = Self.degreeLike(Double(bitPattern: word(at, 8, little: little))),
                   let y = Self.degreeLike(Double(bitPattern: word(at + 8, 8, little: little))) {
                    // Two float64 values of 4 to 7 decimals side by side: a degree pair by its
                    // writing (measurements in binary are seldom that round, random bytes never).
                    binaryPair(x, y, how: little ? "float64le" : "float64be", origin: origin,
                               marked: x.1 >= Self.markedFloat64Decimals && y.1 >= Self.markedFloat64Decimals)
                    pairs += 1
                }
                if let x = Self.degreeLike(Float(bitPattern: UInt32(word(at, 4, little: little)))),
                   let y = Self.degreeLike(Float(bitPattern: UInt32(word(at + 4, 4, little: little)))) {
                    binaryPair(x, y, how: little ? "float32le" : "float32be", origin: origin, marked: false)
                    pairs += 1
                }
            }
        }
    }

    /// Decimals each float64 of a pair needs to be marked as coordinates (about 10 m).
    static let markedFloat64Decimals = 4

    private mutating func binaryPair(_ x: (Double, Int), _ y: (Double, Int), how: String, origin: FieldOrigin, marked: Bool) {
        var decodings = origin.decodings
        decodings.append(how)
        result.groups.append(NumberGroup(prefix: origin.location, inner: origin.inner, decodings: decodings, containerKey: "",
                                         members: [.init(key: "0", value: x.0, decimals: x.1), .init(key: "1", value: y.0, decimals: y.1)],
                                         fromOneString: true, marked: marked))
    }

    /// A value in degree ranges (0.01 to 180 in magnitude) whose shortest decimal writing has 2 to 7
    /// decimals: (value as written, decimals); nil for anything else (most bytes read as numbers).
    static func degreeLike(_ v: Double) -> (Double, Int)? {
        guard v.isFinite, v.magnitude >= 0.01, v.magnitude <= 180 else { return nil }
        var scale = 1.0
        for d in 1...7 {
            scale *= 10
            let written = (v * scale).rounded() / scale
            if written == v { return d >= 2 ? (written, d) : nil }
        }
        return nil
    }

    /// `degreeLike` of a float32: the shortest decimal that reads back as the same float32, up to 5
    /// decimals (about 1 m).
    static func degreeLike(_ f: Float) -> (Double, Int)? {
        guard f.isFinite, f.magnitude >= 0.01, f.magnitude <= 180 else { return nil }
        let v = Double(f)
        var scale = 1.0
        // A float32 holds about 7 significant digits: 6 decimals fit nearly every one in range.
        for d in 1...5 {
            scale *= 10
            let written = (v * scale).rounded() / scale
            if Float(written) == f { return d >= 2 ? (written, d) : nil }
        }
        return nil
    }
}

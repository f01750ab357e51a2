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
        var stringEnds = Set<Int>()
        while i + 2 + Self.minBinaryString <= b.count, strings < 256, !full {
            // A big-endian length (`writeUTF`), else a little-endian one.
            var end = i + 2 + (Int(b[i]) << 8 | Int(b[i + 1]))
            var how = "writeUTF"
            if !Self.isPrintableString(b, from: i + 2, to: end) {
                end = i + 2 + (Int(b[i + 1]) << 8 | Int(b[i]))
                how = "length-prefixed"
                guard Self.isPrintableString(b, from: i + 2, to: end) else { i += 1; continue }
            }
            // Recorded, not decoded further: a record's strings are names, ids and versions (the
            // matchers read them as they are; a glued prefix is split off as in any leaf).
            var o = origin
            o.decodings.append(how)
            let string = bytes[(bytes.startIndex + i + 2)..<(bytes.startIndex + end)]
            emit(string, o)
            if let tail = PrefixedIdentifier.tail(string) {
                o.decodings.append("prefix")
                emit(tail, o)
            }
            strings += 1
            stringEnds.insert(end)
            i = end
        }
        binaryNumberPairs(b, stringEnds: stringEnds, origin: origin)
    }

    /// `b[from..<to]` is a string worth reading: at least `minBinaryString` printable ASCII bytes, within `b`.
    private static func isPrintableString(_ b: [UInt8], from: Int, to: Int) -> Bool {
        guard to - from >= minBinaryString, to <= b.count else { return false }
        for k in from..<to where b[k] < 0x20 || b[k] >= 0x7F { return false }
        return true
    }

    /// Adjacent IEEE-754 numbers that both look like degrees written with a few decimals: a group
    /// each, without a key, marked as coordinates when the record makes the pair credible without a
    /// profile (`BinaryCoordinatePair`). With a profile (pruning), a pair neither of
    /// whose numbers is within a degree of the profile's latitude is not kept: it could not be near
    /// the profile in either order, so the findings are those of keeping it.
    private mutating func binaryNumberPairs(_ b: [UInt8], stringEnds: Set<Int>, origin: FieldOrigin) {
        guard b.count >= 8 else { return }
        let latitude = pruning?.matcher.location.map { abs($0.latitude) }
        @inline(__always) func nearLatitude(_ x: Double, _ y: Double) -> Bool {
            guard let latitude else { return true }
            return abs(abs(x) - latitude) < 1 || abs(abs(y) - latitude) < 1
        }
        var found: [(x: (Double, Int), y: (Double, Int), at: Int, width: Int, little: Bool)] = []
        b.withUnsafeBytes { raw in
            @inline(__always) func u64(_ at: Int, little: Bool) -> UInt64 {
                let v = raw.loadUnaligned(fromByteOffset: at, as: UInt64.self)
                return little ? UInt64(littleEndian: v) : UInt64(bigEndian: v)
            }
            @inline(__always) func u32(_ at: Int, little: Bool) -> UInt32 {
                let v = raw.loadUnaligned(fromByteOffset: at, as: UInt32.self)
                return little ? UInt32(littleEndian: v) : UInt32(bigEndian: v)
            }
            var at = 0
            while at + 8 <= raw.count, found.count < Self.maxBinaryPairs {
                for little in 0..<2 {
                    let le = little == 1
                    if at + 16 <= raw.count, let x = Self.degreeLike(Double(bitPattern: u64(at, little: le))),
                       let y = Self.degreeLike(Double(bitPattern: u64(at + 8, little: le))), nearLatitude(x.0, y.0) {
                        found.append((x, y, at, 8, le))
                    }
                    if let x = Self.degreeLike(Float(bitPattern: u32(at, little: le))),
                       let y = Self.degreeLike(Float(bitPattern: u32(at + 4, little: le))), nearLatitude(x.0, y.0) {
                        found.append((x, y, at, 4, le))
                    }
                }
                at += 1
            }
        }
        guard !found.isEmpty else { return }
        let judge = BinaryCoordinatePair(bytes: b, stringEnds: stringEnds)
        for f in found {
            let how = f.width == 8 ? (f.little ? "float64le" : "float64be") : (f.little ? "float32le" : "float32be")
            binaryPair(f.x, f.y, how: how, origin: origin,
                       marked: judge.isPosition(at: f.at, width: f.width, littleEndian: f.little, x: f.x, y: f.y))
        }
    }

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

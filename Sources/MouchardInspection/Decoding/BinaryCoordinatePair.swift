/// Whether two IEEE-754 numbers side by side in a binary record read as a position without a device
/// profile (pattern mode): what makes the pair credible when nothing names it.
///
/// Both widths: the pair is a latitude and a longitude in one of the two orders, not two numbers
/// close to 0 (both under 1 degree: the Gulf of Guinea) nor two near-equal numbers, and it is no
/// part of a series of numbers of its kind (sensor readings, a float array: `isKindred`) unless the
/// series alternates as a track of positions does (`lat, lng, lat, lng`: each number within a
/// hundredth of a degree of the one two places before) or the pair is a position fix: followed by a round
/// number (an accuracy or an altitude in metres, such as `10.0`) and then by no number of its kind.
///
/// - float64: both numbers written with 4 to 7 decimals (random bytes and measurements are never
///   that round as doubles).
/// - float32: the writing says little (a float32 in degree ranges has at most 5 or so decimals by
///   nature, and from 128 every float32 has a 5-decimal writing), so the record's structure has to:
///   the pair starts a record (within its first `recordHeadBytes`) or follows one of its
///   length-prefixed strings, one of its numbers has 3 decimals or more, and both are written with
///   at most 4 decimals (more is the float32's own noise) unless the pair is a position fix.
///
/// On random bytes this reads one float32 pair in about 50,000 records of 16 to 256 bytes; on
/// arrays of sensor readings, compressed data, images and timestamps, none (`BinaryCoordinatePairTests`).
struct BinaryCoordinatePair {
    /// The record.
    let bytes: [UInt8]
    /// Offsets in `bytes` where a length-prefixed string of the record ends.
    let stringEnds: Set<Int>

    /// Bytes before a float32 pair that can be a record's header (version, type, flags).
    static let recordHeadBytes = 8
    /// Decimals one number of a float32 pair needs (about 100 m).
    static let minimumDecimals = 3
    /// Decimals a float32 pair's numbers may have when the record moves on after them: more is the
    /// float32's own noise, not a writing.
    static let preciseFloat32Decimals = 4
    /// Decimals each float64 of a pair needs (about 10 m).
    static let float64Decimals = 4
    /// Degrees under which two numbers are too close to be a latitude and a longitude.
    static let sameCoordinate = 0.1
    /// Degrees a track's latitude or longitude moves at most from one position to the next (about a kilometre).
    static let trackStep = 0.01
    /// Magnitudes of a number that reads as a measurement (a neighbour making the pair part of a series).
    static let measurement: ClosedRange<Double> = 1e-3...1e5
    /// Magnitudes of the round number (one decimal at most) that follows a position fix: metres of accuracy or altitude.
    static let fixMeasure: ClosedRange<Double> = 0.5...20_000

    /// `x` and `y` (value as written, decimals) at `at`, `width` 4 or 8 bytes each, in the byte order of `littleEndian`.
    func isPosition(at: Int, width: Int, littleEndian: Bool, x: (Double, Int), y: (Double, Int)) -> Bool {
        let (a, b) = (x.0, y.0)
        guard (abs(a) <= 90 && abs(b) <= 180) || (abs(b) <= 90 && abs(a) <= 180),
              abs(a) >= 1 || abs(b) >= 1, abs(a - b) > Self.sameCoordinate else { return false }
        let precise: Bool
        if width == 8 {
            guard x.1 >= Self.float64Decimals, y.1 >= Self.float64Decimals else { return false }
            precise = true
        } else {
            guard max(x.1, y.1) >= Self.minimumDecimals, at <= Self.recordHeadBytes || stringEnds.contains(at) else { return false }
            precise = x.1 <= Self.preciseFloat32Decimals && y.1 <= Self.preciseFloat32Decimals
        }
        func kindred(_ offset: Int) -> Double? {
            number(offset, width: width, littleEndian: littleEndian).flatMap { isKindred($0, width: width) ? $0 : nil }
        }
        // Two float32 that are the halves of a written float64 are that float64.
        if width == 4, let whole = number(at, width: 8, littleEndian: littleEndian), isKindred(whole, width: 8) { return false }
        // Numbers of the pair's kind before it make it part of a series, fine only as a track
        // (right after a string, the bytes before are text).
        if !stringEnds.contains(at), let before = kindred(at - width) {
            guard let first = kindred(at - 2 * width), isTrack(first, before, a, b) else { return false }
        }
        guard let next = kindred(at + 2 * width) else { return precise }
        let afterNext = kindred(at + 3 * width)
        // A position fix: a round accuracy or altitude, then the record moves on.
        if isFixMeasure(next), afterNext == nil { return true }
        guard let afterNext else { return false }
        return precise && isTrack(a, b, next, afterNext)
    }

    /// Four numbers in a row that alternate as latitudes and longitudes of a track do.
    func isTrack(_ p: Double, _ q: Double, _ r: Double, _ s: Double) -> Bool {
        abs(p - r) <= Self.trackStep && abs(q - s) <= Self.trackStep
    }

    /// A number of the pair's kind beside it: a float32 of a measurement's magnitude; a float64 of
    /// that magnitude written with 7 decimals at most (random bytes and full-precision doubles
    /// have more), round ones included.
    func isKindred(_ v: Double, width: Int) -> Bool {
        guard v.isFinite, Self.measurement.contains(v.magnitude) else { return false }
        guard width == 8 else { return true }
        var scale = 1.0
        for _ in 0...7 {
            if (v * scale).rounded() / scale == v { return true }
            scale *= 10
        }
        return false
    }

    /// The float32 or float64 at `at`, nil outside the record.
    func number(_ at: Int, width: Int, littleEndian: Bool) -> Double? {
        guard at >= 0, at + width <= bytes.count else { return nil }
        var bits: UInt64 = 0
        for k in 0..<width {
            let byte = UInt64(bytes[littleEndian ? at + width - 1 - k : at + k])
            bits = bits << 8 | byte
        }
        return width == 8 ? Double(bitPattern: bits) : Double(Float(bitPattern: UInt32(truncatingIfNeeded: bits)))
    }

    /// A round number (at most one decimal) in the range of an accuracy or an altitude.
    func isFixMeasure(_ v: Double) -> Bool {
        v.isFinite && Self.fixMeasure.contains(v.magnitude) && (v * 10).rounded() == v * 10
    }
}

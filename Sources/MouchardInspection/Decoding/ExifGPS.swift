/// The GPS position of a JPEG's Exif block: the APP1 segment `Exif\0\0`, its TIFF header (`II` or
/// `MM` byte order), IFD0's GPS IFD pointer (tag 0x8825), and in the GPS IFD the latitude and
/// longitude (tags 2 and 4: three RATIONALs, degrees, minutes, seconds) with their `Ref` letters
/// (tags 1 and 3: `N`/`S`, `E`/`W`). Pure: bytes in, a coordinate pair or an error out; every read
/// is bounds-checked, so a cut or hostile image gives an error, never a crash.
enum ExifGPS {
    /// What a JPEG without a usable GPS position lacks, and where.
    enum Failure: Error, Equatable {
        case notJPEG
        /// No APP1 `Exif` segment before the image data (or the segments run past the end).
        case noExif
        /// The TIFF header or an IFD is cut or malformed at this offset of the TIFF block.
        case badTIFF(offset: Int)
        case noGPS
    }

    /// A position read, with the decimals its rationals carry (seconds to 1/100: 6 decimals).
    struct Position: Equatable {
        var latitude: Double
        var longitude: Double
        var decimals: Int
    }

    /// JPEG segments read before giving up (a real file has its APP1 among the first few).
    static let maxSegments = 32
    /// Entries of one IFD read at most.
    static let maxEntries = 512

    static func isJPEG(_ bytes: ArraySlice<UInt8>) -> Bool {
        bytes.count >= 4 && bytes[bytes.startIndex] == 0xFF && bytes[bytes.startIndex + 1] == 0xD8 && bytes[bytes.startIndex + 2] == 0xFF
    }

    static func read(_ jpeg: ArraySlice<UInt8>) -> Result<Position, Failure> {
        guard isJPEG(jpeg) else { return .failure(.notJPEG) }
        let b = Array(jpeg)
        var at = 2
        for _ in 0..<maxSegments {
            guard at + 4 <= b.count, b[at] == 0xFF else { return .failure(.noExif) }
            let marker = b[at + 1]
            // Start of scan or end of image: no metadata segment follows.
            if marker == 0xDA || marker == 0xD9 { return .failure(.noExif) }
            let length = Int(b[at + 2]) << 8 | Int(b[at + 3])
            guard length >= 2, at + 2 + length <= b.count else { return .failure(.noExif) }
            let body = (at + 4)..<(at + 2 + length)
            if marker == 0xE1, body.count >= 14, Array(b[body.lowerBound..<(body.lowerBound + 6)]) == exifHeader {
                return readTIFF(Array(b[(body.lowerBound + 6)..<body.upperBound]))
            }
            at += 2 + length
        }
        return .failure(.noExif)
    }

    private static let exifHeader: [UInt8] = Array("Exif".utf8) + [0, 0]

    /// The TIFF block: byte order, IFD0, its GPS pointer, the GPS IFD.
    static func readTIFF(_ t: [UInt8]) -> Result<Position, Failure> {
        guard t.count >= 8 else { return .failure(.badTIFF(offset: 0)) }
        let little: Bool
        switch (t[0], t[1]) {
        case (0x49, 0x49): little = true
        case (0x4D, 0x4D): little = false
        default: return .failure(.badTIFF(offset: 0))
        }
        let r = Reader(bytes: t, little: little)
        guard r.u16(2) == 42, let ifd0 = r.u32(4) else { return .failure(.badTIFF(offset: 2)) }
        guard let entries0 = r.entries(at: ifd0) else { return .failure(.badTIFF(offset: ifd0)) }
        guard let pointer = entries0.first(where: { $0.tag == 0x8825 }), let gpsOffset = r.u32(pointer.valueOffset) else {
            return .failure(.noGPS)
        }
        guard let gps = r.entries(at: gpsOffset) else { return .failure(.badTIFF(offset: gpsOffset)) }
        func entry(_ tag: UInt16) -> Entry? { gps.first { $0.tag == tag } }
        guard let latRef = entry(1).flatMap(r.letter), let lonRef = entry(3).flatMap(r.letter),
              let lat = entry(2).flatMap(r.degrees), let lon = entry(4).flatMap(r.degrees)
        else { return .failure(.noGPS) }
        let latitude = latRef == UInt8(ascii: "S") ? -lat : lat
        let longitude = lonRef == UInt8(ascii: "W") ? -lon : lon
        guard abs(latitude) <= 90, abs(longitude) <= 180 else { return .failure(.noGPS) }
        return .success(Position(latitude: latitude, longitude: longitude, decimals: 6))
    }

    /// One IFD entry: tag, type, count, and where its value (or the offset of its value) sits.
    struct Entry {
        var tag: UInt16
        var type: UInt16
        var count: UInt32
        /// Offset of the entry's 4-byte value field in the TIFF block.
        var valueOffset: Int
    }

    /// Bounds-checked reads of a TIFF block in its byte order.
    struct Reader {
        let bytes: [UInt8]
        let little: Bool

        func u16(_ at: Int) -> UInt16? {
            guard at >= 0, at + 2 <= bytes.count else { return nil }
            let a = UInt16(bytes[at]), b = UInt16(bytes[at + 1])
            return little ? b << 8 | a : a << 8 | b
        }

        func u32(_ at: Int) -> Int? {
            guard let hi = u16(little ? at + 2 : at), let lo = u16(little ? at : at + 2) else { return nil }
            return Int(hi) << 16 | Int(lo)
        }

        func entries(at offset: Int) -> [Entry]? {
            guard let n = u16(offset), Int(n) <= ExifGPS.maxEntries, offset + 2 + Int(n) * 12 <= bytes.count else { return nil }
            return (0..<Int(n)).compactMap { k in
                let e = offset + 2 + k * 12
                guard let tag = u16(e), let type = u16(e + 2), let count = u32(e + 4) else { return nil }
                return Entry(tag: tag, type: type, count: UInt32(count), valueOffset: e + 8)
            }
        }

        /// The first letter of an ASCII entry (type 2), held in the value field itself.
        func letter(_ e: Entry) -> UInt8? {
            guard e.type == 2, e.count >= 1, e.valueOffset < bytes.count else { return nil }
            return bytes[e.valueOffset]
        }

        /// Degrees from three RATIONALs (type 5): degrees + minutes / 60 + seconds / 3600.
        func degrees(_ e: Entry) -> Double? {
            guard e.type == 5, e.count == 3, let at = u32(e.valueOffset) else { return nil }
            var parts: [Double] = []
            for k in 0..<3 {
                guard let num = u32(at + 8 * k), let den = u32(at + 8 * k + 4), den != 0 else { return nil }
                parts.append(Double(num) / Double(den))
            }
            guard parts[1] < 60, parts[2] < 60 else { return nil }
            return parts[0] + parts[1] / 60 + parts[2] / 3600
        }
    }
}

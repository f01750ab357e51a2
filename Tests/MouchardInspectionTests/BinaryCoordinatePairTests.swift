import Foundation
import MouchardCodec
import MouchardFindings
import MouchardFlow
import MouchardTestSupport
import Testing
@testable import MouchardInspection

/// Float pairs in binary bodies without a device profile (`BinaryCoordinatePair`): positions that
/// records make credible are found; random bytes, compressed data, an image, timestamps and arrays
/// of sensor readings give no location at all (each request inspected alone, without the
/// whole-capture filter that drops far places).
@Suite("Binary coordinate pairs without a profile")
struct BinaryCoordinatePairTests {
    static func f32(_ v: Double, little: Bool) -> [UInt8] {
        let bits = Float(v).bitPattern
        return little ? withUnsafeBytes(of: bits.littleEndian, Array.init) : withUnsafeBytes(of: bits.bigEndian, Array.init)
    }
    static func f64(_ v: Double, little: Bool) -> [UInt8] {
        little ? withUnsafeBytes(of: v.bitPattern.littleEndian, Array.init) : withUnsafeBytes(of: v.bitPattern.bigEndian, Array.init)
    }
    static func u32(_ v: UInt32) -> [UInt8] { withUnsafeBytes(of: v.bigEndian, Array.init) }
    static func writeUTF(_ s: String) -> [UInt8] {
        let b = Array(s.utf8)
        return [UInt8(b.count >> 8), UInt8(b.count & 0xFF)] + b
    }

    static func request(_ body: [UInt8], type: String = "application/octet-stream") -> HTTPRequest {
        TestSupport.request("POST", "https://telemetry.binary.example/v1/r", headers: [("Content-Type", type)], body: body)
    }

    static let inspector: Inspector = { try! Inspector(rules: TestSupport.rules()) }()

    static func locations(_ body: [UInt8], type: String = "application/octet-stream") -> [Detection] {
        inspector.detect(request(body, type: type)).filter { $0.category == .location }
    }

    // MARK: found

    @Test(arguments: [false, true])
    func float32PairAtARecordsHead(little: Bool) throws {
        // A 2-byte header, a position written with 4 decimals, a uint32 time in seconds, a checksum.
        let body = [0x02, 0x01] + Self.f32(-30.0334, little: little) + Self.f32(-51.2306, little: little) + Self.u32(1_764_662_400)
            + [0x9C, 0x11, 0xE4, 0x07, 0x5A, 0xC3]
        let found = Self.locations(body)
        #expect(found.count == 1)
        #expect(found.first?.encoding.contains(little ? "float32le" : "float32be") == true)
    }

    @Test func float32FixAfterAString() throws {
        // A length-prefixed id, then latitude, longitude (5 decimals: the float32's own precision)
        // and an accuracy of 10 m, then a millisecond time.
        let id = Array("B06C4B4D-9C10-4BF7-B1C9-C00417FCA52E".utf8)
        let body: [UInt8] = [0x00, 0x01, 0x00, 0x1A, UInt8(id.count), 0x00] + id + Self.f32(39.74264, little: true)
            + Self.f32(-104.99073, little: true) + Self.f32(10, little: true) + [0x00, 0x00, 0x01, 0xA1, 0xA0, 0xAF, 0x61, 0x6E]
        #expect(Self.locations(body).count == 1)
    }

    @Test func float64TrackOfPositions() throws {
        var body: [UInt8] = [0x00, 0x07]
        for k in 0..<4 {
            body += Self.f64(52.5163 + Double(k) * 0.0004, little: true) + Self.f64(13.3777 + Double(k) * 0.0003, little: true)
        }
        #expect(!Self.locations(body + Self.u32(7)).isEmpty)
    }

    // MARK: not found

    @Test func float32PairInTheMiddleOfARecordIsNoPosition() throws {
        // The same pair, 13 bytes into a record without strings: nothing says it is a position.
        let body: [UInt8] = Array(repeating: 0x00, count: 13) + Self.f32(-30.0334, little: false) + Self.f32(-51.2306, little: false)
            + Self.u32(1_764_662_400)
        #expect(Self.locations(body).isEmpty)
    }

    @Test func float32PairWithTooFewDecimalsOrNearZero() throws {
        for (a, b) in [(53.55, 9.99), (0.5123, 0.7461), (12.3456, 12.3457)] {
            let body = [0x02, 0x01] + Self.f32(a, little: true) + Self.f32(b, little: true) + Self.u32(1_764_662_400)
            #expect(Self.locations(body).isEmpty, "\(a), \(b)")
        }
    }

    @Test(arguments: [0x5E50_0001, 0x5E50_0002] as [UInt64])
    func randomBytesGiveNoPosition(seed: UInt64) throws {
        var rng = SplitMix64(seed: seed)
        var found: [String] = []
        for k in 0..<2000 {
            let body = (0..<(16 + rng.below(496))).map { _ in UInt8(truncatingIfNeeded: rng.next()) }
            found += Self.locations(body).map { "body \(k): \($0.evidence)" }
        }
        #expect(found.isEmpty, "\(found)")
    }

    /// Accelerometer, gyroscope and magnetometer samples as float32 (raw, or rounded to 1 to 4
    /// decimals), after a header of 0 to 8 bytes, in either byte order.
    @Test(arguments: [0x5E50_0011, 0x5E50_0012] as [UInt64])
    func sensorReadingsGiveNoPosition(seed: UInt64) throws {
        var rng = SplitMix64(seed: seed)
        func gauss(_ mean: Double, _ sd: Double) -> Double {
            let u = Double(rng.below(1_000_000) + 1) / 1_000_001, v = Double(rng.below(1_000_000)) / 1_000_000
            return mean + sd * (-2 * log(u)).squareRoot() * cos(2 * .pi * v)
        }
        var found: [String] = []
        for k in 0..<1000 {
            let little = rng.below(2) == 0
            let decimals = rng.below(6)   // 5: as measured
            var body = Array(([0x00, 0x01] + Self.u32(UInt32(truncatingIfNeeded: rng.next())) + [0x00, 0x09]).prefix(rng.below(9)))
            for _ in 0..<(1 + rng.below(40)) {
                for (mean, sd) in [(0.0, 3.0), (0.0, 3.0), (9.81, 1.0), (0, 0.5), (0, 0.5), (0, 0.5), (20, 30), (-10, 30), (40, 20)] {
                    var v = gauss(mean, sd)
                    if decimals < 5 { v = (v * pow(10, Double(decimals))).rounded() / pow(10, Double(decimals)) }
                    body += Self.f32(v, little: little)
                }
            }
            found += Self.locations(body).map { "body \(k): \($0.evidence)" }
            // Readings as float64 rounded to 4 decimals: a series of three or more (two alone are a pair).
            var doubles: [UInt8] = [0x00, 0x02]
            for _ in 0..<(3 + rng.below(30)) { doubles += Self.f64((gauss(20, 15) * 10_000).rounded() / 10_000, little: little) }
            found += Self.locations(doubles).map { "doubles \(k): \($0.evidence)" }
        }
        #expect(found.isEmpty, "\(found)")
    }

    @Test func compressedDataImagesAndTimestampsGiveNoPosition() throws {
        var rng = SplitMix64(seed: 0x5E50_0021)
        var found: [String] = []
        let text = Array((0..<400).map { "event \($0) at 12:0\($0 % 10) lat=? lng=? ok;" }.joined().utf8)
        for k in 0..<200 {
            // Raw deflate (a gzip stream without its header and trailer: no magic to undo it by).
            let gz = gzipCompress(Array(text.shuffled(using: &rng).prefix(200 + rng.below(4000))))
            found += Self.locations(Array(gz.dropFirst(10).dropLast(8))).map { "deflate \(k): \($0.evidence)" }
            // A PNG: signature, IHDR, an IDAT of compressed pixels.
            let pixels = (0..<(64 + rng.below(2000))).map { _ in UInt8(truncatingIfNeeded: rng.next() & 0x3F) }
            let png: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0, 0, 0, 13] + Array("IHDR".utf8)
                + Self.u32(64) + Self.u32(32) + [8, 6, 0, 0, 0] + Self.u32(0x1D2C_3B4A) + Array("IDAT".utf8) + gzipCompress(pixels)
            found += Self.locations(png, type: "image/png").map { "png \(k): \($0.evidence)" }
            // Timestamps: seconds and milliseconds, big and little endian.
            var times: [UInt8] = []
            for _ in 0..<(2 + rng.below(20)) {
                let ms = UInt64(1_764_662_400_000 + rng.below(86_400_000))
                times += rng.below(2) == 0 ? Self.u32(UInt32(ms / 1000)) : withUnsafeBytes(of: ms.littleEndian, Array.init)
            }
            found += Self.locations(times).map { "times \(k): \($0.evidence)" }
        }
        #expect(found.isEmpty, "\(found)")
    }
}

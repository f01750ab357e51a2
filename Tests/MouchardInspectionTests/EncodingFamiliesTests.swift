import Foundation
import MouchardCodec
import MouchardFindings
import MouchardFlow
import Testing
@testable import MouchardInspection

/// The families of encodings of issue 15 (coordinates in marked text, Exif, text protobuf, path
/// segments and binary numbers; identifiers glued to a prefix or in binary records; truncated and
/// per-part digests; raw `+` in e-mails), each on requests of its own, with and without the
/// held-out test profile (`TestSupport.profileJSON`: Berlin, 52.5163, 13.3777).
@Suite("Encoding families")
struct EncodingFamiliesTests {
    func profileDetections(_ r: MouchardFlow.HTTPRequest) throws -> [Detection] {
        Inspector(rules: try TestSupport.rules(), profile: try TestSupport.profile()).detect(r)
    }

    func patternDetections(_ r: MouchardFlow.HTTPRequest) throws -> [Detection] {
        Inspector(rules: try TestSupport.rules()).detect(r)
    }

    /// Category names found in both modes: (profile, pattern).
    func categories(_ r: MouchardFlow.HTTPRequest) throws -> (profile: Set<String>, pattern: Set<String>) {
        (Set(try profileDetections(r).map(\.category.rawValue)), Set(try patternDetections(r).map(\.category.rawValue)))
    }

    func json(_ text: String, path: String = "/v1/report") -> MouchardFlow.HTTPRequest {
        TestSupport.request("POST", "https://api.families.example\(path)", headers: [("Content-Type", "application/json")], text: text)
    }

    // MARK: coordinates

    @Test func markedCoordinatesRead() throws {
        let lettered = try #require(MarkedCoordinates.read(Array("52.51634N;13.37771E".utf8)[...]))
        #expect(lettered.map(\.degrees) == [52.51634, 13.37771])
        let southWest = try #require(MarkedCoordinates.read(Array("S 30.0331 W 51.2301".utf8)[...]))
        #expect(southWest.map(\.degrees) == [-30.0331, -51.2301])
        let dms = try #require(MarkedCoordinates.read(Array("52°30'58.8\"N 13°22'39.7\"E".utf8)[...]))
        #expect(abs(dms[0].degrees - 52.5163) < 0.0001 && abs(dms[1].degrees - 13.37769) < 0.0001)
        #expect(dms[0].decimals == 5)
        let primes = try #require(MarkedCoordinates.read(Array("30°1′59.2″S 51°13′48.4″W".utf8)[...]))
        #expect(primes[0].degrees < -30 && primes[1].degrees < -51)
        // A letter inside a word, a unit after one number, a number in scientific notation: nothing.
        #expect(MarkedCoordinates.read(Array("Version 2.5 Beta 3.4".utf8)[...]) == nil)
        #expect(MarkedCoordinates.read(Array("size 10.5W".utf8)[...]) == nil)
        #expect(MarkedCoordinates.read(Array("1.5E10 2.5E3".utf8)[...]) == nil)
    }

    @Test func markedCoordinatesInBothModes() throws {
        let hemispheres = TestSupport.request("GET", "https://api.families.example/v1/tiles?pos=52.51634N%3B13.37771E&z=16")
        #expect(try categories(hemispheres) == (["location"], ["location"]))
        let dms = json(#"{"kind":"pothole","where":"52\u00b030'58.8\"N 13\u00b022'39.7\"E"}"#)
        #expect(try categories(dms) == (["location"], ["location"]))
        // A far-away place written the same way is not the device's (profile mode).
        let far = TestSupport.request("GET", "https://api.families.example/v1/tiles?pos=48.85661N%3B2.35222E")
        #expect(try categories(far).profile.isEmpty)
    }

    @Test func pathSegmentsPair() throws {
        let r = TestSupport.request("GET", "https://api.families.example/v1/map/52.5165/13.3779/16.png")
        #expect(try categories(r) == (["location"], ["location"]))
        let d = try #require(try profileDetections(r).first)
        #expect(d.whereKey == "url")
        // Version numbers over two segments are no place.
        #expect(try categories(TestSupport.request("GET", "https://api.families.example/sdk/4.12/2.10/config")).pattern.isEmpty)
    }

    @Test func textProtoE7InBase64() throws {
        let text = "role: 1\nproducer: 12\nlatlng{\nlatitude_e7: 525163100\nlongitude_e7: 133777200\n}\nradius: 65000\n"
        let r = TestSupport.request("GET", "https://ads.families.example/mads/gma?uule=a+\(TestSupport.base64(text))&hl=de")
        let ds = try profileDetections(r).filter { $0.category == .location }
        let d = try #require(ds.first)
        #expect(d.whereKey == "query:uule")
        #expect(d.origin.decodings.contains("base64"))
        #expect(Set(try patternDetections(r).map(\.category)) == [.location])
        // Parsing: blocks, strings, and text that is no text format.
        let scalars = try #require(TextProto.parse(Array(#"a: "x y" b { c: -3 }"#.utf8)[...]))
        #expect(scalars.map(\.key) == ["a", "c"] && scalars[1].block == "b")
        #expect(TextProto.parse(Array("a: 1 }".utf8)[...]) == nil)
        #expect(TextProto.parse(Array("hello world".utf8)[...]) == nil)
    }

    /// A minimal JPEG with an Exif GPS IFD, in either TIFF byte order.
    static func exifJPEG(latitude: Double, longitude: Double, little: Bool) -> [UInt8] {
        func u16(_ v: Int) -> [UInt8] { little ? [UInt8(v & 0xFF), UInt8(v >> 8)] : [UInt8(v >> 8), UInt8(v & 0xFF)] }
        func u32(_ v: Int) -> [UInt8] { little ? u16(v & 0xFFFF) + u16(v >> 16) : u16(v >> 16) + u16(v & 0xFFFF) }
        func rationals(_ x: Double) -> [UInt8] {
            let a = abs(x), d = Int(a), m = Int((a - Double(d)) * 60), s = Int(((a - Double(d)) * 60 - Double(m)) * 60 * 100)
            return u32(d) + u32(1) + u32(m) + u32(1) + u32(s) + u32(100)
        }
        let ifd0At = 8, gpsAt = ifd0At + 2 + 12 + 4, gpsEntries = 4
        let dataAt = gpsAt + 2 + gpsEntries * 12 + 4
        var tiff: [UInt8] = (little ? Array("II".utf8) : Array("MM".utf8)) + u16(42) + u32(ifd0At)
        tiff += u16(1) + u16(0x8825) + u16(4) + u32(1) + u32(gpsAt) + u32(0)
        tiff += u16(gpsEntries)
        tiff += u16(1) + u16(2) + u32(2) + [latitude >= 0 ? 0x4E : 0x53, 0, 0, 0]
        tiff += u16(2) + u16(5) + u32(3) + u32(dataAt)
        tiff += u16(3) + u16(2) + u32(2) + [longitude >= 0 ? 0x45 : 0x57, 0, 0, 0]
        tiff += u16(4) + u16(5) + u32(3) + u32(dataAt + 24)
        tiff += u32(0) + rationals(latitude) + rationals(longitude)
        let app1 = Array("Exif".utf8) + [0, 0] + tiff
        return [0xFF, 0xD8, 0xFF, 0xE1, UInt8((app1.count + 2) >> 8), UInt8((app1.count + 2) & 0xFF)] + app1 + [0xFF, 0xD9]
    }

    @Test func exifGPSRead() throws {
        for little in [false, true] {
            let p = try ExifGPS.read(Self.exifJPEG(latitude: -30.0331, longitude: -51.2301, little: little)[...]).get()
            #expect(abs(p.latitude + 30.0331) < 0.0001 && abs(p.longitude + 51.2301) < 0.0001)
        }
        // Cut anywhere in its Exif block (all but the 2-byte end-of-image marker): an error, never a crash.
        let whole = Self.exifJPEG(latitude: 52.5163, longitude: 13.3777, little: false)
        for n in 0..<(whole.count - 2) {
            if case .success = ExifGPS.read(whole[0..<n]) { Issue.record("cut at \(n) read a position") }
        }
    }

    @Test func exifInAMultipartImage() throws {
        let boundary = "b0undary"
        let jpeg = Self.exifJPEG(latitude: 52.5164, longitude: 13.3776, little: false)
        let body = Array("--\(boundary)\r\nContent-Disposition: form-data; name=\"caption\"\r\n\r\nbridge\r\n--\(boundary)\r\nContent-Disposition: form-data; name=\"photo\"; filename=\"a.jpg\"\r\nContent-Type: image/jpeg\r\n\r\n".utf8)
            + jpeg + Array("\r\n--\(boundary)--\r\n".utf8)
        let r = TestSupport.request("POST", "https://api.families.example/v1/photos",
                                    headers: [("Content-Type", "multipart/form-data; boundary=\(boundary)")], body: body)
        let d = try #require(try profileDetections(r).first { $0.category == .location })
        #expect(d.whereKey == "multipart:photo")
        #expect(d.encoding.contains("exif-gps"))
        #expect(Set(try patternDetections(r).map(\.category)) == [.location])
    }

    @Test func binaryFloatPairs() throws {
        func record(_ numbers: [UInt8]) -> MouchardFlow.HTTPRequest {
            TestSupport.request("POST", "https://data.families.example/aap.do", headers: [("Content-Type", "application/octet-stream")],
                                body: [0x01, 0x00, 0x1A, 0x9C] + numbers + [0x7F, 0x00, 0x13])
        }
        let lat = 52.51652, lon = 13.37761
        let be64 = withUnsafeBytes(of: lat.bitPattern.bigEndian, Array.init) + withUnsafeBytes(of: lon.bitPattern.bigEndian, Array.init)
        let le32 = withUnsafeBytes(of: Float(lat).bitPattern.littleEndian, Array.init) + withUnsafeBytes(of: Float(lon).bitPattern.littleEndian, Array.init)
        for numbers in [be64, le32] {
            #expect(Set(try profileDetections(record(numbers)).map(\.category)) == [.location])
        }
        // Far from the profile: nothing.
        let far = withUnsafeBytes(of: 48.8566.bitPattern.bigEndian, Array.init) + withUnsafeBytes(of: 2.3522.bitPattern.bigEndian, Array.init)
        #expect(try profileDetections(record(far)).isEmpty)
        #expect(FieldWalker.degreeLike(53.55034)?.1 == 5)
        #expect(FieldWalker.degreeLike(Double(bitPattern: 0x4B1D_2C3E_5F60_7182)) == nil)
    }

    // MARK: identifiers

    @Test func prefixedAndBinaryIdentifiers() throws {
        let androidID = "5b1e9c07a3d24f18"
        // Java writeUTF: two-byte big-endian length, then the bytes.
        let utf = Array("AND\(androidID)".utf8)
        let body: [UInt8] = [0x00, 0x02, 0x00, UInt8(utf.count)] + utf + [0x00, 0x00, 0x01, 0x8C, 0xFF, 0x10]
        let r = TestSupport.request("POST", "https://data.families.example/aap.do", headers: [("Content-Type", "application/octet-stream")], body: body)
        let d = try #require(try profileDetections(r).first { $0.category == .deviceID })
        #expect(d.type == "android_id")
        #expect(PrefixedIdentifier.tail(Array("AND\(androidID)".utf8)[...]).map { String(decoding: $0, as: UTF8.self) } == androidID)
        #expect(PrefixedIdentifier.tail(Array("__g0f8e7d6c5b4a43928190a1b2c3d4e5f6".utf8)[...])?.count == 32)
        #expect(PrefixedIdentifier.tail(Array("ANDROIDVERSIONSTRING".utf8)[...]) == nil)
        // An advertising id without dashes glued to a prefix, in JSON (profile mode).
        let glued = json(#"[{"type":"meta","g":"__g0f8e7d6c5b4a43928190a1b2c3d4e5f6"}]"#)
        #expect(try profileDetections(glued).contains { $0.type == "advertising_id" })
    }

    // MARK: digests

    @Test func truncatedDigests() throws {
        let phoneDigest = DigestAlgorithm.sha256.hexDigest("4915123456789")
        for n in [16, 20, 32] {
            let r = json(#"{"prefixes":["\#(phoneDigest.prefix(n))"]}"#, path: "/rpc/friends.discover")
            let d = try #require(try profileDetections(r).first, "\(n) hex")
            #expect(d.category == .phoneNumber && d.encoding == "sha256-truncated", "\(n) hex")
        }
        // The whole digest is a digest, not a truncated one; 15 digits or a longer run are nothing.
        #expect(try profileDetections(json(#"{"h":"\#(phoneDigest)"}"#)).first?.encoding == "sha256")
        #expect(try profileDetections(json(#"{"h":"\#(phoneDigest.prefix(15))"}"#)).isEmpty)
        #expect(try profileDetections(json(#"{"h":"\#(phoneDigest.prefix(20))0"}"#)).isEmpty)
    }

    @Test func namePartsAndNationalPhoneDigests() throws {
        let fn = DigestAlgorithm.sha256.hexDigest("margot"), ln = DigestAlgorithm.sha256.hexDigest("quintin")
        let ds = try profileDetections(json(#"{"ud":{"fn":"\#(fn)","ln":"\#(ln)"}}"#))
        #expect(ds.contains { $0.category == .name && $0.whereKey == "body:$.ud.fn" })
        // The national significant number, without the trunk 0.
        let nsn = DigestAlgorithm.sha256.hexDigest("15123456789")
        #expect(try profileDetections(json(#"{"h":"\#(nsn)"}"#)).contains { $0.category == .phoneNumber })
    }

    @Test func rawPlusInAnEmailQuery() throws {
        let profile = try DeviceProfile.load(Array(#"{"name":"t","owner":{"email":["margot+apps@example.com"]}}"#.utf8), file: "t.json")
        let r = TestSupport.request("GET", "https://api.families.example/v1/lookup?email=margot+apps@example.com")
        let ds = Inspector(rules: try TestSupport.rules(), profile: profile).detect(r)
        #expect(ds.contains { $0.category == .email })
        let pattern = try patternDetections(r).first { $0.category == .email }
        #expect(pattern?.evidence == "margot+apps@example.com")
    }

    // MARK: structures inside values

    @Test func urlQueryInsideAString() throws {
        // A crash breadcrumb's URL in a JSON string, and the same URL inside a log line.
        let crumb = json(#"{"breadcrumbs":[{"data":{"url":"https://api.x.example/v2/lookup?phone=%2B4915123456789&v=1"}}]}"#)
        #expect(try categories(crumb).pattern == ["phone-number"])
        let line = json(#"{"log":"GET https://api.x.example/v2/lookup?msisdn=4915123456789 200"}"#)
        #expect(try categories(line).pattern == ["phone-number"])
        #expect(FieldWalker.queryOfURL(Array("see http://x.example/a?b=1#top".utf8)[...]).map { String(decoding: $0, as: UTF8.self) } == "b=1")
        #expect(FieldWalker.queryOfURL(Array("no url here: just text".utf8)[...]) == nil)
    }

    @Test func knownProtobufSchemaNamesFields() throws {
        // Firebase app measurement: Batch{Bundle{27: resettable_device_id}}, gzip, typed as a form.
        func varint(_ v: UInt64) -> [UInt8] {
            var v = v, out: [UInt8] = []
            while v >= 0x80 { out.append(UInt8(v & 0x7F) | 0x80); v >>= 7 }
            return out + [UInt8(v)]
        }
        func field(_ n: UInt64, _ text: String) -> [UInt8] { varint(n << 3 | 2) + varint(UInt64(text.utf8.count)) + Array(text.utf8) }
        // An upload time (a varint of high bytes: the message is binary, not text) and the ad id.
        let bundle = varint(4 << 3) + varint(1_793_610_720_123) + field(8, "android") + field(27, "0f8e7d6c-5b4a-4392-8190-a1b2c3d4e5f6")
        let batch: [UInt8] = [0x0A, UInt8(bundle.count)] + bundle
        let gz = gzipCompress(batch)
        let r = TestSupport.request("POST", "https://app-measurement.com/a",
                                    headers: [("Content-Type", "application/x-www-form-urlencoded"), ("Content-Encoding", "gzip")], body: gz)
        #expect(Set(try patternDetections(r).map(\.category)) == [.deviceID])
        // The same message to another host names nothing: a UUID under field 27 is no evidence.
        let other = TestSupport.request("POST", "https://collector.other.example/a",
                                        headers: [("Content-Type", "application/x-protobuf")], body: batch)
        #expect(try patternDetections(other).isEmpty)
    }

    @Test func binaryFloat64PairWithoutAProfile() throws {
        let lat = 52.51652, lon = 13.37761
        let body: [UInt8] = [0x00, 0x03] + withUnsafeBytes(of: lat.bitPattern.littleEndian, Array.init)
            + withUnsafeBytes(of: lon.bitPattern.littleEndian, Array.init) + [0x41, 0x48, 0x00, 0x00]
        let r = TestSupport.request("POST", "https://data.families.example/t", headers: [("Content-Type", "application/octet-stream")], body: body)
        #expect(Set(try patternDetections(r).map(\.category)) == [.location])
    }

    // MARK: precision

    @Test func threadAndLibraryNamesAreNoPeople() throws {
        let event = #"{"events":[{"threads":[{"name":"Signal Catcher","type":"android"},{"name":"Heap Task Daemon"}],"#
            + #""notifier":{"name":"Android Bugsnag Notifier"},"user":{"name":"Margot Quintin"}}]}"#
        let found = try patternDetections(json(event)).filter { $0.category == .name }
        #expect(found.map(\.whereKey) == ["body:$.events[0].user.name"])
    }
}

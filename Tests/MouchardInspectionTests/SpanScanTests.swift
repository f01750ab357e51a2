import Foundation
import Testing
import MouchardFlow
import MouchardTestSupport
@testable import MouchardInspection

/// The profile's span scan (`KnownValueMatcher.spans`) is one fused pass over the bytes; these
/// tests hold it to the plain scans it replaces (a reference kept here, one loop per kind of
/// span) on the dev corpus, on crafted and on random bytes, and on hostile input.
@Suite struct SpanScanTests {
    /// The held-out test profile and the two fixture phones', with 16-bit transitions as built for
    /// them, and the fixture iPhone's again with 32-bit ones (the path a profile past 2 MB of rows takes).
    static let matchers: [KnownValueMatcher] = {
        var out = [KnownValueMatcher(profile: try! TestSupport.profile())]
        for d in TestFiles.fixtureDevices {
            let p = TestSupport.fixtureProfile(d)
            out.append(KnownValueMatcher(profile: p))
            if d == "ios" { out.append(KnownValueMatcher(profile: p, narrowTransitions: false)) }
        }
        return out
    }()

    /// The dev corpus's two profiles (only read when the corpus is there), the iOS one in both widths.
    static func devMatchers() throws -> [KnownValueMatcher] {
        var out: [KnownValueMatcher] = []
        for d in ["ios", "android"] {
            let p = try DeviceProfile.load([UInt8](try Data(contentsOf: OutsideCorpus.dev.file("\(d)/device.json"))), file: "device.json")
            out.append(KnownValueMatcher(profile: p))
            if d == "ios" { out.append(KnownValueMatcher(profile: p, narrowTransitions: false)) }
        }
        return out
    }

    @Test func bothTransitionWidthsAreScanned() {
        // Every test here runs on each matcher: the wide one must really be wide.
        #expect(Self.matchers.count == 4)
        #expect(Self.matchers.filter { !$0.spanMatcher.isNarrow }.count == 1)
        #expect(Self.matchers.filter { $0.spanMatcher.isNarrow }.count == 3)
    }

    func same(_ kv: KnownValueMatcher, _ bytes: [UInt8], _ note: String = "", sourceLocation: SourceLocation = #_sourceLocation) {
        let fast = kv.spans(bytes[...]).sorted { ($0.lowerBound, $0.upperBound) < ($1.lowerBound, $1.upperBound) }
        let reference = kv.referenceSpans(bytes[...]).sorted { ($0.lowerBound, $0.upperBound) < ($1.lowerBound, $1.upperBound) }
        #expect(fast == reference, "\(note) \(String(decoding: bytes.prefix(200), as: UTF8.self))", sourceLocation: sourceLocation)
    }

    /// Every request part (target, header values, body) of the HAR files gives the reference spans.
    func checkPartsGiveTheReferenceSpans(_ hars: [URL], _ matchers: [KnownValueMatcher]) throws {
        for url in hars {
            let flows = try HARReader.read(Data(contentsOf: url))
            #expect(flows.count >= 30)
            for kv in matchers {
                for flow in flows {
                    guard let r = flow.request else { continue }
                    same(kv, Array(r.head.target.utf8))
                    for f in r.headers.fields { same(kv, f.valueBytes) }
                    same(kv, r.body)
                }
            }
        }
    }

    @Test func fixturePartsGiveTheReferenceSpans() throws {
        try checkPartsGiveTheReferenceSpans(TestFiles.fixtureDevices.map { TestFiles.fixture($0, "traffic.har") }, Self.matchers)
    }

    @Test(.requires(.dev)) func devCorpusPartsGiveTheReferenceSpans() throws {
        try checkPartsGiveTheReferenceSpans(["ios", "android"].map { OutsideCorpus.dev.file("\($0)/traffic.har") },
                                            Self.matchers + Self.devMatchers())
    }

    /// The crafted cases below, for the dev corpus's profiles (whose values many of them were written around).
    @Test(.requires(.dev)) func craftedBytesGiveTheReferenceSpansForTheDevProfiles() throws {
        for kv in try Self.devMatchers() {
            for c in Self.craftedCases + Self.profileCases { same(kv, Array(c.utf8)) }
        }
    }

    static let craftedCases = [
        "", "x", "\\", "%", "%4", "%41", "+", "(", ".", "1.", ".5", "x\u{9C}",
        "tel=+33 6 45 78 12 90&b=0645781290", "a(06 45 78 12 90)", "x(0612 (06 45 78 12 90)", "123+33645781290",
        "+33 (0)6 45 78 12 90", "(+33) 6-45-78-12-90", "06.45.78.12.90/", "0033645781290 1234567890123456789",
        "lat=47.0864&lon=2.3913&la=-47.08640&x=470864000", "47086400 2391300 23913000",
        "first=Lucas&last=Bernard&n=LUCAS-BERNARD&o='lucas'", "Chloé Petit chloe.petit@example.org",
        "62ab60504d9c12f31d488a4da2ece740e455feea", "9F556435-F8AA-4567-BC63-F47D66BC8C22",
        "6c756361732e6265726e617264406578616d706c652e6e6574", "bHVjYXMuYmVybmFyZEBleGFtcGxlLm5ldA==",
        "{\"a\":\"\\u00e9\",\"b\":[1,2,3],\"z\":\"x\u{1}\"}", "\u{1F}\u{8B}\u{8}", "x\u{DA}", "x^", "x\u{1}",
        "Bearer hpIcUULKQ1Yxtj0rbvc7X84yyEONTu0FVyaGAPw0", "Chatterly/5.12.0 (iPhone; iOS 17.1.2; Scale/3.00)",
        // Name parts at the edges of words (matched as patterns): `-` and `'` before a word,
        // bytes >= `A` glued on either side, other cases, bytes that are not ASCII.
        "x-lucas", "--lucas", "'lucas'", "-'Lucas-", "lucas_x", "_lucas", "lucasé", "élucas", "LuCaS", "1lucas2",
        "a'-lucas", "[lucas]", "lucas\\u00e9", "Léa Roux", "lea;roux", "ROUX", "Roux'", "hugo-lefevre", "ines\u{80}",
        // Base64 runs with and without upper case letters, padded or not, near the lengths that count.
        "abcdefghij==", "abcdefghijk=", "abcdefghi==", "abcdefghijkl&", "/abcdefghijklmnop/Qrstuvwxyz0123",
        "userId=1&sessionToken=ZGV2aWNl", "Abcdefghij==", "AbcdefghiJ=", "bHVjYXMuYmVybmFyZEBleGFtcGxlLm5ldA",
        // Padded runs without an upper case letter that the walk may cut (`+`): `=` ends them.
        "+e-5-b0e42axc8=", ".F=+e-5-b0e42axc8=&2c7", "x=ab+cdefghijkl==", "abcdefghi+j=", "abcdefgh+j=",
        // Stretches of digits only as long as their hex run: fixed-point latitudes (the dev
        // iOS profile's, 47.0864) with leading zeros up to 11 digits and beyond, timestamps;
        // hex of text with an odd number of digits.
        "t=4708640&", "t=0004708640&", "t=00004708640&", "t=000004708640&", "t=047086400,", "t=0470864000}",
        "ts=1791186240814&", "ts=1791186240&", "6c756361732e6265726e617264406578616d706c652e6e65740",
        // Decimal points, read only after an integer part near the latitude (the dev profiles'
        // 47.0864 and 43.6019): leading zeros, more digits, signs, dots around, no decimals.
        "lat=47.0864", "lat=047.0864", "147.0864", "1047.0864", "-47.09", "46.99,47.", "47.1.2", "v4.7.0864",
        "47.x", "x47.09", "447.09", "0047.08640", "43.6019", "-043.60", "42.9", "143.61", "43..6", ".43.6",
        // Hex of text after bytes that are glue (no event) and bytes that are not, at the
        // start, digits-only stretches after a letter (the stretch reads the hex lane).
        "4d6172676f74206c", "&4d6172676f74206c", "-4d6172676f74206c&", "g4d6172676f74206c&", "_4d6172676f74206c\"",
        ".4d6172676f74206c ", "=4d6172676f74206c", ":4d6172676f74206c/", " 4d6172676f74206c%41", "\"4d6172676f74206c\\",
        "v1791186240814&", "v4708640&", "v0004708640 ", "x-4708640&", "id=v1791186240&", "G4708640_",
    ]

    /// The same shapes made from each fixture profile's own values: e-mail in hex and base64, phone
    /// numbers as written and reformatted, the location with leading zeros, signs, fixed point and
    /// stray dots, name parts glued to other bytes.
    static let profileCases: [String] = TestFiles.fixtureDevices.flatMap { device -> [String] in
        let p = TestSupport.fixtureProfile(device)
        var out: [String] = []
        for email in p.ownerEmails {
            let hex = Array(email.utf8).map { String(format: "%02x", $0) }.joined()
            out += [email, hex, "&" + hex, "g" + hex + "&", hex + "0", TestSupport.base64(email), TestSupport.base64url(email)]
        }
        for phone in p.ownerPhones + p.contacts.flatMap(\.phones) {
            let digits = phone.filter(\.isNumber)
            out += ["tel=" + phone + "&", "(" + phone + ")", phone.replacingOccurrences(of: " ", with: "-"), "00" + digits, "x" + digits + "1"]
        }
        if let location = p.location {
            let lat = location.latitude, lon = location.longitude
            for f in ["%.4f", "%.6f", "0%.4f", "-%.2f", "1%.4f", "%.1f"] {
                out += [String(format: "lat=\(f)", lat), String(format: "lon=\(f)", lon), String(format: "\(f),\(f)", lat, lon)]
            }
            out += ["t=\(Int(lat * 100_000))&", "t=000\(Int(abs(lat) * 100_000))&", String(format: "v%.4f.1", lat), String(format: "%.4f.", lat)]
        }
        for part in (p.ownerName ?? "").split(separator: " ") + p.contacts.flatMap({ ($0.name ?? "").split(separator: " ") }) {
            let w = String(part)
            out += ["x-" + w.lowercased(), "'" + w + "'", w.uppercased(), "_" + w + "_", w + "é", "1" + w + "2"]
        }
        for (_, value) in p.identifiers { out += [value, value.lowercased(), value.uppercased() + "=", "x" + value] }
        return out
    }

    @Test func craftedBytesGiveTheReferenceSpans() throws {
        for kv in Self.matchers {
            for c in Self.craftedCases + Self.profileCases { same(kv, Array(c.utf8)) }
            same(kv, [0x31, 0x78, 0x9C, 0x1F, 0x8B])
        }
        #expect(Self.profileCases.count > 150)
    }

    @Test func randomBytesGiveTheReferenceSpans() {
        var rng = SplitMix(seed: 0x5eed)
        // Bytes drawn from an alphabet that makes runs, separators and specials meet often.
        let alphabet = Array("0123456789abcdefxyzABCDEFXYZ+-/_.( )%\\'é@=&:,\"".utf8) + [0x1F, 0x8B, 0x9C, 0xFF, 0x01, 0x5E, 0xDA]
        for (m, kv) in Self.matchers.enumerated() {
            for _ in 0..<400 {
                let n = Int(rng.next() % 120)
                let bytes = (0..<n).map { _ in alphabet[Int(rng.next() % UInt64(alphabet.count))] }
                same(kv, bytes, "matcher \(m) bytes \(bytes)")
            }
        }
    }

    @Test func hostileInputIsScannedWhole() {
        let kv = Self.matchers[0]
        #expect(kv.spans([][...]).isEmpty)
        same(kv, [UInt8](repeating: 0xFF, count: 4096))
        same(kv, [UInt8](repeating: 0x00, count: 4096))
        let digits = [UInt8](repeating: 0x37, count: 1 << 20)
        #expect(kv.spans(digits[...]) == kv.referenceSpans(digits[...]))
        let parens = Array(String(repeating: "( ", count: 1 << 16).utf8)
        #expect(kv.spans(parens[...]).isEmpty)
        same(kv, Array(String(repeating: "a", count: 70_000).utf8))
        same(kv, Array(String(repeating: "Ab1", count: 30_000).utf8))
        // Base64 runs longer than a chunk of the scan, without an upper case letter, ended by
        // `=` or by anything else, or with one upper case letter far from their start.
        same(kv, Array((String(repeating: "a", count: 20_000) + "==").utf8))
        same(kv, Array((String(repeating: "a", count: 20_000) + "&" + String(repeating: "b", count: 11) + "=").utf8))
        same(kv, Array((String(repeating: "a1", count: 9_000) + "Q" + String(repeating: "b", count: 9_000) + "&").utf8))
        // Hex runs longer than a chunk (or two) that a glue byte ends (no event), or that start
        // after one, then hex of text with a name part: the later run keeps its own length.
        let margot = "4d6172676f74206c" // "Margot l"
        for (long, glue) in [(0x3000, "g"), (0x5000, "-"), (0x2001, "."), (0x4100, "&")] {
            same(kv, Array((String(repeating: "a", count: long) + glue + "&x=" + margot + "&").utf8))
            same(kv, Array(("x_" + String(repeating: "0", count: long) + glue + "&x=" + margot + "&" + margot).utf8))
            same(kv, Array((margot + "&" + String(repeating: "F", count: long) + glue + String(repeating: "e", count: long) + "&" + margot).utf8))
        }
    }

    /// The base64 lane of `spanLaneTable` calls for a check (`laneEvent`) at every run that may be
    /// a candidate of the walk's (`base64Candidate`), never at a run without an upper case letter
    /// that `=` does not end (such a run is never one), and keeps the run's length.
    @Test func base64LaneFiresForEveryCandidateAndNotForLowerCaseRuns() {
        let kv = Self.matchers[0]
        var rng = SplitMix(seed: 0xB64)
        let alphabet = Array("abcdefxyz0189AFQZ_-/+=&.\"".utf8)
        let table = spanLaneTable
        let bias = kv.spanLaneBias
        var fired = 0, skipped = 0
        for round in 0..<4000 {
            let n = Int(rng.next() % 60)
            // Mostly lower case letters in some rounds: long runs without an upper case letter.
            let bytes: [UInt8] = (0..<n).map { _ in
                round % 2 == 0 && rng.next() % 8 != 0 ? UInt8(0x61 + rng.next() % 26) : alphabet[Int(rng.next() % UInt64(alphabet.count))]
            }
            bytes.withUnsafeBufferPointer { p in
                var runs: UInt64 = 0
                for i in 0...n {
                    let b = i < n ? Int(p[i]) : Int(UInt8(ascii: "&"))
                    let keep = table[SpanLanes.keepEntry + b]
                    let ended = runs & ~keep
                    if !ByteCodecs.isBase64Byte(UInt8(b)) {
                        // Lane 0 ends here: its run is `p[i - length..<i]`.
                        let length = Int(ended & SpanLanes.base64Length)
                        let s = i - length
                        #expect(s >= 0 && (s == 0 || !ByteCodecs.isBase64Byte(p[s - 1])) && (s..<i).allSatisfy { ByteCodecs.isBase64Byte(p[$0]) })
                        // What `scanSpans` and `laneEvent` do: an event at the byte (at the end, one for
                        // the lanes at their threshold), and in it the base64 lane's test.
                        let event = i == n ? (runs &+ bias) & SpanLanes.high != 0 : (runs &+ bias) & table[SpanLanes.stopEntry + b] != 0
                        let fires = event && ((ended &+ bias) & 0x8000 != 0 || (i < n && b == 0x3D && UInt64(length) >= SpanLanes.base64Threshold))
                        let upper = (s..<i).contains { p[$0] >= 0x41 && p[$0] <= 0x5A }
                        if length > 0, kv.base64Candidate(p, s, i) { #expect(fires, "\(String(decoding: bytes, as: UTF8.self)) at \(i)") }
                        if !upper && b != 0x3D { #expect(!fires) }
                        if fires { fired += 1 } else if length >= 10 { skipped += 1 }
                    }
                    runs = (runs & keep) &+ table[SpanLanes.addEntry + b]
                }
            }
        }
        #expect(fired > 100 && skipped > 100)
    }

    @Test func phoneRunsAreThoseOfTheReferenceReading() {
        var rng = SplitMix(seed: 42)
        var found = 0
        let alphabet = Array("0123456789+( )-./a".utf8)
        for kv in Self.matchers where !kv.phoneDigits.isEmpty {
            for _ in 0..<400 {
                let n = Int(rng.next() % 60)
                let bytes = (0..<n).map { _ in alphabet[Int(rng.next() % UInt64(alphabet.count))] }
                var fast: [String] = [], reference: [String] = []
                bytes.withUnsafeBufferPointer { buf in
                    kv.phoneRuns(buf) { s, l, t in fast.append("\(s) \(l) \(t.map(\.value))") }
                    kv.referencePhoneRuns(buf) { s, l, t in reference.append("\(s) \(l) \(t.map(\.value))") }
                }
                #expect(fast == reference, "\(String(decoding: bytes, as: UTF8.self))")
            }
            // Numbers as written and with a trunk 0 after the country code.
            let written = Array("tel +33 6 39 98 27 41, 06 39 98 73 08; +33 (0)6 39 98 14 67; +44 (0)7700 900461, 020 7946 0372".utf8)
            written.withUnsafeBufferPointer { kv.phoneRuns($0) { _, _, _ in found += 1 } }
        }
        #expect(found >= 3)
    }

    @Test func credentialKeysAndTextAreFoundAsByThePlainChecks() {
        var rng = SplitMix(seed: 7)
        let kv = Self.matchers[0]
        let alphabet = Array("pPaAsSwWdDoOrRcCeEiInNtT=&x\u{9}\n\r\u{7F}\u{1}é ".utf8)
        for round in 0..<3000 {
            let keys = round % 3 == 0 ? ["password", "passwd", "pwd", "pass", "passcode", "passphrase", "pin", "secret"]
                : round % 3 == 1 ? ["x", "se"] : ["é", "Pw", "ss"]
            // Long enough for the 8-byte skips, and sometimes text where a needle's first byte is rare.
            let n = Int(rng.next() % 80)
            let sparse = round % 2 == 0
            let bytes = (0..<n).map { _ in
                sparse && rng.next() % 4 != 0 ? UInt8(0x30 + rng.next() % 10) : alphabet[Int(rng.next() % UInt64(alphabet.count))]
            }
            let plain = keys.contains { key in
                let k = Array(key.utf8)
                return bytes.count >= k.count && (0...(bytes.count - k.count)).contains { i in (0..<k.count).allSatisfy { foldASCII(bytes[i + $0]) == k[$0] } }
            }
            #expect(containsAnyFolded(bytes[...], keys) == plain)
            #expect(kv.looksLikeText(bytes[...]) == ByteCodecs.looksLikeText(bytes[...]), "\(bytes)")
        }
        #expect(containsAnyFolded([0x78][...], ["", "a"]))
        #expect(!containsAnyFolded([][...], ["a"]))
    }
}

/// A small deterministic random generator (tests only).
struct SplitMix {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

/// The quick rejections inside the span scan's checks (a name part's first and last letters, a
/// digit on each side of a dot) answer as the plain lookups do.
@Suite struct SpanCheckShortcutTests {
    @Test func nameWordsAreThePartsAsLookedUp() {
        var rng = SplitMix(seed: 11)
        let alphabet = Array("maëlledufresneMAËLLEDUFRESNEoliverpembertongraceo'neillpriyashahzqxé-'".utf8)
        for kv in SpanScanTests.matchers where !kv.namePartLengths.isEmpty {
            var words: [[UInt8]] = kv.nameParts.keys.map { Array($0.utf8) } + kv.nameParts.keys.map { Array($0.uppercased().utf8) }
            // Capitalized parts, and words that start, end and are as long as a part but differ inside
            // (`namePartShapes` lets them through to the hash, which says no).
            words += kv.nameParts.keys.map { Array($0.prefix(1).uppercased().utf8) + Array($0.dropFirst().utf8) }
            words += kv.nameParts.keys.compactMap { key -> [UInt8]? in
                var w = Array(key.utf8)
                guard w.count >= 3, w[1] < 0x80 else { return nil }
                w[1] = w[1] == 0x7A ? 0x79 : 0x7A
                return w
            }
            for _ in 0..<3000 { words.append((0..<Int(1 + rng.next() % 9)).map { _ in alphabet[Int(rng.next() % UInt64(alphabet.count))] }) }
            for w in words where !w.isEmpty {
                let plain = kv.hasNamePartLength(w.count)
                    && (w.contains { $0 >= 0x80 } || kv.nameParts[String(decoding: w.map(foldASCII), as: UTF8.self)] != nil)
                w.withUnsafeBufferPointer { #expect(kv.namePartWord($0, 0, w.count) == plain, "\(String(decoding: w, as: UTF8.self))") }
            }
        }
    }

    /// Eight bytes at a time, digits are told as byte by byte (edges of the digit range, high bytes).
    @Test func eightDigitsAtATimeAreDigits() {
        var rng = SplitMix(seed: 0xd1)
        let edges: [UInt8] = [0x2F, 0x30, 0x35, 0x39, 0x3A, 0x00, 0x7F, 0x80, 0xB0, 0xB9, 0xFF, 0x10, 0x20, 0x60]
        for _ in 0..<20_000 {
            let bytes = (0..<8).map { _ in rng.next() % 3 == 0 ? edges[Int(rng.next() % UInt64(edges.count))] : UInt8(0x30 + rng.next() % 10) }
            let word = bytes.withUnsafeBytes { $0.loadUnaligned(as: UInt64.self) }
            #expect(KnownValueMatcher.allDigits(word) == bytes.allSatisfy { $0 >= 0x30 && $0 <= 0x39 }, "\(bytes)")
        }
    }

    /// The end of a digit run, read 8 bytes at a time, is where a byte by byte reading stops,
    /// whatever follows the run and wherever the bytes end.
    @Test func digitRunsEndWhereByteByByteReadingStops() {
        var rng = SplitMix(seed: 0xd2)
        let edges: [UInt8] = [0x2F, 0x3A, 0x00, 0x7F, 0x80, 0xB9, 0xBA, 0xFF, 0x20, 0x2E]
        for _ in 0..<5000 {
            let n = Int(rng.next() % 40) + 1
            let bytes = (0..<n).map { _ in rng.next() % 6 == 0 ? edges[Int(rng.next() % UInt64(edges.count))] : UInt8(0x30 + rng.next() % 10) }
            let k = Int(rng.next() % UInt64(n)), e = k + Int(rng.next() % UInt64(n - k + 1))
            var plain = k
            while plain < e, bytes[plain] >= 0x30, bytes[plain] <= 0x39 { plain += 1 }
            bytes.withUnsafeBufferPointer { p in
                #expect(KnownValueMatcher.digitRunEnd(p.baseAddress!, from: k, to: e, count: n) == plain, "\(bytes) \(k) \(e)")
            }
        }
    }

    @Test func numbersAroundADotAreReadAsParsed() {
        var rng = SplitMix(seed: 12)
        let alphabet = Array("0123456789..--x ".utf8)
        for kv in SpanScanTests.matchers {
            guard let loc = kv.location else { continue }
            let near = Array(String(format: "%.4f %.3f -%.2f %.1f", loc.latitude, loc.longitude, loc.latitude, loc.longitude).utf8)
            var cases = [near]
            // Integer parts with leading zeros, signs and too many digits around a near value.
            for prefix in ["0", "00", "-0", "1", "x-", "--", "9"] {
                cases.append(Array(String(format: "\(prefix)%.4f", abs(loc.latitude)).utf8))
            }
            for _ in 0..<3000 { cases.append((0..<Int(rng.next() % 14)).map { _ in alphabet[Int(rng.next() % UInt64(alphabet.count))] }) }
            for bytes in cases {
                for dot in bytes.indices where bytes[dot] == 0x2E {
                    var s = dot, e = dot + 1
                    while s > 0, bytes[s - 1] >= 0x30, bytes[s - 1] <= 0x39 { s -= 1 }
                    if s > 0, bytes[s - 1] == 0x2D { s -= 1 }
                    while e < bytes.count, bytes[e] >= 0x30, bytes[e] <= 0x39 { e += 1 }
                    var plain: Range<Int>?
                    if let v = parseDecimal(bytes[s..<e]), v.decimals >= kv.minimumDecimals,
                       abs(v.value - loc.latitude) < 0.05 {
                        plain = s..<e
                    }
                    bytes.withUnsafeBufferPointer { #expect(kv.nearCoordinate($0, dot: dot, loc) == plain, "\(String(decoding: bytes, as: UTF8.self))") }
                }
            }
        }
    }

    /// `base64Suspect` of a run, upper case looked for 8 bytes at a time first, is the byte-by-byte
    /// reading, on random runs of the alphabet (some with few classes of byte, so that either
    /// answer comes up).
    @Test func base64RunsReadEightAtATimeAsByByte() {
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/-_".utf8)
        let kinds = [alphabet, Array("abcdef0123456789".utf8), Array("ABCDEF0123456789-".utf8), Array("abcxyz/0189".utf8),
                     Array("ABCXYZ+-_".utf8), Array("Zz0-".utf8), Array("Ga_".utf8), Array("a9+/".utf8)]
        var rng = SplitMix(seed: 0xb64)
        func pick(_ bytes: [UInt8]) -> UInt8 { bytes[Int(rng.next() % UInt64(bytes.count))] }
        let kv = SpanScanTests.matchers[0]
        for _ in 0..<20_000 {
            let kind = kinds[Int(rng.next() % UInt64(kinds.count))], mixed = kinds[Int(rng.next() % UInt64(kinds.count))]
            let run = (0..<(1 + Int(rng.next() % 40))).map { _ in rng.next() % 8 == 0 ? pick(mixed) : pick(kind) }
            let s = Int(rng.next() % UInt64(min(4, run.count)))
            run.withUnsafeBufferPointer { p in
                #expect(kv.base64Suspect(p, s, run.count) == kv.base64Suspect(run[s...]), "\(String(decoding: run[s...], as: UTF8.self))")
            }
        }
    }
}

/// Decimal points are read by the span scan's automaton (`coordinateDotPatterns`): only after an
/// integer part that a number near the latitude can have. Numbers within and just beyond 0.05°
/// of latitudes whose integer part the nearby values change (just above and below an integer,
/// near 0, the poles, negative), written with leading zeros, signs and more digits, give the
/// reference scan's spans, which reads every dot.
@Suite struct CoordinateDotTests {
    @Test(arguments: [0, 0.04, -0.96, 1.04, 9.97, 10.02, 46.96, 47.0864, 47.04, -47.0864, 89.99, -90])
    func numbersNearTheLatitudeGiveTheReferenceSpans(latitude: Double) {
        let profile = DeviceProfile(location: Coordinate(latitude: latitude, longitude: 2.3913))
        let kv = KnownValueMatcher(profile: profile)
        var cases: [String] = []
        for step in -12...12 {
            let v = latitude + Double(step) * 0.005
            for format in ["%.2f", "%.3f", "%.4f", "%.6f", "%09.5f", "%+.4f"] {
                let text = String(format: format, v)
                cases.append(text)
                cases.append("lat=\(text)&lon=2.39")
                cases.append("1\(text)")
                cases.append("x.\(text).")
                if text.hasPrefix("-") { cases.append(String(text.dropFirst())) } else { cases.append("-\(text)") }
            }
        }
        for text in cases { SpanScanTests().same(kv, Array(text.utf8)) }
    }

    /// A dot after an integer part that `nearCoordinate` lets through ends a pattern, and a dot after
    /// one that it rejects none: the patterns are exactly its first test.
    @Test(arguments: [0, 0.04, -0.96, 1.04, 1.1, 9.97, 10.02, 46.96, 47.0864, 89.99, -90])
    func theDotPatternsAreTheIntegerPartsLetThrough(latitude: Double) {
        let patterns = Set(KnownValueMatcher.coordinateDotPatterns(latitude: latitude).map { String(decoding: $0, as: UTF8.self) })
        let through = (0...999).filter { Double($0) > abs(latitude) - 1.1 && Double($0) < abs(latitude) + 0.1 }.map { "\($0)." }
        #expect(patterns == Set(through))
        #expect(!patterns.isEmpty && patterns.count <= 2)
        #expect(KnownValueMatcher.coordinateDotPatterns(latitude: .nan).isEmpty)
        #expect(KnownValueMatcher.coordinateDotPatterns(latitude: nil).isEmpty)
    }
}

/// The checks of decoded runs only ask whether the decoded bytes have a span: their scan
/// (`SpanContext.firstSpanOnly`) stops at the first one, and finds one exactly when the whole scan does.
@Suite struct FirstSpanScanTests {
    @Test func aScanForTheFirstSpanFindsOneExactlyWhenTheWholeScanDoes() throws {
        let kv = SpanScanTests.matchers[0]
        var rng = SplitMix(seed: 0xF1F5)
        let alphabet = Array("0123456789abcdefxyzABCDEFXYZ+-/_.( )%\\'é@=&:,\"".utf8)
        var cases: [[UInt8]] = (0..<600).map { _ in
            (0..<Int(rng.next() % 120)).map { _ in alphabet[Int(rng.next() % UInt64(alphabet.count))] }
        }
        // Spans late in long text, and several.
        cases.append(Array((String(repeating: "nothing here, ", count: 40) + "lucas.bernard@example.net").utf8))
        cases.append(Array("a\\u00e9 %41 lucas 47.0864 \u{1F}\u{8B}".utf8))
        var withSpans = 0
        for bytes in cases {
            var whole: [Range<Int>] = [], first: [Range<Int>] = []
            bytes.withUnsafeBufferPointer {
                kv.scanSpans($0, base: 0, context: SpanContext(splitsAtSlash: false, depth: 1), into: &whole)
                kv.scanSpans($0, base: 0, context: SpanContext(splitsAtSlash: false, depth: 1, firstSpanOnly: true), into: &first)
            }
            #expect(first.isEmpty == whole.isEmpty, "\(String(decoding: bytes, as: UTF8.self))")
            #expect(first.allSatisfy { whole.contains($0) })
            if !whole.isEmpty { withSpans += 1 }
        }
        #expect(withSpans > 50)
    }
}

/// The stretch lane's threshold with a location (`SpanLanes.shortestFixedPointCoordinate`): no
/// run of fewer digits is a fixed-point coordinate near the latitude, and runs of 6 digits go
/// unread where the latitude needs 7.
@Suite struct FixedPointCoordinateLengthTests {
    @Test(arguments: [0, 0.04, 0.06, 1.5, 9.9, 10.0, 10.04, 10.05, 10.06, 43.6019, 47.0864, -47.0864, 89.99, -90])
    func noShorterRunIsNearTheLatitude(latitude: Double) {
        let kv = SpanScanTests.matchers[0]
        let loc = Coordinate(latitude: latitude, longitude: 0)
        let shortest = SpanLanes.shortestFixedPointCoordinate(latitude: latitude)
        #expect(shortest >= 6 && shortest <= 11)
        // The largest values of 6 digits or more with fewer digits than that (the near ones form
        // one interval per scale; shorter runs are not read).
        var limit = 1
        for _ in 1..<shortest { limit *= 10 }
        let nearShorter = (max(100_000, limit - 20_000)..<max(100_000, limit)).first { kv.nearScaled(Double($0), loc) }
        #expect(nearShorter == nil)
        // The lane reads runs of that length whose value is near.
        let near = (Int((abs(latitude) * 1e5).rounded()))
        if abs(latitude) >= 0.1 { #expect(kv.nearScaled(Double(near), loc) && String(near).count >= shortest) }
    }

    @Test func latitudesFromTenOnNeedSevenDigits() {
        #expect(SpanLanes.shortestFixedPointCoordinate(latitude: 47.0864) == 7)
        #expect(SpanLanes.shortestFixedPointCoordinate(latitude: -43.6019) == 7)
        #expect(SpanLanes.shortestFixedPointCoordinate(latitude: 9.9) == 6)
        #expect(SpanLanes.shortestFixedPointCoordinate(latitude: .nan) == 6)
    }
}

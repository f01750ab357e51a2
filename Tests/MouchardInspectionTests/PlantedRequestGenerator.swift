import Foundation
import MouchardCodec
import MouchardFlow
import MouchardTestSupport
import MouchardWire
@testable import MouchardInspection

/// Seeded random requests that carry values of a device profile (identifiers, e-mails, phone
/// numbers in several formats, name parts, coordinates, contacts) in random places (query, path
/// segment, header, cookie, form, nested JSON, multipart, NDJSON, protobuf, a binary tail after
/// text, float pairs in a binary record) under random encoding chains (percent, base64 in every flavour, hex, JSON escapes,
/// gzip in base64, JSON in a string, digests), among random filler; cleartext requests also carry
/// passwords under keys hidden in header names, cookie names and percent-encoded keys. Used to
/// check that the span scan never prunes what the full walk finds.
struct PlantedRequestGenerator {
    var rng: SplitMix64
    /// Texts that stand for profile values as an app may write them.
    let values: [String]
    /// Each variant text of the profile's matcher (hex, base64 alignments, digests...).
    let variantTexts: [String]
    let coordinate: Coordinate?

    init(seed: UInt64, profile: DeviceProfile, matcher: KnownValueMatcher) {
        rng = SplitMix64(seed: seed)
        variantTexts = matcher.variantTexts
        coordinate = profile.location
        var v: [String] = []
        for (_, id) in profile.identifiers {
            v += [id, id.lowercased(), id.uppercased(), id.filter { $0 != "-" && $0 != ":" }]
        }
        var emails = profile.ownerEmails
        var phones = profile.ownerPhones
        var names = profile.ownerName.map { [$0] } ?? []
        for c in profile.contacts {
            emails += c.emails
            phones += c.phones
            if let n = c.name { names.append(n) }
        }
        for e in emails {
            let t = e.trimmingCharacters(in: .whitespaces)
            v += [t, t.lowercased(), t.uppercased()]
            for alg in DigestAlgorithm.allCases { v += [alg.hexDigest(t.lowercased()), alg.hexDigest(t).uppercased()] }
        }
        let region = profile.effectiveRegion
        for p in phones {
            let digits = PhoneNumbers.digits(p)
            v += [p, digits]
            if let e164 = PhoneNumbers.e164Digits(p, region: region) {
                v += ["+" + e164, "00" + e164, e164] + PhoneNumbers.digitForms(e164: e164)
                let national = String(e164.dropFirst(2))
                v += ["0" + national, "(0\(national.prefix(3))) \(national.dropFirst(3))", "+\(e164.prefix(2))-\(national.prefix(3))-\(national.dropFirst(3))",
                      "+\(e164.prefix(2)) (0)\(national.prefix(3)) \(national.dropFirst(3).prefix(4)) \(national.dropFirst(7))"]
                for alg in DigestAlgorithm.allCases { v.append(alg.hexDigest("+" + e164)) }
            }
        }
        for n in names {
            let words = n.split(separator: " ").map(String.init)
            v += [n, n.lowercased(), n.uppercased(), words.joined(separator: "_"), words.joined(separator: "+")] + words
            v += words.map { $0.lowercased() }
            for alg in DigestAlgorithm.allCases { v.append(alg.hexDigest(n.lowercased())) }
        }
        if let c = profile.location {
            let lat = String(format: "%.4f", c.latitude), lon = String(format: "%.4f", c.longitude)
            v += [lat, lon, "\(lat),\(lon)", "\(lon),\(lat)", String(format: "%.6f", c.latitude + 0.00001), String(format: "%.2f", c.longitude),
                  "geo:\(lat),\(lon)", "\(lat);\(lon)"]
        }
        values = v
    }

    mutating func below(_ n: Int) -> Int { n <= 1 ? 0 : rng.below(n) }
    mutating func chance(_ percent: Int) -> Bool { below(100) < percent }
    mutating func pick<T>(_ xs: [T]) -> T { xs[below(xs.count)] }

    static let neutralKeys = ["a", "id", "uid", "v", "data", "payload", "d", "x_tok", "user", "info", "ctx", "p", "e", "blob", "q", "token",
                              "device", "ifa", "email", "mail", "phone", "tel", "msisdn", "name", "first_name", "last_name", "lat", "lon",
                              "lng", "latitude", "longitude", "loc", "geo", "contact", "contacts", "hash", "em", "ph", "fn", "ln"]
    static let passwordKeys = ["password", "passwd", "pwd", "pass", "user_password", "Password", "PASSWD", "pass%77ord", "pa%73%73word",
                               "user%5Bpassword%5D", "user[password]", "X-Password", "loginPassword", "password_confirmation", "pin_password"]
    static let fillerWords = ["hello", "world", "1.2.3", "true", "null", "12", "0", "en-US", "dark", "abc-123", "Zm9vYmFy", "deadbeef",
                              "2026-11-30T07:00:00Z", "iPhone14,2", "ok", "%20", "a+b", "x=y", "{}", "[1,2]", "QUJD", "AAAA", "=="]

    /// A random profile value (or matcher variant), before encoding.
    mutating func value() -> String {
        if chance(25), !variantTexts.isEmpty { return pick(variantTexts) }
        return pick(values)
    }

    // MARK: encodings

    static func percentAll(_ s: String) -> String {
        Array(s.utf8).map { String(format: "%%%02X", $0) }.joined()
    }
    static func percentSome(_ s: String) -> String {
        s.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? s
    }
    static func base64(_ bytes: [UInt8], url: Bool, padded: Bool) -> String {
        var s = Data(bytes).base64EncodedString()
        if url { s = s.replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_") }
        if !padded { s = s.replacingOccurrences(of: "=", with: "") }
        return s
    }
    /// `s` as the inside of a JSON string, some characters as `\u` escapes when `unicode`.
    static func jsonEscaped(_ s: String, unicode: Bool, slash: Bool) -> String {
        var out = ""
        for u in s.unicodeScalars {
            switch u {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "/" where slash: out += "\\/"
            case "\n": out += "\\n"
            default:
                if u.value < 0x20 || (unicode && (u == "@" || u == "." || u == "+" || u == "-" || u == ":" || u == " ")) {
                    out += String(format: "\\u%04x", u.value)
                } else if u.value >= 0x80 && unicode {
                    if u.value > 0xFFFF {
                        let v = u.value - 0x10000
                        out += String(format: "\\u%04x\\u%04x", 0xD800 + (v >> 10), 0xDC00 + (v & 0x3FF))
                    } else {
                        out += String(format: "\\u%04x", u.value)
                    }
                } else {
                    out.unicodeScalars.append(u)
                }
            }
        }
        return out
    }

    /// One encoding step applied to `s`; `name` says which (for the failure message).
    mutating func encodeOnce(_ s: String) -> (String, String) {
        let bytes = Array(s.utf8)
        switch below(16) {
        case 0: return (Self.percentSome(s), "percent")
        case 1: return (Self.percentAll(s), "percent-all")
        case 2: return (Self.percentSome(Self.percentSome(s)), "double-percent")
        case 3: return (Self.base64(bytes, url: false, padded: true), "base64")
        case 4: return (Self.base64(bytes, url: false, padded: false), "base64-nopad")
        case 5: return (Self.base64(bytes, url: true, padded: chance(50)), "base64url")
        case 6: return (hexString(bytes), "hex")
        case 7: return (hexString(bytes).uppercased(), "HEX")
        case 8: return (Self.base64(gzipCompress(bytes), url: chance(30), padded: chance(70)), "gzip-base64")
        case 9: return ("{\"\(pick(Self.neutralKeys))\":\"\(Self.jsonEscaped(s, unicode: chance(40), slash: chance(50)))\",\"n\":\(below(99))}", "json-in-string")
        case 10: return ("\(pick(Self.neutralKeys))=\(Self.percentSome(s))&z=\(below(9))", "form-in-string")
        case 11: return ("[\"\(Self.jsonEscaped(s, unicode: chance(50), slash: true))\"]", "json-array")
        case 12:
            // A short value, base64 padded (fewer than 12 alphabet characters).
            let short = String(s.prefix(1 + below(8)))
            return (Self.base64(Array(short.utf8), url: false, padded: true), "short-base64")
        case 13:
            if chance(50) { return (pick(DigestAlgorithm.allCases).hexDigest(s.lowercased()), "digest") }
            // A control byte or two beside the text (still text to the walk).
            return (pick(["\u{01}", "\u{02}\u{03}", "\t", "\u{7F}"]) + s, "control")
        case 14: return ("\(pick(Self.fillerWords)) \(s) \(pick(Self.fillerWords))", "in-text")
        default: return (s, "plain")
        }
    }

    /// A value under 0 to 3 encoding steps.
    mutating func encodedValue() -> (String, [String]) {
        var s = value()
        var steps: [String] = []
        for _ in 0..<below(4) {
            let (t, n) = encodeOnce(s)
            s = t
            steps.append(n)
        }
        return (s, steps)
    }

    // MARK: places

    /// Bytes that would break a URL, header or cookie, percent-encoded (the rest as is).
    static func urlSafe(_ s: String, extraUnsafe: Set<UInt8> = []) -> String {
        var out: [UInt8] = []
        for b in s.utf8 {
            if b <= 0x20 || b >= 0x7F || b == UInt8(ascii: "#") || b == UInt8(ascii: "&") || b == UInt8(ascii: "?") || extraUnsafe.contains(b) {
                out += Array(String(format: "%%%02X", b).utf8)
            } else {
                out.append(b)
            }
        }
        return String(decoding: out, as: UTF8.self)
    }
    static func headerSafe(_ s: String) -> String {
        String(decoding: s.utf8.map { $0 < 0x20 || $0 == 0x7F ? UInt8(ascii: " ") : $0 }, as: UTF8.self)
    }

    mutating func fillerPairs(_ n: Int) -> [(String, String)] {
        (0..<n).map { _ in ("\(pick(Self.neutralKeys))\(below(3) == 0 ? String(below(50)) : "")", pick(Self.fillerWords)) }
    }

    /// A random request with some planted values, and a description of what was planted where.
    mutating func request() -> (HTTPRequest, String) {
        let scheme = chance(30) ? "http" : "https"
        var query: [(String, String)] = fillerPairs(below(4))
        var path = ["v\(below(3))", pick(["e", "collect", "track", "api"])]
        var headers: [(String, String)] = fillerPairs(below(3)).map { ("X-\($0.0)", Self.headerSafe($0.1)) }
        var cookies: [(String, String)] = fillerPairs(below(3))
        var form: [(String, String)] = []
        var json: [(String, String)] = []   // key, JSON value text
        var multipart: [(String, String)] = []
        var ndjson: [String] = []
        var textBody: [String] = []
        var protobuf: [[UInt8]] = []
        var tail: [String] = []
        var binary: [[UInt8]] = []
        var log: [String] = []
        for _ in 0..<(1 + below(3)) {
            let (v, steps) = encodedValue()
            let key = pick(Self.neutralKeys)
            let place = below(12)
            log.append("\(steps.joined(separator: ">")) in place \(place) key \(key)")
            switch place {
            case 0: query.append((key, Self.urlSafe(v, extraUnsafe: [UInt8(ascii: "=")])))
            case 1: path.insert(Self.urlSafe(v, extraUnsafe: [UInt8(ascii: "/")]), at: below(path.count + 1))
            case 2: headers.append((chance(50) ? "X-\(key)" : pick(["User-Agent", "Authorization", "X-Device", "Referer"]), Self.headerSafe(v)))
            case 3: cookies.append((key, Self.urlSafe(v, extraUnsafe: [UInt8(ascii: ";"), UInt8(ascii: ",")])))
            case 4: form.append((key, Self.urlSafe(v, extraUnsafe: [UInt8(ascii: "="), UInt8(ascii: "+")])))
            case 5 where chance(15):
                // The value as a JSON key.
                json.append((Self.jsonEscaped(v, unicode: false, slash: false), "\(below(9))"))
            case 5:
                var inner = "\"\(Self.jsonEscaped(v, unicode: chance(20), slash: chance(30)))\""
                for _ in 0..<below(4) { inner = chance(50) ? "{\"\(pick(Self.neutralKeys))\":\(inner),\"k\":1}" : "[0,\(inner)]" }
                json.append((key, inner))
            case 6: multipart.append((key, v))
            case 7: ndjson.append("{\"\(key)\":\"\(Self.jsonEscaped(v, unicode: chance(20), slash: false))\",\"t\":\(below(1000))}")
            case 8: textBody.append(v)
            case 9:
                let b = Array(v.utf8)
                protobuf.append([UInt8(0x0A | (below(4) << 3))] + varint(b.count) + b)
            case 10:
                if let c = coordinate, chance(25) {
                    binary.append(binaryRecord(c, string: v))
                } else if let c = coordinate, chance(30) {
                    // Latitude and longitude apart, in places of their own, some as fixed-point integers.
                    for (k, v) in [(pick(["lat", "latitude", "y"]), c.latitude), (pick(["lon", "lng", "longitude", "x"]), c.longitude)] {
                        let text = chance(25) ? String(Int(v * pick([1e5, 1e6, 1e7]))) : String(format: "%.\(1 + below(6))f", v)
                        switch below(4) {
                        case 0: query.append((k, text))
                        case 1: headers.append(("X-\(k)", text))
                        case 2: form.append((k, text))
                        default: json.append((k, chance(50) ? text : "\"\(text)\""))
                        }
                    }
                } else if let c = coordinate, chance(40) {
                    let lat = String(format: "%.\(2 + below(5))f", c.latitude), lon = String(format: "%.\(2 + below(5))f", c.longitude)
                    json.append(("lat", "\"\(Self.jsonEscaped(encodeOnce(lat).0, unicode: false, slash: false))\""))
                    json.append(("lon", "\"\(Self.jsonEscaped(encodeOnce(lon).0, unicode: false, slash: false))\""))
                } else if let c = coordinate {
                    json.append(("lat", String(format: "%.\(2 + below(5))f", c.latitude)))
                    json.append((pick(["lon", "lng", "longitude"]), String(format: "%.\(2 + below(5))f", c.longitude)))
                } else {
                    json.append((key, "\"\(Self.jsonEscaped(v, unicode: false, slash: false))\""))
                }
            default: tail.append(v)
            }
        }
        // Name parts split over fields.
        if chance(15), let w = values.first(where: { $0.contains(" ") && !$0.contains("+") && $0.rangeOfCharacter(from: .decimalDigits) == nil }) {
            var words = w.split(separator: " ").map(String.init)
            // Sometimes encoded, sometimes short base64 with padding.
            words = words.map { chance(70) ? $0 : encodeOnce($0).0 }
            if words.count >= 2 {
                switch below(3) {
                case 0: form += [("first_name", words[0]), ("x", "1"), ("last_name", words[1])]
                case 1: json += [("fn", "\"\(words[0])\""), ("ln", "\"\(words[1])\"")]
                default: query += [("given", words[0]), ("family", words[1])]
                }
            }
        }
        if scheme == "http" {
            // Passwords under keys the scan must see as password keys.
            for _ in 0..<below(3) {
                let key = pick(Self.passwordKeys), secret = "hunter\(below(1000))x"
                switch below(5) {
                case 0: headers.append((key.contains("%") ? "X-\(key)" : key, secret))
                case 1: cookies.append((key, secret))
                case 2: query.append((key, secret))
                case 3: form.append((key, secret))
                default:
                    let escaped = chance(30) ? key.replacingOccurrences(of: "a", with: "\\u0061") : key
                    json.append((escaped, "\"\(secret)\""))
                }
                log.append("password under \(key)")
            }
            if chance(10) { headers.append(("Authorization", "Basic " + Data("bob:\(value())".utf8).base64EncodedString())) }
        }
        var target = "/" + path.joined(separator: "/")
        if !query.isEmpty || chance(20) { target += "?" + query.map { "\($0.0)=\($0.1)" }.joined(separator: "&") }
        if !cookies.isEmpty { headers.append(("Cookie", cookies.map { "\($0.0)=\($0.1)" }.joined(separator: "; "))) }
        var body: [UInt8] = []
        var contentType: String?
        // Every planted body kind wins a body of its own only when it is the only one; else one is chosen.
        var kinds: [Int] = []
        if !form.isEmpty { kinds.append(0) }
        if !json.isEmpty { kinds.append(1) }
        if !multipart.isEmpty { kinds.append(2) }
        if !ndjson.isEmpty { kinds.append(3) }
        if !textBody.isEmpty { kinds.append(4) }
        if !protobuf.isEmpty { kinds.append(5) }
        if !tail.isEmpty { kinds.append(6) }
        if !binary.isEmpty { kinds.append(7) }
        if let kind = kinds.isEmpty ? nil : pick(kinds) {
            switch kind {
            case 0:
                let pairs = (form + fillerPairs(below(3))).shuffled(using: &rng)
                body = Array(pairs.map { "\($0.0)=\($0.1)" }.joined(separator: "&").utf8)
                contentType = chance(80) ? "application/x-www-form-urlencoded" : nil
            case 1:
                let members = (json + fillerPairs(below(4)).map { ($0.0, "\"\($0.1)\"") }).shuffled(using: &rng)
                var text = "{" + members.map { "\"\($0.0)\":\($0.1)" }.joined(separator: ",") + "}"
                if chance(20) { text = "[{\"e\":1}," + text + "]" }
                body = Array(text.utf8)
                contentType = chance(80) ? "application/json" : pick([nil, "text/plain", "application/octet-stream"])
            case 2:
                let boundary = "b0undary\(below(100))"
                var text = ""
                for (k, v) in multipart + fillerPairs(below(2)) {
                    // Some parts typed, some holding their value as a protobuf field.
                    let type = pick(["", "", "Content-Type: text/plain\r\n", "Content-Type: application/octet-stream\r\n",
                                     "Content-Type: application/json\r\n"])
                    let value = type.contains("octet") && chance(50) ? "\u{0A}\(Character(Unicode.Scalar(UInt8(min(v.utf8.count, 127)))))\(v)" : v
                    text += "--\(boundary)\r\nContent-Disposition: form-data; name=\"\(k)\"\r\n\(type)\r\n\(value)\r\n"
                }
                text += "--\(boundary)--\r\n"
                body = Array(text.utf8)
                contentType = "multipart/form-data; boundary=\(boundary)"
            case 3:
                body = Array((ndjson + ["{\"filler\":\(below(9))}"]).shuffled(using: &rng).joined(separator: "\n").utf8)
                contentType = chance(70) ? "application/x-ndjson" : nil
            case 4:
                body = Array(textBody.joined(separator: " \(pick(Self.fillerWords)) ").utf8)
                contentType = pick([nil, "text/plain"])
            case 5:
                body = protobuf.flatMap { $0 } + [0x10, UInt8(below(128))]
                contentType = pick([nil, "application/x-protobuf", "application/octet-stream"])
            case 7:
                body = binary.flatMap { $0 } + (0..<below(24)).map { _ in UInt8(truncatingIfNeeded: rng.next()) }
                contentType = pick([nil, "application/octet-stream"])
            default:
                // Text that looks like text for more than 512 bytes, then a binary tail holding the values.
                var text = Array(String(repeating: "lorem ipsum dolor ", count: 25 + below(15)).utf8)
                for v in tail { text += [0x00, 0x01, 0xFF, 0x0A, UInt8(v.utf8.count & 0x7F)] + Array(v.utf8) + [0x00, 0x9F] }
                body = text
                contentType = pick([nil, "application/octet-stream", "text/plain"])
            }
        }
        if let contentType { headers.append(("Content-Type", contentType)) }
        let method = body.isEmpty && chance(70) ? "GET" : "POST"
        var h = HTTPHeaders()
        h.add(name: "Host", value: "t\(below(3)).example")
        for (n, v) in headers.shuffled(using: &rng) { h.add(name: n, value: v) }
        let request = HTTPRequest(head: HTTPRequestHead(method: method, target: target, headers: h), scheme: scheme, body: body)
        return (request, log.joined(separator: "; "))
    }

    /// A binary record holding `c` (a few metres off, 2 to 6 decimals) as a float32 or float64
    /// pair in either byte order and either order: after a header of 0 to 8 bytes or a
    /// length-prefixed string, sometimes followed by a round accuracy, then a time or random bytes.
    mutating func binaryRecord(_ c: Coordinate, string: String) -> [UInt8] {
        let little = chance(50), wide = chance(40)
        func number(_ v: Double) -> [UInt8] {
            if wide { return little ? withUnsafeBytes(of: v.bitPattern.littleEndian, Array.init) : withUnsafeBytes(of: v.bitPattern.bigEndian, Array.init) }
            let bits = Float(v).bitPattern
            return little ? withUnsafeBytes(of: bits.littleEndian, Array.init) : withUnsafeBytes(of: bits.bigEndian, Array.init)
        }
        let scale = pow(10, Double(2 + below(5)))
        let lat = ((c.latitude + Double(below(7) - 3) * 0.0001) * scale).rounded() / scale
        let lon = ((c.longitude + Double(below(7) - 3) * 0.0001) * scale).rounded() / scale
        var out: [UInt8]
        if chance(50) {
            out = (0..<below(9)).map { _ in UInt8(truncatingIfNeeded: rng.next()) }
        } else {
            let s = Array(string.utf8.prefix(200))
            out = little ? [UInt8(s.count & 0xFF), UInt8(s.count >> 8)] + s : [UInt8(s.count >> 8), UInt8(s.count & 0xFF)] + s
        }
        out += chance(85) ? number(lat) + number(lon) : number(lon) + number(lat)
        if chance(40) { out += number(Double(pick([5, 10, 12.5, 65, 1200]))) }
        return out + (0..<below(12)).map { _ in UInt8(truncatingIfNeeded: rng.next()) }
    }

    func varint(_ n: Int) -> [UInt8] {
        var out: [UInt8] = [], v = n
        while v >= 0x80 { out.append(UInt8(v & 0x7F) | 0x80); v >>= 7 }
        out.append(UInt8(v))
        return out
    }

    /// The request as text, to reproduce a mismatch.
    static func describe(_ r: HTTPRequest) -> String {
        var s = "\(r.head.method) \(r.scheme)://…\(r.head.target)\n"
        for f in r.head.headers { s += "\(f.name): \(f.value)\n" }
        let body = r.body.count > 2000 ? Array(r.body.prefix(2000)) : r.body
        s += body.allSatisfy({ $0 >= 0x20 && $0 < 0x7F || $0 == 0x0A || $0 == 0x0D })
            ? String(decoding: body, as: UTF8.self) : "hex: " + hexString(body)
        return s
    }
}

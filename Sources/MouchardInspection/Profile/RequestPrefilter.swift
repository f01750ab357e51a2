import MouchardFlow
import MouchardWire

/// With a device profile, most requests carry none of the device's values. This cheap pass over
/// the raw request (target, header values, body) decides whether the full decode walk is needed:
/// it is skipped only when the raw bytes hold no profile variant (the variants already cover
/// case, separators, percent-encoding, hex, hashes and base64 at every alignment), no phone-like
/// run, no number near the profile's coordinates, and nothing the variants cannot see through
/// (compressed or binary bodies, JSON escapes, percent-escapes, base64-looking runs).
extension KnownValueMatcher {
    func needsWalk(_ request: HTTPRequest, pathAndQuery: String, passwordKeys: [String], cleartext: Bool) -> Bool {
        if !request.body.isEmpty {
            if request.headers["Content-Encoding"] != nil { return true }
            if !ByteCodecs.looksLikeText(request.body.prefix(512)) { return true }
            if rawNeedsWalk(request.body[...]) { return true }
        }
        if rawNeedsWalk(Array(pathAndQuery.utf8)[...]) { return true }
        for field in request.headers.fields where !skippedForPrefilter(field.name) {
            if rawNeedsWalk(field.valueBytes[...]) { return true }
        }
        if cleartext {
            if request.headers["Authorization"] != nil { return true }
            let lowerBody = String(decoding: request.body.prefix(1 << 16), as: UTF8.self).lowercased() + pathAndQuery.lowercased()
            if passwordKeys.contains(where: { asciiContains(lowerBody, $0) }) { return true }
        }
        return false
    }

    private func skippedForPrefilter(_ name: String) -> Bool {
        name.utf8.count == 4 && asciiCaseInsensitiveEqualsName(name, "host")
    }

    private func asciiCaseInsensitiveEqualsName(_ a: String, _ b: String) -> Bool {
        a.utf8.count == b.utf8.count && zip(a.utf8, b.utf8).allSatisfy { foldASCII($0) == foldASCII($1) }
    }

    private func rawNeedsWalk(_ bytes: ArraySlice<UInt8>) -> Bool {
        if bytes.isEmpty { return false }
        var found = false
        bytes.withUnsafeBufferPointer { buf in
            matcher.forEachMatch(in: buf) { _ in found = true }
        }
        if found { return true }
        var hits: [Hit] = []
        phoneHits(bytes, into: &hits)
        if !hits.isEmpty { return true }
        if !namePartLengths.isEmpty, containsNamePart(bytes) { return true }
        var i = bytes.startIndex
        var run = 0
        var runStart = i
        while i < bytes.endIndex {
            let b = bytes[i]
            if b == 0x5C { return true } // JSON escapes (\u00e9, \/)
            if b == 0x25, i + 2 < bytes.endIndex, hexNibble(bytes[i + 1]) != nil, hexNibble(bytes[i + 2]) != nil { return true }
            if ByteCodecs.isBase64Byte(b) {
                if run == 0 { runStart = i }
                run += 1
            } else {
                if run >= 12, base64Suspect(bytes[runStart..<i]) { return true }
                run = 0
            }
            if b == 0x2E, let loc = location, nearCoordinate(bytes, dot: i, loc) { return true }
            if b >= 0x30, b <= 0x39, let loc = location, i == bytes.startIndex || !(bytes[i - 1] >= 0x30 && bytes[i - 1] <= 0x39) {
                var e = i
                var v = 0
                while e < bytes.endIndex, bytes[e] >= 0x30, bytes[e] <= 0x39, e - i < 12 { v = v * 10 + Int(bytes[e] - 0x30); e += 1 }
                if e - i >= 6, e - i <= 11, nearScaled(Double(v), loc) { return true }
            }
            i += 1
        }
        if run >= 12, base64Suspect(bytes[runStart..<bytes.endIndex]) { return true }
        return false
    }

    private func base64Suspect(_ run: ArraySlice<UInt8>) -> Bool {
        !run.allSatisfy { hexNibble($0) != nil || $0 == 0x2D } && looksLikeBase64Run(run)
    }

    /// A decimal number around `dot` within 0.05° of the profile's latitude or longitude.
    private func nearCoordinate(_ bytes: ArraySlice<UInt8>, dot: Int, _ loc: Coordinate) -> Bool {
        var s = dot
        while s > bytes.startIndex, bytes[s - 1] >= 0x30, bytes[s - 1] <= 0x39 { s -= 1 }
        if s > bytes.startIndex, bytes[s - 1] == 0x2D { s -= 1 }
        var e = dot + 1
        while e < bytes.endIndex, bytes[e] >= 0x30, bytes[e] <= 0x39 { e += 1 }
        guard let n = parseDecimal(bytes[s..<e]) else { return false }
        return abs(n.value - loc.latitude) < 0.05 || abs(n.value - loc.longitude) < 0.05
    }

    /// An integer that, read as fixed-point degrees (×10^5, 10^6, 10^7), is near the profile location.
    private func nearScaled(_ v: Double, _ loc: Coordinate) -> Bool {
        for scale in [1e5, 1e6, 1e7] {
            let d = v / scale
            if abs(d - abs(loc.latitude)) < 0.05 || abs(d - abs(loc.longitude)) < 0.05 { return true }
        }
        return false
    }

    private func containsNamePart(_ bytes: ArraySlice<UInt8>) -> Bool {
        // Words of the lengths of name parts, compared folded (non-ASCII words always count).
        var i = bytes.startIndex
        while i < bytes.endIndex {
            guard bytes[i] >= 0x41 else { i += 1; continue }
            let s = i
            while i < bytes.endIndex, bytes[i] >= 0x41 || bytes[i] == 0x2D || bytes[i] == 0x27 { i += 1 }
            let word = bytes[s..<i]
            if hasNamePartLength(word.count) {
                if word.contains(where: { $0 >= 0x80 }) { return true }
                let folded = String(unsafeUninitializedCapacity: word.count) { out in
                    for (k, b) in word.enumerated() { out[k] = foldASCII(b) }
                    return word.count
                }
                if nameParts[folded] != nil { return true }
            }
        }
        return false
    }
}

/// The one sentence of a finding a non-engineer can read (`The device's IDFA sent to
/// ads.example (Ads Co) in query:ifa encoded as md5.`), written into one buffer: the inspector
/// makes one per finding, and chained appends would allocate and copy at every step.
enum FindingSentence {
    /// The destination part of a sentence (` sent to HOST (COMPANY) in `), the same for the
    /// findings of one flow: kept as its pieces, each sentence copies them (a text of its own
    /// would be one more allocation per flow).
    struct SentTo {
        var host: String
        var company: String?

        /// Bytes the part takes in a sentence.
        var count: Int {
            FindingSentence.sentToWords.utf8CodeUnitCount + host.utf8.count + FindingSentence.inWords.utf8CodeUnitCount
                + (company.map { $0.utf8.count + 3 } ?? 0)
        }
    }

    /// `what` + `sentTo` (` sent to HOST (COMPANY) in `, the same for a whole flow) + `where`
    /// (+ ` → inner`) + ` in clear.` for plain values, else ` encoded as ENCODING.`.
    static func make(what: String, sentTo: SentTo, where place: String, inner: String?, encoding: String) -> String {
        let plain = encoding == "plain"
        var count = what.utf8.count + sentTo.count + place.utf8.count
        if let inner { count += arrow.utf8CodeUnitCount + inner.utf8.count }
        count += plain ? inClear.utf8CodeUnitCount : encodedAs.utf8CodeUnitCount + encoding.utf8.count + 1
        return String(unsafeUninitializedCapacity: count) { buffer in
            guard let base = buffer.baseAddress else { return 0 }
            var k = copy(what, to: base, room: count)
            k += copy(sentToWords, to: base + k, room: count - k)
            k += copy(sentTo.host, to: base + k, room: count - k)
            if let company = sentTo.company {
                k += copy(" (", to: base + k, room: count - k)
                k += copy(company, to: base + k, room: count - k)
                k += copy(")", to: base + k, room: count - k)
            }
            k += copy(inWords, to: base + k, room: count - k)
            k += copy(place, to: base + k, room: count - k)
            if let inner {
                k += copy(arrow, to: base + k, room: count - k)
                k += copy(inner, to: base + k, room: count - k)
            }
            if plain {
                k += copy(inClear, to: base + k, room: count - k)
            } else {
                k += copy(encodedAs, to: base + k, room: count - k)
                k += copy(encoding, to: base + k, room: count - k)
                k += copy(".", to: base + k, room: count - k) as Int
            }
            return k
        }
    }

    /// ` sent to HOST (COMPANY) in `: the part of the sentence shared by the findings of one flow.
    static func sentTo(host: String, company: String?) -> SentTo {
        SentTo(host: host, company: company)
    }

    fileprivate static let sentToWords: StaticString = " sent to "
    fileprivate static let inWords: StaticString = " in "
    private static let arrow: StaticString = " → "
    private static let inClear: StaticString = " in clear."
    private static let encodedAs: StaticString = " encoded as "

    /// Copies the UTF-8 of `text` to `to` (at most `room` bytes); the number of bytes copied.
    private static func copy(_ text: String, to: UnsafeMutablePointer<UInt8>, room: Int) -> Int {
        let copied = text.utf8.withContiguousStorageIfAvailable { bytes in
            let n = min(bytes.count, room)
            guard n > 0, let from = bytes.baseAddress else { return 0 }
            to.update(from: from, count: n)
            return n
        }
        if let copied { return copied }
        // Text not stored as UTF-8 (bridged): byte by byte.
        var n = 0
        for b in text.utf8 where n < room {
            to[n] = b
            n += 1
        }
        return n
    }

    private static func copy(_ text: StaticString, to: UnsafeMutablePointer<UInt8>, room: Int) -> Int {
        let n = min(text.utf8CodeUnitCount, room)
        guard n > 0 else { return 0 }
        to.update(from: text.utf8Start, count: n)
        return n
    }
}

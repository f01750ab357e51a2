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
        /// ` received from HOST` instead: a server's message carried the value (`MessageWalk`).
        var isReceived = false

        /// The same destination, for values the host sent.
        var received: SentTo {
            var r = self
            r.isReceived = true
            return r
        }

        /// Bytes the part takes in a sentence.
        var count: Int {
            (isReceived ? FindingSentence.receivedFromWords : FindingSentence.sentToWords).utf8CodeUnitCount + host.utf8.count
                + FindingSentence.inWords.utf8CodeUnitCount + (company.map { $0.utf8.count + 3 } ?? 0)
        }
    }

    /// `what` + `sentTo` (` sent to HOST (COMPANY) in `, the same for a whole flow) + `where`
    /// (+ ` → inner`) + ` in clear.` for plain values, else ` encoded as ENCODING.`.
    static func make(what: String, sentTo: SentTo, where place: String, inner: String?, encoding: String) -> String {
        let plain = encoding == "plain"
        var count = what.utf8.count + sentTo.count + place.utf8.count
        if let inner { count += arrow.utf8CodeUnitCount + inner.utf8.count }
        count += plain ? inClear.utf8CodeUnitCount : encodedAs.utf8CodeUnitCount + encoding.utf8.count + 1
        return String(utf8Count: count) { w in
            w.write(what)
            w.write(sentTo.isReceived ? receivedFromWords : sentToWords)
            w.write(sentTo.host)
            if let company = sentTo.company {
                w.write(" (" as StaticString)
                w.write(company)
                w.write(UInt8(ascii: ")"))
            }
            w.write(inWords)
            w.write(place)
            if let inner {
                w.write(arrow)
                w.write(inner)
            }
            if plain {
                w.write(inClear)
            } else {
                w.write(encodedAs)
                w.write(encoding)
                w.write(UInt8(ascii: "."))
            }
        }
    }

    /// ` sent to HOST (COMPANY) in `: the part of the sentence shared by the findings of one flow.
    static func sentTo(host: String, company: String?) -> SentTo {
        SentTo(host: host, company: company)
    }

    fileprivate static let sentToWords: StaticString = " sent to "
    fileprivate static let receivedFromWords: StaticString = " received from "
    fileprivate static let inWords: StaticString = " in "
    private static let arrow: StaticString = " → "
    private static let inClear: StaticString = " in clear."
    private static let encodedAs: StaticString = " encoded as "
}

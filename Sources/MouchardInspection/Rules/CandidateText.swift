/// The character tests the validators make on a candidate, read from its UTF-8 bytes when it is
/// all ASCII (a letter is then `A`-`Z` or `a`-`z`, a number `0`-`9`, as `Character` says) and from
/// its characters otherwise: the answers are the same, without a `Character` made per byte or a
/// `Set` per candidate.
enum CandidateText {
    static func isASCII(_ text: String) -> Bool { text.utf8.allSatisfy { $0 < 0x80 } }

    static func isLetter(_ b: UInt8) -> Bool { (b | 0x20) >= 0x61 && (b | 0x20) <= 0x7A }
    static func isDigit(_ b: UInt8) -> Bool { b >= 0x30 && b <= 0x39 }

    /// Some character is a letter.
    static func hasLetter(_ text: String) -> Bool {
        isASCII(text) ? text.utf8.contains(where: isLetter) : text.contains(where: \.isLetter)
    }

    /// Some character is a number.
    static func hasNumber(_ text: String) -> Bool {
        isASCII(text) ? text.utf8.contains(where: isDigit) : text.contains(where: \.isNumber)
    }

    /// The letters and numbers of `text`, lower-cased, are at most one distinct character
    /// (`0000-0000`, `FFFFFFFF`, or none at all).
    static func hasAtMostOneAlnum(_ text: String) -> Bool {
        guard isASCII(text) else {
            return Set(text.lowercased().filter { $0.isLetter || $0.isNumber }).count <= 1
        }
        var seen: UInt8?
        for b in text.utf8 where isLetter(b) || isDigit(b) {
            let folded = isLetter(b) ? b | 0x20 : b
            if let s = seen, s != folded { return false }
            seen = folded
        }
        return true
    }

    /// The ASCII digits of `text`, in order (`PhoneNumbers.digits`, read from the bytes: a digit
    /// is one byte in UTF-8 and no other byte is one).
    static func digits(_ text: String) -> String {
        String(decoding: text.utf8.filter(isDigit), as: UTF8.self)
    }

    /// `text` lower-cased, when it is ASCII (as bytes); nil otherwise.
    static func lowercasedASCII(_ text: String) -> [UInt8]? {
        guard isASCII(text) else { return nil }
        return text.utf8.map { $0 >= 0x41 && $0 <= 0x5A ? $0 | 0x20 : $0 }
    }
}
